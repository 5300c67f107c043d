import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints, one delivery row per (event, endpoint) and the attempts made for it.
 * A delivery is `pending` until its endpoint acknowledges it (`delivered`) or it is given up
 * (`dead`); the row, not the BullMQ job, is the truth, so a lost job is re-enqueued by the
 * sweeper. An insert into the outbox notifies the relay (LISTEN holdfast_outbox).
 */
export class Migration20261126050000Webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table webhook_endpoint (
        id varchar(36) primary key,
        integrator_id varchar(36) not null references integrator (id),
        url varchar(2048) not null,
        events text[] not null,
        description varchar(500) null,
        secret varchar(100) not null,
        previous_secret varchar(100) null,
        previous_secret_expires_at timestamptz null,
        status varchar(16) not null check (status in ('enabled', 'disabled', 'deleted')),
        disabled_reason varchar(200) null,
        failing_since timestamptz null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );`);
    this.addSql(`create index webhook_endpoint_integrator_idx on webhook_endpoint (integrator_id) where status <> 'deleted';`);
    this.addSql(`
      create table webhook_delivery (
        id varchar(36) primary key,
        event_id varchar(36) not null references outbox (id),
        endpoint_id varchar(36) not null references webhook_endpoint (id),
        integrator_id varchar(36) not null,
        state varchar(16) not null check (state in ('pending', 'delivered', 'dead')),
        attempts integer not null default 0,
        next_attempt_at timestamptz not null default now(),
        job_id varchar(120) not null,
        last_status integer null,
        last_error varchar(500) null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        finished_at timestamptz null,
        unique (event_id, endpoint_id)
      );`);
    this.addSql(`create index webhook_delivery_pending_idx on webhook_delivery (next_attempt_at) where state = 'pending';`);
    this.addSql(`create index webhook_delivery_endpoint_idx on webhook_delivery (endpoint_id, created_at);`);
    this.addSql(`
      create table webhook_attempt (
        id bigserial primary key,
        delivery_id varchar(36) not null references webhook_delivery (id),
        endpoint_id varchar(36) not null,
        event_id varchar(36) not null,
        attempted_at timestamptz not null default now(),
        status_code integer null,
        latency_ms integer not null,
        ok boolean not null,
        error varchar(500) null
      );`);
    this.addSql(`create index webhook_attempt_endpoint_idx on webhook_attempt (endpoint_id, attempted_at desc);`);
    this.addSql(`
      create function outbox_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('holdfast_outbox', '');
        return null;
      end $$;`);
    this.addSql(`create trigger outbox_notify after insert on outbox for each statement execute function outbox_notify();`);
  }
}
