import { Migration } from '@mikro-orm/migrations';

/**
 * A Stripe dispute names the Charge it disputes (and its PaymentIntent when there is one): the
 * stored PaymentIntent whose latest Charge it is is found through this partial index.
 */
export class Migration20261128200000StripeDisputeCharges extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index provider_object_charge_idx on provider_object ((snapshot ->> 'latest_charge')) where object_type = 'payment_intent';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists provider_object_charge_idx;');
  }
}
