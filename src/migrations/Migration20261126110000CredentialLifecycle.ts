import { Migration } from '@mikro-orm/migrations';

/**
 * Credential lifecycle: a client can be revoked and its secret rotated (the previous secret's
 * hash authenticates until its grace ends); a revoked user session (`sid`) is remembered so
 * that its access tokens are refused. Signing keys need no change: the newest row signs.
 */
export class Migration20261126110000CredentialLifecycle extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table client
        add column previous_secret_hash varchar(64) null,
        add column previous_secret_expires_at timestamptz null,
        add column revoked_at timestamptz null;`);
    this.addSql(`
      create table revoked_session (
        sid varchar(36) primary key,
        account_id varchar(36) not null,
        revoked_at timestamptz not null default now()
      );`);
    this.addSql(`create index revoked_session_revoked_at_idx on revoked_session (revoked_at);`);
  }
}
