import { Migration } from '@mikro-orm/migrations';

/**
 * Commands: money-moving work requested over HTTP and run by a worker. The row is written
 * before the job is enqueued, so a lost job (crash, Redis restart) is found by the sweeper.
 * At most one pending command per (target, kind): concurrent requests share it.
 */
export class Migration20261126020000Commands extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table command (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        kind varchar(40) not null,
        target_id varchar(36) not null,
        state varchar(16) not null check (state in ('pending', 'done')),
        result_status integer null,
        result_body jsonb null,
        attempts integer not null default 0,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((state = 'done') = (result_status is not null))
      );`);
    this.addSql(`create unique index command_one_pending on command (target_id, kind) where state = 'pending';`);
    this.addSql(`create index command_pending_idx on command (updated_at) where state = 'pending';`);
  }
}
