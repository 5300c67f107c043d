import { Migration } from '@mikro-orm/migrations';

/**
 * Token conversion: each exchange of convertible tokens for USD (`token_exchange`), quoted
 * OPEN, then EXECUTED (or EXPIRED), and REVERSED when a payout that took its money is reversed
 * (`payout_id` names that payout).
 */
export class Migration20261127000100TokenExchange extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table token_exchange (
        id varchar(36) primary key,
        integrator_id varchar(36) not null,
        account_id varchar(36) not null,
        status varchar(16) not null check (status in ('OPEN', 'EXECUTED', 'EXPIRED', 'REVERSED')),
        token_amount bigint not null check (token_amount > 0),
        token_currency varchar(3) not null,
        fiat_amount bigint not null check (fiat_amount > 0),
        fiat_currency varchar(3) not null,
        fee_amount bigint not null check (fee_amount >= 0 and fee_amount <= fiat_amount),
        expires_at timestamptz not null,
        payout_id varchar(36) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create index token_exchange_account_idx on token_exchange (account_id);');
  }
}
