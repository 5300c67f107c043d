import { Migration } from '@mikro-orm/migrations';

/**
 * The operator console's people and their sessions.
 *
 * - `console_user`: one person of one integrator, with a role (viewer, support, finance, admin)
 *   and, with `operator`, the operator's rights. The password is an argon2id hash; a new user has
 *   none until the one-time set-password link (only its SHA-256 is kept) is used. Failed logins
 *   are counted; past the limit the user is locked until `locked_until`. `totp_secret` is set
 *   once a second factor is confirmed.
 * - `console_session`: a signed-in browser. Only the SHA-256 of the cookie's value is kept; the
 *   CSRF token every form carries is bound to the session; `last_seen_at` ends an idle one.
 */
export class Migration20261129000000ConsoleUsers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table console_user (
        id varchar(36) primary key,
        integrator_id varchar(36) not null,
        email varchar(254) not null,
        role varchar(16) not null check (role in ('viewer', 'support', 'finance', 'admin')),
        operator boolean not null default false,
        password_hash varchar(255) null,
        setup_token_hash varchar(64) null,
        setup_expires_at timestamptz null,
        failed_logins int not null default 0,
        locked_until timestamptz null,
        totp_secret varchar(64) null,
        totp_pending varchar(64) null,
        disabled boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create unique index console_user_email_once on console_user (lower(email));');
    this.addSql('create unique index console_user_setup_token_once on console_user (setup_token_hash);');
    this.addSql(`
      create table console_session (
        id varchar(64) primary key,
        user_id varchar(36) not null references console_user (id) on delete cascade,
        csrf_token varchar(64) not null,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now()
      );`);
    this.addSql('create index console_session_user_idx on console_session (user_id);');
    // The console's queues: payouts an operator decides and identity checks in manual review.
    this.addSql(
      `create index payout_awaiting_decision_idx on payout (integrator_id, created_at) where status in ('FUNDS-IN-ESCROW', 'FAILED');`,
    );
    this.addSql(`create index kyc_check_review_idx on kyc_check (integrator_id, updated_at) where state = 'MANUAL_REVIEW';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists kyc_check_review_idx;');
    this.addSql('drop index if exists payout_awaiting_decision_idx;');
    this.addSql('drop table if exists console_session;');
    this.addSql('drop table if exists console_user;');
  }
}
