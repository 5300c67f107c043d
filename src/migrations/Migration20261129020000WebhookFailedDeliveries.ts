import { Migration } from '@mikro-orm/migrations';

/**
 * An endpoint's failed deliveries by creation time: the console's webhooks page lists each
 * endpoint's latest deliveries given up (dead) or retrying after a failed attempt, newest first.
 * Through `webhook_delivery_endpoint_idx` that walk passed every delivered row of a healthy,
 * busy endpoint (a month of them) to find none; this index holds only the failed ones, so the
 * walk reads what it shows. A delivery enters it on its first failed attempt and leaves it when
 * one succeeds. `if not exists`: on a large database an operator builds it first with
 * `create index concurrently` (docs/operations.md), and the migration then finds it.
 */
export class Migration20261129020000WebhookFailedDeliveries extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index if not exists webhook_delivery_failed_idx on webhook_delivery (endpoint_id, created_at) where state = 'dead' or (state = 'pending' and attempts > 0);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists webhook_delivery_failed_idx;');
  }
}
