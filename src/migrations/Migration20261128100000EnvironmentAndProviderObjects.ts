import { Migration } from '@mikro-orm/migrations';

/**
 * The database records its environment (`staging` or `production`), so that a process configured
 * for the other one refuses to serve it: a staging database keeps its demo client and sandbox
 * funds, which production must never serve. A database that already holds a staging artefact (the
 * demo integrator's client, a sandbox funding account, a card — every card so far is a sandbox
 * test card) is recorded as staging here; any other is recorded by the first process that opens
 * it after this migration, as that process's environment.
 *
 * `provider_object`: the snapshot of each provider object Holdfast relies on (a Stripe
 * PaymentIntent or Refund, a PayPal payout item, an identity session), by its provider id, with
 * the Holdfast record it stands behind.
 */
export class Migration20261128100000EnvironmentAndProviderObjects extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table environment (
        only_row boolean primary key default true check (only_row),
        name varchar(16) not null check (name in ('staging', 'production')),
        recorded_at timestamptz not null default now(),
        recorded_by varchar(200) not null
      );`);
    this.addSql(`
      insert into environment (name, recorded_by)
      select 'staging', 'migration: the database already held staging artefacts'
       where exists (select 1 from client c join integrator i on i.id = c.integrator_id where i.name = 'demo')
          or exists (select 1 from ledger_account where kind = 'sandbox_funding')
          or exists (select 1 from payment_method where provider = 'card');`);
    this.addSql(`
      create table provider_object (
        provider varchar(16) not null check (provider in ('stripe', 'paypal')),
        object_id varchar(255) not null,
        object_type varchar(64) not null,
        integrator_id varchar(36) null,
        holdfast_ref varchar(200) not null,
        snapshot jsonb not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        primary key (provider, object_id)
      );`);
    this.addSql(`create index provider_object_ref_idx on provider_object (holdfast_ref);`);
  }
}
