import { Migration } from '@mikro-orm/migrations';

/**
 * Holds: money a dispute traced into a wallet cannot be spent while the dispute is open.
 *
 * - `ledger_account.held`: what is held on the account. The no-overdraft rule becomes "balance
 *   at least what is held", so every way money leaves a wallet — an escrow pay, an invoice pay,
 *   a conversion, a payout, a merge — is refused by the database when it would spend held money,
 *   whatever checks its own code made first.
 * - `dispute_hold`: where each dispute traced its value (the wallet, how the value got there and
 *   through what; still in the wallet, paid out, or waiting in an escrow or a payout), and what
 *   of it is held, was released or was clawed back. Replaces the dispute's `traced` column.
 */
export class Migration20261128195000DisputeHolds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table ledger_account add column held bigint not null default 0 check (held >= 0);`);
    this.addSql(`alter table ledger_account drop constraint ledger_account_no_overdraft;`);
    this.addSql(
      `alter table ledger_account add constraint ledger_account_no_overdraft check (allow_negative or kind = 'publisher_wallet' or balance >= held);`,
    );
    this.addSql(`alter table dispute drop column traced;`);
    this.addSql(`
      create table dispute_hold (
        id varchar(36) primary key,
        dispute_id varchar(36) not null,
        integrator_id varchar(36) not null,
        account_id varchar(36) not null,
        wallet_id varchar(36) null,
        currency varchar(3) not null,
        amount bigint not null check (amount >= 0),
        held bigint not null default 0 check (held >= 0),
        released bigint not null default 0 check (released >= 0),
        clawed_back bigint not null default 0 check (clawed_back >= 0),
        via varchar(16) not null check (via in ('purchase', 'escrow', 'conversion', 'payout')),
        reference_id varchar(64) not null,
        state varchar(16) not null check (state in ('in_wallet', 'paid_out', 'escrowed', 'payout_waiting')),
        created_at timestamptz not null default now(),
        check (held + released + clawed_back <= amount)
      );`);
    this.addSql('create index dispute_hold_dispute_idx on dispute_hold (dispute_id);');
    this.addSql('create index dispute_hold_wallet_idx on dispute_hold (wallet_id) where held > 0;');
    this.addSql(`create index dispute_hold_escrowed_idx on dispute_hold (reference_id) where state = 'escrowed';`);
  }
}
