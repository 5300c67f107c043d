import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for the webhook history purge, so that each batch finds its rows by index, oldest
 * first, instead of scanning whole tables: finished deliveries by `finished_at`, attempts by
 * `attempted_at`, relayed events by `relayed_at`. Without them a run reads all of
 * `webhook_delivery` and `webhook_attempt` once no old row leads the heap. `if not exists`: on a
 * large database an operator builds them first with `create index concurrently` (see
 * docs/operations.md), and the migration then finds them.
 */
export class Migration20261127020000HousekeepingIndexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index if not exists webhook_delivery_finished_idx on webhook_delivery (finished_at) where state <> 'pending';`);
    this.addSql(`create index if not exists webhook_attempt_attempted_idx on webhook_attempt (attempted_at);`);
    this.addSql(`create index if not exists outbox_relayed_idx on outbox (relayed_at) where relayed_at is not null;`);
  }
}
