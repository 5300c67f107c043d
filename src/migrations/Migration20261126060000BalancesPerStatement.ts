import { Migration } from '@mikro-orm/migrations';

/**
 * Balances are applied once per statement and account instead of once per entry: a statement
 * that writes a batch of postings (the escrow phases write many at once) updates each balance
 * row it touches once, with the sum of its entries, in account-id order (two statements lock
 * shared rows in the same order). The no-overdraft CHECK still judges every balance row.
 */
export class Migration20261126060000BalancesPerStatement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop trigger ledger_entry_apply on ledger_entry;`);
    this.addSql(`
      create function ledger_apply_entries() returns trigger language plpgsql as $$
      declare r record;
      begin
        for r in select ledger_account_id, sum(amount) as credit from inserted group by ledger_account_id order by ledger_account_id loop
          update ledger_account set balance = balance + case normal_side when 'debit' then -r.credit else r.credit end
            where id = r.ledger_account_id;
        end loop;
        return null;
      end $$;`);
    this.addSql(`
      create trigger ledger_entry_apply after insert on ledger_entry referencing new table as inserted
        for each statement execute function ledger_apply_entries();`);
  }
}
