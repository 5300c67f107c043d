import { Migration } from '@mikro-orm/migrations';

/**
 * The double-entry ledger. Entry amounts are signed credits (+ credit, − debit) and every
 * posting sums to zero per currency. Wallets, escrow holding, publisher wallets and token
 * issuance are credit-normal (balance = credits − debits); the sandbox card and POBO clearing
 * accounts are debit-normal (what the outside world has paid in, net of refunds). Invariants
 * live in the database, not only in code: balances are kept by a trigger from the entries and
 * may not go below zero (except an integrator's token issuance account), every posting
 * balances per currency (checked at commit), entries and postings are append-only, and each
 * posting's reference is unique (a retry cannot post twice).
 */
export class Migration20261126000000Ledger extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table ledger_account (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        kind varchar(32) not null check (kind in ('user_wallet', 'publisher_wallet', 'escrow_holding', 'card_clearing', 'pobo_clearing', 'token_issuance')),
        currency varchar(3) not null check (currency ~ '^[A-Z]{3}$'),
        normal_side varchar(6) not null,
        payment_method_id varchar(36) null unique references payment_method (id),
        allow_negative boolean not null default false,
        balance bigint not null default 0,
        created_at timestamptz not null default now(),
        unique (id, currency),
        check (allow_negative = (kind = 'token_issuance')),
        check (normal_side = case when kind in ('card_clearing', 'pobo_clearing') then 'debit' else 'credit' end),
        check ((kind = 'user_wallet') = (payment_method_id is not null)),
        constraint ledger_account_no_overdraft check (allow_negative or balance >= 0)
      );`);
    this.addSql(
      `create unique index ledger_account_system_unique on ledger_account (integrator_id, kind, currency) where kind <> 'user_wallet';`,
    );
    this.addSql(`
      create table ledger_posting (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        reference varchar(200) not null unique,
        description varchar(200) not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table ledger_entry (
        id bigserial primary key,
        posting_id varchar(36) not null references ledger_posting (id),
        ledger_account_id varchar(36) not null,
        currency varchar(3) not null,
        amount bigint not null check (amount <> 0),
        foreign key (ledger_account_id, currency) references ledger_account (id, currency)
      );`);
    this.addSql(`create index ledger_entry_posting_idx on ledger_entry (posting_id);`);
    this.addSql(`create index ledger_entry_account_idx on ledger_entry (ledger_account_id);`);
    this.addSql(`
      create function ledger_apply_entry() returns trigger language plpgsql as $$
      begin
        update ledger_account set balance = balance + case normal_side when 'debit' then -new.amount else new.amount end
          where id = new.ledger_account_id;
        return new;
      end $$;`);
    this.addSql(`create trigger ledger_entry_apply after insert on ledger_entry for each row execute function ledger_apply_entry();`);
    this.addSql(`
      create function ledger_check_posting_balanced() returns trigger language plpgsql as $$
      declare unbalanced text;
      begin
        select currency into unbalanced from ledger_entry where posting_id = new.posting_id
          group by currency having sum(amount) <> 0 limit 1;
        if unbalanced is not null then
          raise exception 'ledger posting % does not balance in %', new.posting_id, unbalanced using errcode = '23514';
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create constraint trigger ledger_entry_balanced after insert on ledger_entry
        deferrable initially deferred for each row execute function ledger_check_posting_balanced();`);
    this.addSql(`
      create function ledger_append_only() returns trigger language plpgsql as $$
      begin
        raise exception '% rows are append-only', tg_table_name using errcode = '55000';
      end $$;`);
    this.addSql(
      `create trigger ledger_entry_append_only before update or delete on ledger_entry for each row execute function ledger_append_only();`,
    );
    this.addSql(
      `create trigger ledger_posting_append_only before update or delete on ledger_posting for each row execute function ledger_append_only();`,
    );
    // Every wallet payment method gets its ledger account; the wallet id is derived from the
    // payment method's ULID (pm_X → wal_X).
    this.addSql(`
      insert into ledger_account (id, integrator_id, kind, currency, normal_side, payment_method_id)
      select 'wal_' || substring(id from 4), integrator_id, 'user_wallet', processing_currency, 'credit', id
        from payment_method where provider = 'wallet';`);
  }
}
