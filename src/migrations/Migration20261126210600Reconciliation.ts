import { Migration } from '@mikro-orm/migrations';

/**
 * Reads integrators reconcile with.
 *
 * Each ledger entry records the balance its account had right after the entry was applied
 * (`balance_after`) and when, among all entries, that happened (`applied_seq`): both are set by
 * the statement-level trigger that applies balances, right after it updates the account's
 * balance row — so under that row's lock, in the order balances really changed (entry ids are
 * taken when rows are inserted, before that lock, and do not give that order). Within one
 * statement an account's entries are applied together; they get one `applied_seq` and running
 * balances in entry id order, the last of them the balance the statement left. Entries are
 * still append-only: the only update allowed is this trigger's, setting the two columns once.
 * Entries written before this migration keep both null (no backfill: their application order
 * is not known); an account statement shows them without a balance.
 *
 * Indexes for the lookups: escrows by integrator and reference, an account's invoices by
 * creation and update time, an account's entries in application order.
 */
export class Migration20261126210600Reconciliation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ledger_entry add column balance_after bigint null, add column applied_seq bigint null;`);
    this.addSql(`create sequence ledger_entry_applied_seq;`);
    this.addSql(`create index ledger_entry_account_applied_idx on ledger_entry (ledger_account_id, applied_seq, id);`);
    // The balances are applied as before (one update per account, in account order); each
    // account's sequence value is taken right after its update, under its row lock. One update
    // then sets every applied entry (a scan of the statement's entries, not one per account).
    this.addSql(`
      create or replace function ledger_apply_entries() returns trigger language plpgsql as $$
      declare
        r record;
        accounts varchar[] := '{}';
        seqs bigint[] := '{}';
      begin
        select posting_id, currency into r from inserted group by posting_id, currency having sum(amount) <> 0 limit 1;
        if found then
          raise exception 'ledger posting % does not balance in %', r.posting_id, r.currency using errcode = '23514';
        end if;
        for r in select ledger_account_id, sum(amount) as credit from inserted group by ledger_account_id order by ledger_account_id loop
          update ledger_account set balance = balance + case normal_side when 'debit' then -r.credit else r.credit end
            where id = r.ledger_account_id;
          accounts := accounts || r.ledger_account_id;
          seqs := seqs || nextval('ledger_entry_applied_seq');
        end loop;
        update ledger_entry e
           set applied_seq = v.seq,
               balance_after = v.balance - case v.normal_side when 'debit' then -1 else 1 end * (v.total - v.running)
          from (select i.id, a.balance, a.normal_side, s.seq,
                       sum(i.amount) over (partition by i.ledger_account_id order by i.id) as running,
                       sum(i.amount) over (partition by i.ledger_account_id) as total
                  from inserted i
                  join unnest(accounts, seqs) as s (account, seq) on s.account = i.ledger_account_id
                  join ledger_account a on a.id = i.ledger_account_id) v
         where e.id = v.id;
        return null;
      end $$;`);
    this.addSql(`
      create function ledger_entry_append_only() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and pg_trigger_depth() > 1 and old.applied_seq is null and new.applied_seq is not null
           and new.balance_after is not null
           and (new.id, new.posting_id, new.ledger_account_id, new.currency, new.amount)
               is not distinct from (old.id, old.posting_id, old.ledger_account_id, old.currency, old.amount) then
          return new;
        end if;
        raise exception '% rows are append-only', tg_table_name using errcode = '55000';
      end $$;`);
    this.addSql(`drop trigger ledger_entry_append_only on ledger_entry;`);
    this.addSql(
      `create trigger ledger_entry_append_only before update or delete on ledger_entry for each row execute function ledger_entry_append_only();`,
    );
    this.addSql(`create index escrow_reference_idx on escrow (integrator_id, reference_id, created_at);`);
    this.addSql(`create index invoice_account_created_idx on invoice (account_id, created_at);`);
    this.addSql(`create index invoice_account_updated_idx on invoice (account_id, updated_at);`);
  }
}
