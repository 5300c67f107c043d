import { Migration } from '@mikro-orm/migrations';

/**
 * Every statement that writes ledger entries must balance them, per posting and currency, in
 * that statement: the statement-level trigger that applies balances checks first and refuses
 * the whole statement otherwise. Entries are append-only, so every posting then balances at
 * all times — stricter than the check this replaces (a deferred trigger per entry, at commit,
 * that read the posting's entries back once for each of them). Every writer writes a posting
 * and all its entries in one statement.
 */
export class Migration20261126070000PostingsBalancedPerStatement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop trigger ledger_entry_balanced on ledger_entry;`);
    this.addSql(`drop function ledger_check_posting_balanced();`);
    this.addSql(`
      create or replace function ledger_apply_entries() returns trigger language plpgsql as $$
      declare r record;
      begin
        select posting_id, currency into r from inserted group by posting_id, currency having sum(amount) <> 0 limit 1;
        if found then
          raise exception 'ledger posting % does not balance in %', r.posting_id, r.currency using errcode = '23514';
        end if;
        for r in select ledger_account_id, sum(amount) as credit from inserted group by ledger_account_id order by ledger_account_id loop
          update ledger_account set balance = balance + case normal_side when 'debit' then -r.credit else r.credit end
            where id = r.ledger_account_id;
        end loop;
        return null;
      end $$;`);
  }
}
