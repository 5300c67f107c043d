import { Migration } from '@mikro-orm/migrations';

/**
 * The staging test clock: how far each integrator has moved its own "now" forward. Empty in
 * production (the routes that write it are absent there); a missing row means real time.
 */
export class Migration20261126213500SandboxClock extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table sandbox_clock (
        integrator_id varchar(36) primary key references integrator (id),
        offset_seconds bigint not null check (offset_seconds > 0),
        updated_at timestamptz not null default now()
      );`);
  }
}
