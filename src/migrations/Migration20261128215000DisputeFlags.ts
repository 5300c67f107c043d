import { Migration } from '@mikro-orm/migrations';

/**
 * What an operator should look at on a dispute, and whether a Stripe dispute is still an inquiry.
 *
 * - `dispute.flags`: the processor's notice was recorded though Holdfast could not take all it
 *   reported (`CAPPED`: part or all of the charge had been refunded, or an escrow cancel gave it
 *   back; `NOT_A_PAID_CHARGE`: Holdfast has no paid card charge of a purchase behind it).
 * - `dispute.inquiry`: a Stripe inquiry (`warning_*`) not yet escalated to a chargeback.
 */
export class Migration20261128215000DisputeFlags extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table dispute add column flags jsonb not null default '[]';`);
    this.addSql(`alter table dispute add column inquiry boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table dispute drop column if exists inquiry;');
    this.addSql('alter table dispute drop column if exists flags;');
  }
}
