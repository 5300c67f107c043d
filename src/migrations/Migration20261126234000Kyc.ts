import { Migration } from '@mikro-orm/migrations';

/**
 * KYC: each account's identity check (`kyc_check`, its state only) and the personal data
 * submitted for it, kept in a table of its own (`kyc_personal_data`) that no endpoint reads.
 */
export class Migration20261126234000Kyc extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table kyc_check (
        account_id varchar(36) primary key,
        integrator_id varchar(36) not null,
        kyc_id varchar(36) not null,
        state varchar(16) not null check (state in ('NODATA', 'PROCESSING', 'MANUAL_REVIEW', 'ACCEPT', 'DENY', 'CANCEL')),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        constraint kyc_check_kyc_id_unique unique (kyc_id)
      );`);
    this.addSql(`
      create table kyc_personal_data (
        kyc_id varchar(36) primary key,
        first_name varchar(100) not null,
        last_name varchar(100) not null,
        date_of_birth date not null,
        address varchar(300) not null,
        country varchar(2) not null,
        submitted_at timestamptz not null default now()
      );`);
  }
}
