import { Migration } from '@mikro-orm/migrations';

/**
 * Invoices (the record behind every money movement) and escrows. An invoice's line items and
 * payment methods are fixed when it is created and kept as JSON; money moves only through
 * ledger postings whose references name the invoice and the phase.
 */
export class Migration20261126010000Escrow extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table invoice (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        account_id varchar(36) not null references account (id),
        escrow_id varchar(36) null,
        invoice_type varchar(40) not null,
        state varchar(16) not null check (state in ('OPEN', 'PROCESSING', 'SUCCESS', 'FAILED', 'CANCELED')),
        reference_type varchar(100) null,
        reference_id varchar(100) null,
        description varchar(500) null,
        metadata jsonb not null default '{}',
        currency varchar(3) not null,
        total_amount bigint not null check (total_amount > 0),
        failure_reason varchar(100) null,
        payment_methods jsonb not null default '[]',
        line_items jsonb not null default '[]',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index invoice_escrow_idx on invoice (escrow_id);`);
    this.addSql(`
      create table escrow (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        account_id varchar(36) not null references account (id),
        status varchar(16) not null check (status in ('OPEN', 'ESCROWED', 'ESCROW-FAILED', 'COMMITTED', 'CANCELLED')),
        currency varchar(3) not null,
        total_amount bigint not null check (total_amount > 0),
        escrow_invoice_id varchar(36) not null unique,
        commit_invoice_id varchar(36) null unique,
        cancel_invoice_id varchar(36) null unique,
        reference_type varchar(100) null,
        reference_id varchar(100) null,
        description varchar(500) null,
        metadata jsonb not null default '{}',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((status = 'COMMITTED') = (commit_invoice_id is not null)),
        check ((status = 'CANCELLED') = (cancel_invoice_id is not null))
      );`);
    this.addSql(`create index escrow_account_idx on escrow (account_id);`);
    // An escrow and its invoices point at each other: the keys are checked at commit.
    this.addSql(
      `alter table invoice add constraint invoice_escrow_fk foreign key (escrow_id) references escrow (id) deferrable initially deferred;`,
    );
    for (const column of ['escrow_invoice_id', 'commit_invoice_id', 'cancel_invoice_id']) {
      this.addSql(
        `alter table escrow add constraint escrow_${column}_fk foreign key (${column}) references invoice (id) deferrable initially deferred;`,
      );
    }
  }
}
