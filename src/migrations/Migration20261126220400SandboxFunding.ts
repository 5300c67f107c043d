import { Migration } from '@mikro-orm/migrations';

/**
 * A ledger account kind for staging: `sandbox_funding`, the integrator's account (one per
 * currency) that `holdfast integrator fund` credits its default wallet from. Like the clearing
 * accounts it stands for money paid in from outside, so it is debit-normal.
 */
export class Migration20261126220400SandboxFunding extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ledger_account drop constraint ledger_account_kind_check;`);
    this.addSql(`
      alter table ledger_account add constraint ledger_account_kind_check
        check (kind in ('user_wallet', 'publisher_wallet', 'escrow_holding', 'card_clearing', 'pobo_clearing', 'token_issuance', 'sandbox_funding'));`);
    // The normal-side check was created unnamed: find it by what it checks. The new one names
    // kind first: MikroORM would read a check that opens with normal_side as an enum of it.
    this.addSql(`
      do $$
      declare name text;
      begin
        select conname into strict name from pg_constraint
         where conrelid = 'ledger_account'::regclass and contype = 'c' and pg_get_constraintdef(oid) like '%normal_side%';
        execute format('alter table ledger_account drop constraint %I', name);
      end $$;`);
    this.addSql(`
      alter table ledger_account add constraint ledger_account_side_by_kind
        check ((case when kind in ('card_clearing', 'pobo_clearing', 'sandbox_funding') then 'debit' else 'credit' end) = normal_side);`);
  }
}
