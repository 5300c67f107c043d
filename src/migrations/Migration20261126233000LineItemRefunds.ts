import { Migration } from '@mikro-orm/migrations';

/**
 * Line-item refunds find the purchase invoice of a line item by its id: a GIN index on the
 * line items of purchase invoices only (an escrow's commit and cancel invoices copy its lines,
 * refunds copy the lines they refund; neither is where a line is looked up).
 */
export class Migration20261126233000LineItemRefunds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create index invoice_purchase_line_items_idx on invoice using gin (line_items jsonb_path_ops)
        where invoice_type in ('user_purchase', 'user_purchase_virtual', 'user_purchase_escrow', 'user_purchase_escrow_virtual', 'token_purchase');`);
  }
}
