import { Migration } from '@mikro-orm/migrations';

/**
 * What money going out of Holdfast needs: the integrator's payout and conversion settings;
 * two ledger account kinds — `payout_holding` (money of requested payouts) and
 * `payout_clearing` (money paid out to a payout provider: it only grows), both credit-normal;
 * and the payout-only payment method provider `paypal`.
 */
export class Migration20261126235000PayoutFoundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table integrator
        add column payout_auto_approve_max bigint not null default 0 check (payout_auto_approve_max >= 0),
        add column payout_open_limit int not null default 3 check (payout_open_limit >= 1),
        add column conversion_fee_bps int not null default 0 check (conversion_fee_bps between 0 and 10000);`);
    this.addSql(`alter table ledger_account drop constraint ledger_account_kind_check;`);
    this.addSql(`
      alter table ledger_account add constraint ledger_account_kind_check
        check (kind in ('user_wallet', 'publisher_wallet', 'escrow_holding', 'card_clearing', 'pobo_clearing', 'token_issuance',
                        'sandbox_funding', 'payout_holding', 'payout_clearing'));`);
    this.addSql(`alter table ledger_account drop constraint ledger_account_side_by_kind;`);
    this.addSql(`
      alter table ledger_account add constraint ledger_account_side_by_kind
        check ((case when kind in ('card_clearing', 'pobo_clearing', 'sandbox_funding') then 'debit' else 'credit' end) = normal_side);`);
    this.addSql(`
      do $$
      declare name text;
      begin
        select conname into strict name from pg_constraint
         where conrelid = 'payment_method'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%provider%card%';
        execute format('alter table payment_method drop constraint %I', name);
      end $$;`);
    this.addSql(
      `alter table payment_method add constraint payment_method_provider_check check (provider in ('wallet', 'pobo', 'card', 'paypal'));`,
    );
  }
}
