import { Migration } from '@mikro-orm/migrations';

/**
 * Disputes (chargebacks) of card charges.
 *
 * - `dispute`: one per charged card of one purchase invoice, with what the processor reported
 *   (`reported_amount`, kept when it was more than could be disputed) and where the money is.
 * - Three system accounts per integrator and currency: `dispute_holding` (what the processor
 *   took back while the dispute is open), `dispute_fees` and `dispute_losses`.
 * - An integrator's dispute fee (`dispute_fee`, minor units of the disputed currency).
 * - The one exception to "no account below zero but token issuance": a dispute's opening
 *   posting (reference `dispute:<id>:open`) may take an integrator's default wallet below zero,
 *   because the processor has already taken the money. The check constraint lets a default
 *   wallet be negative; the trigger that applies balances refuses, with the same constraint
 *   name, any statement whose other entries lower a default wallet that ends below zero.
 */
export class Migration20261128190000Disputes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table integrator add column dispute_fee bigint not null default 1500 check (dispute_fee >= 0);`);
    this.addSql(`alter table ledger_account drop constraint ledger_account_kind_check;`);
    this.addSql(`
      alter table ledger_account add constraint ledger_account_kind_check
        check (kind in ('user_wallet', 'publisher_wallet', 'escrow_holding', 'card_clearing', 'pobo_clearing', 'token_issuance',
                        'sandbox_funding', 'payout_holding', 'payout_clearing', 'dispute_holding', 'dispute_fees', 'dispute_losses'));`);
    this.addSql(`alter table ledger_account drop constraint ledger_account_no_overdraft;`);
    this.addSql(
      `alter table ledger_account add constraint ledger_account_no_overdraft check (allow_negative or balance >= 0 or kind = 'publisher_wallet');`,
    );
    this.addSql(`
      create or replace function ledger_apply_entries() returns trigger language plpgsql as $$
      declare
        r record;
        accounts varchar[] := '{}';
        seqs bigint[] := '{}';
        after_balance bigint;
        account_kind varchar;
      begin
        select posting_id, currency into r from inserted group by posting_id, currency having sum(amount) <> 0 limit 1;
        if found then
          raise exception 'ledger posting % does not balance in %', r.posting_id, r.currency using errcode = '23514';
        end if;
        for r in select ledger_account_id, sum(amount) as credit from inserted group by ledger_account_id order by ledger_account_id loop
          update ledger_account set balance = balance + case normal_side when 'debit' then -r.credit else r.credit end
            where id = r.ledger_account_id
            returning balance, kind into after_balance, account_kind;
          -- Only a dispute's opening may take an integrator's default wallet below zero: any
          -- other entries of this statement that lower a wallet left below zero are refused.
          if after_balance < 0 and account_kind = 'publisher_wallet' and r.credit < 0
             and coalesce((select sum(i.amount) from inserted i join ledger_posting p on p.id = i.posting_id
                            where i.ledger_account_id = r.ledger_account_id and p.reference not like 'dispute:%:open'), 0) < 0 then
            raise exception 'new row for relation "ledger_account" violates check constraint "ledger_account_no_overdraft"'
              using errcode = '23514', constraint = 'ledger_account_no_overdraft', table = 'ledger_account';
          end if;
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
      create table dispute (
        id varchar(36) primary key,
        integrator_id varchar(36) not null,
        invoice_id varchar(36) not null,
        payment_method_id varchar(36) not null,
        account_id varchar(36) not null,
        amount bigint not null check (amount >= 0),
        reported_amount bigint not null check (reported_amount >= amount),
        currency varchar(3) not null,
        reason varchar(32) not null check (reason in ('fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'unrecognized', 'general')),
        status varchar(16) not null check (status in ('NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST')),
        evidence_due_by timestamptz not null,
        evidence jsonb not null default '{}',
        evidence_submitted_at timestamptz null,
        fee bigint not null check (fee >= 0),
        funds varchar(16) not null default 'none' check (funds in ('none', 'withdrawn', 'reinstated', 'lost')),
        traced jsonb not null default '[]',
        unrecovered jsonb not null default '{}',
        provider varchar(16) not null check (provider in ('sandbox', 'stripe')),
        provider_dispute_id varchar(255) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        closed_at timestamptz null,
        constraint dispute_provider_once unique (provider_dispute_id),
        constraint dispute_charge_once unique (invoice_id, payment_method_id),
        check ((closed_at is null) = (status in ('NEEDS_RESPONSE', 'UNDER_REVIEW')))
      );`);
    this.addSql('create index dispute_integrator_created_idx on dispute (integrator_id, created_at);');
    this.addSql('create index dispute_account_idx on dispute (account_id);');
    this.addSql(`create index dispute_open_due_idx on dispute (evidence_due_by) where status = 'NEEDS_RESPONSE';`);
    this.addSql(
      `create index payment_method_disputing_idx on payment_method (id) where provider = 'card' and details ->> 'sandbox_outcome' = 'disputed';`,
    );
  }
}
