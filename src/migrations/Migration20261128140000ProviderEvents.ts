import { Migration } from '@mikro-orm/migrations';

/**
 * Provider webhooks in: each event a provider (Stripe, PayPal) sent, once per (provider, its
 * event id), with what the worker made of it. A provider event's command belongs to no
 * integrator, so a command's integrator becomes optional (every other kind still names one).
 */
export class Migration20261128140000ProviderEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table provider_event (
        id varchar(36) primary key,
        provider varchar(16) not null check (provider in ('stripe', 'paypal')),
        provider_event_id varchar(255) not null,
        type varchar(255) not null,
        payload jsonb not null,
        received_at timestamptz not null default now(),
        command_id varchar(36) null,
        outcome varchar(16) null check (outcome in ('applied', 'ignored', 'failed')),
        outcome_reason varchar(500) null,
        outcome_at timestamptz null,
        constraint provider_event_once unique (provider, provider_event_id),
        check ((outcome is null) = (outcome_at is null))
      );`);
    this.addSql('create index provider_event_received_idx on provider_event (received_at);');
    this.addSql('alter table command alter column integrator_id drop not null;');
  }
}
