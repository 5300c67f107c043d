import { Migration } from '@mikro-orm/migrations';

/**
 * An integrator's invoices by creation time: the invoices and refunds exports (`GET
 * /v2/exports/invoices|refunds` without `account_id`) read `where integrator_id = ? and created_at
 * >= ? and created_at < ? order by created_at, id`, which no index served (the account indexes
 * need an account), so each export scanned the whole table and sorted it. With `id` last the
 * index gives the rows in the export's order, and the cursor's first batch comes at once.
 * `if not exists`: on a large database an operator builds it first with `create index
 * concurrently` (docs/operations.md), and the migration then finds it.
 */
export class Migration20261129010000InvoiceExportIndex extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index if not exists invoice_integrator_created_idx on invoice (integrator_id, created_at, id);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists invoice_integrator_created_idx;');
  }
}
