import { Migration } from '@mikro-orm/migrations';

/** An account's invoices, newest first (GET /v1/{account_id}/invoices, the SDK's transaction history). */
export class Migration20261126090000InvoiceHistory extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index invoice_account_idx on invoice (account_id, id);`);
  }
}
