import { Migration } from '@mikro-orm/migrations';

/**
 * Card holds (Stripe PaymentIntents authorized, `requires_capture`) that their pay's command left
 * neither captured nor released — the provider down past the job's retries — are found by the
 * command sweeper through this partial index, which holds only them.
 */
export class Migration20261128130000CardHolds extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index provider_object_hold_idx on provider_object (updated_at) where object_type = 'payment_intent' and (snapshot ->> 'status') = 'requires_capture';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists provider_object_hold_idx;');
  }
}
