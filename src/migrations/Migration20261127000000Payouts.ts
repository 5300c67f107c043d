import { Migration } from '@mikro-orm/migrations';

/** Payouts: each request's state and the methods it moves money between. */
export class Migration20261127000000Payouts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table payout (
        id varchar(36) primary key,
        integrator_id varchar(36) not null,
        account_id varchar(36) not null,
        status varchar(20) not null check (status in ('FUNDS-IN-ESCROW', 'SUCCESS', 'FAILED', 'USER-REVERSED', 'SUPPORT-REVERSED')),
        amount bigint not null check (amount > 0),
        currency varchar(3) not null,
        source_payment_method_id varchar(36) not null,
        destination_payment_method_id varchar(36) not null,
        token_exchange_id varchar(36) null,
        failure_code varchar(64) null,
        failure_reason varchar(200) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql('create index payout_account_created_idx on payout (account_id, created_at);');
  }
}
