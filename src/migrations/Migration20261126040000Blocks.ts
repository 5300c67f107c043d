import { Migration } from '@mikro-orm/migrations';

/**
 * Blocks, tags, user sessions and command inputs (account merge).
 * At most one active block per (account, capability): blocking twice is a no-op. Removed blocks
 * stay as history. Nonces and refresh tokens are stored only as SHA-256 hashes.
 */
export class Migration20261126040000Blocks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table account_block (
        id varchar(36) primary key,
        account_id varchar(36) not null references account (id),
        integrator_id varchar(36) not null references integrator (id),
        capability varchar(16) not null check (capability in ('login', 'payouts', 'transactions')),
        issuer varchar(16) not null check (issuer in ('publisher', 'svc')),
        reason varchar(32) not null check (reason in ('account_close', 'compliance', 'merge_account', 'gdpr', 'failed_kyc',
                                                       'kyc_application_cancelled', 'flagged_for_full_kyc')),
        note varchar(500) null,
        status varchar(16) not null check (status in ('active', 'removed')),
        created_by varchar(36) null,
        removed_by varchar(36) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        removed_at timestamptz null,
        check ((status = 'removed') = (removed_at is not null))
      );`);
    this.addSql(`create unique index account_block_one_active on account_block (account_id, capability) where status = 'active';`);
    this.addSql(`create index account_block_account_idx on account_block (account_id);`);
    this.addSql(`
      create table account_tag (
        id varchar(36) primary key,
        account_id varchar(36) not null references account (id),
        integrator_id varchar(36) not null references integrator (id),
        resource_id varchar(36) not null,
        resource_type varchar(32) not null,
        namespace varchar(64) not null,
        tag varchar(64) not null,
        status varchar(16) not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index account_tag_account_idx on account_tag (account_id);`);
    this.addSql(`
      create table user_session_nonce (
        nonce_hash char(64) primary key,
        account_id varchar(36) not null references account (id),
        integrator_id varchar(36) not null references integrator (id),
        client_id varchar(36) not null,
        expires_at timestamptz not null,
        used_at timestamptz null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index user_session_nonce_expiry_idx on user_session_nonce (expires_at);`);
    this.addSql(`
      create table refresh_token (
        id varchar(36) primary key,
        token_hash char(64) not null unique,
        family_id varchar(36) not null,
        account_id varchar(36) not null references account (id),
        integrator_id varchar(36) not null references integrator (id),
        client_id varchar(36) not null,
        expires_at timestamptz not null,
        used_at timestamptz null,
        revoked_at timestamptz null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index refresh_token_family_idx on refresh_token (family_id);`);
    this.addSql(`create index refresh_token_account_idx on refresh_token (account_id) where revoked_at is null;`);
    // Commands with an input (merge: the destination). Requests for the same work share one
    // pending command; the same target with another input is other work.
    this.addSql(`alter table command add column input jsonb null, add column input_key varchar(100) not null default '';`);
    this.addSql(`drop index command_one_pending;`);
    this.addSql(`create unique index command_one_pending on command (target_id, kind, input_key) where state = 'pending';`);
  }
}
