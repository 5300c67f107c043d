import { Migration } from '@mikro-orm/migrations';

/** Integrators, clients, accounts, payment methods, ToS, outbox and idempotency keys. */
export class Migration20261125000000Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table integrator (
        id varchar(36) primary key,
        name varchar(100) not null unique,
        token_currency varchar(3) null check (token_currency ~ '^[A-Z]{3}$'),
        tokens_per_usd bigint null check (tokens_per_usd > 0),
        created_at timestamptz not null default now(),
        check ((token_currency is null) = (tokens_per_usd is null))
      );`);
    this.addSql(`
      create table client (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        secret_hash varchar(64) not null,
        scopes text[] not null default '{}',
        is_operator boolean not null default false,
        can_unblock boolean not null default false,
        tos_signing boolean not null default false,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`create index client_integrator_idx on client (integrator_id);`);
    this.addSql(`
      create table signing_key (
        id varchar(36) primary key,
        secret varchar(128) not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table account (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        username varchar(64) not null,
        email_id varchar(36) null,
        email_address varchar(254) null,
        email_verified boolean not null default false,
        full_name varchar(200) null,
        street_address_1 varchar(200) null,
        street_address_2 varchar(200) null,
        street_address_3 varchar(200) null,
        city varchar(100) null,
        state_province varchar(100) null,
        country_iso varchar(2) null,
        zip_postal_code varchar(20) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((state_province is null) = (country_iso is null))
      );`);
    this.addSql(`create unique index account_username_unique on account (integrator_id, lower(username));`);
    this.addSql(
      `create unique index account_email_unique on account (integrator_id, lower(email_address)) where email_address is not null;`,
    );
    this.addSql(`
      create table account_external_platform (
        account_id varchar(36) not null references account (id),
        platform varchar(16) not null,
        user_id varchar(128) not null,
        integrator_id varchar(36) not null,
        created_at timestamptz not null default now(),
        primary key (account_id, platform)
      );`);
    this.addSql(`create unique index account_external_platform_unique on account_external_platform (integrator_id, platform, user_id);`);
    this.addSql(`
      create table payment_method (
        id varchar(36) primary key,
        account_id varchar(36) not null references account (id),
        integrator_id varchar(36) not null,
        provider varchar(16) not null check (provider in ('wallet', 'pobo', 'card')),
        method_class varchar(32) not null,
        wallet_kind varchar(16) null check (wallet_kind in ('standard', 'convertible')),
        processing_currency varchar(3) not null,
        display_string varchar(200) not null,
        pm_state varchar(16) not null default 'active',
        psp_reference varchar(64) null,
        psp_hash_code varchar(64) null,
        details jsonb not null default '{}',
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index payment_method_account_idx on payment_method (account_id);`);
    this.addSql(
      `create unique index payment_method_wallet_unique on payment_method (account_id, processing_currency, coalesce(wallet_kind, '')) where provider = 'wallet';`,
    );
    this.addSql(`
      create table tos_version (
        version serial primary key,
        content text not null,
        created_at timestamptz not null default now()
      );`);
    this.addSql(`
      create table tos_signature (
        account_id varchar(36) not null references account (id),
        version integer not null references tos_version (version),
        signed_at timestamptz not null default now(),
        primary key (account_id, version)
      );`);
    this.addSql(`
      insert into tos_version (content) values (
        'Holdfast terms of service, version 1. By signing, the account holder agrees that purchases, '
        'escrowed funds and virtual token balances are governed by the publisher''s terms and by these terms.'
      );`);
    this.addSql(`
      create table outbox (
        id varchar(36) primary key,
        integrator_id varchar(36) not null,
        event_name varchar(64) not null,
        message jsonb not null,
        created_at timestamptz not null default now(),
        relayed_at timestamptz null
      );`);
    this.addSql(`create index outbox_pending_idx on outbox (created_at) where relayed_at is null;`);
    this.addSql(`
      create table idempotency_key (
        client_id varchar(36) not null,
        key varchar(255) not null,
        request_hash varchar(64) not null,
        state varchar(16) not null check (state in ('running', 'done')),
        response_status integer null,
        response_body jsonb null,
        created_at timestamptz not null default now(),
        primary key (client_id, key)
      );`);
    this.addSql(`create index idempotency_key_created_idx on idempotency_key (created_at);`);
  }
}
