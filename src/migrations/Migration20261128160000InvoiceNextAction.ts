import { Migration } from '@mikro-orm/migrations';

/**
 * A buyer-present card pay that needs the buyer's authentication (3-D Secure in the hosted
 * checkout) leaves its invoice PROCESSING with the provider's page to send the buyer to, until
 * the provider's webhook settles it.
 */
export class Migration20261128160000InvoiceNextAction extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table invoice add column if not exists next_action_url varchar(2048) null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table invoice drop column if exists next_action_url;');
  }
}
