import { Migration } from '@mikro-orm/migrations';

/**
 * Authorized invoices (`POST /v2/authorize/invoice`): made by the integrator's server
 * for a buyer who then chooses how to pay in the hosted checkout or the SDK. Their
 * `invoice_mechanism` (`widget` or `api`) marks them; their `payment_methods` stay empty until
 * the buyer's pay names them.
 */
export class Migration20261126080000InvoiceAuthorization extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table invoice add column invoice_mechanism varchar(10) null check (invoice_mechanism in ('widget', 'api'));`);
  }
}
