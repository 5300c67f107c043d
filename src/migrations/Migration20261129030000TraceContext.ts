import { Migration } from '@mikro-orm/migrations';

/**
 * The trace a command and an event belong to, as a W3C `traceparent` (null when tracing was off
 * when they were made): a command requeued by the sweeper, and the webhook deliveries of an
 * event, join the trace of the request that asked for them (src/runtime/tracing-hooks.ts).
 */
export class Migration20261129030000TraceContext extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table command add column if not exists traceparent varchar(55);');
    this.addSql('alter table outbox add column if not exists traceparent varchar(55);');
  }

  override async down(): Promise<void> {
    this.addSql('alter table command drop column if exists traceparent;');
    this.addSql('alter table outbox drop column if exists traceparent;');
  }
}
