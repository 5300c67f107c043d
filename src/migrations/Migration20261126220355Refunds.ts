import { Migration } from '@mikro-orm/migrations';

/**
 * Refunds: a refund is an invoice (`user_refund`, `user_refund_virtual`) that names the
 * purchase invoice it refunds; the refunds of a purchase are found by that column.
 */
export class Migration20261126220355Refunds extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table invoice add column refunded_invoice_id varchar(36) null;');
    this.addSql('create index invoice_refunded_invoice_idx on invoice (refunded_invoice_id);');
  }
}
