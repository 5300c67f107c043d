import { Migration } from '@mikro-orm/migrations';

/**
 * Payouts sent to a real rail: two more states (PROCESSING: sent, no longer reversible;
 * RETURNED: the rail gave the money back), the attempt number behind each `sender_batch_id`
 * (`<payout id>-<attempt>`), the execute command that owns the attempt, and what the rail said
 * of it (its ids, its last status, its object). Payouts executed before count one attempt.
 */
export class Migration20261128120000PayoutRail extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table payout drop constraint if exists payout_status_check;');
    this.addSql(`alter table payout add constraint payout_status_check check (status in
      ('FUNDS-IN-ESCROW', 'PROCESSING', 'SUCCESS', 'FAILED', 'RETURNED', 'USER-REVERSED', 'SUPPORT-REVERSED'));`);
    this.addSql(`alter table payout
      add column attempt integer not null default 0 check (attempt >= 0),
      add column attempt_command_id varchar(40) null,
      add column provider_batch_id varchar(64) null,
      add column provider_item_id varchar(64) null,
      add column provider_status varchar(20) null,
      add column provider_snapshot jsonb null;`);
    this.addSql(`update payout set attempt = 1 where status in ('SUCCESS', 'FAILED') or failure_code is not null;`);
    // The provider webhook names the item: it finds its payout by this.
    this.addSql('create index payout_provider_item_idx on payout (provider_item_id) where provider_item_id is not null;');
  }
}
