import { Migration } from '@mikro-orm/migrations';

/**
 * Escrow cancel invoices by creation: the maintenance sweep looks for the recent ones whose Stripe
 * card refunds have no recorded outcome (`cancelsWithOpenCardRefunds`) every sweep, and reads them
 * through this partial index rather than the whole invoice table.
 */
export class Migration20261128170000CancelCardRefunds extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index invoice_escrow_cancel_created_idx on invoice (created_at) where invoice_type like 'user_purchase_refund_escrow%';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists invoice_escrow_cancel_created_idx;');
  }
}
