/**
 * The outbox relay and the delivery sweeper (DESIGN §1 Outbox). The relay claims unrelayed
 * events with `FOR UPDATE SKIP LOCKED` (several worker processes may relay at once) and, in the
 * same transaction (one statement), writes one delivery row per subscribed enabled endpoint and
 * marks the events relayed; jobs are enqueued after the commit. A crash between the two leaves pending
 * rows without jobs, which the sweeper re-enqueues: the rows, not Redis, are the truth.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTransaction, autocommit } from '../db/sql.js';

export interface NewDelivery {
  deliveryId: string;
  jobId: string;
}

/**
 * Relays up to `limit` events in one statement (its own transaction): claim unrelayed events
 * (SKIP LOCKED), mark them relayed, and make their deliveries. Returns the deliveries made, to
 * enqueue once committed.
 */
export async function relayOutbox(em: EntityManager, limit = 500): Promise<{ events: number; deliveries: NewDelivery[] }> {
  const [row] = await autocommit(em).execute<Array<{ events: number; deliveries: Array<{ id: string; job_id: string }> }>>(
    `with claimed as (
       select id from outbox where relayed_at is null order by created_at, id limit ? for update skip locked
     ), marked as (
       update outbox o set relayed_at = now() from claimed c where o.id = c.id returning o.id, o.integrator_id, o.event_name
     ), made as (
       insert into webhook_delivery (id, event_id, endpoint_id, integrator_id, state, job_id)
       select 'whd_' || replace(gen_random_uuid()::text, '-', ''), m.id, e.id, m.integrator_id, 'pending', m.id || '.' || e.id
         from marked m join webhook_endpoint e on e.integrator_id = m.integrator_id and e.status = 'enabled' and m.event_name = any (e.events)
       on conflict (event_id, endpoint_id) do nothing
       returning id, job_id
     )
     select (select count(*) from marked)::int as events,
            coalesce((select json_agg(json_build_object('id', id, 'job_id', job_id)) from made), '[]') as deliveries`, [limit]);
  return { events: row.events, deliveries: row.deliveries.map((d) => ({ deliveryId: d.id, jobId: d.job_id })) };
}

/** Pending deliveries due for longer than `graceMs` (their job may be lost). */
export async function overdueDeliveries(em: EntityManager, graceMs: number): Promise<NewDelivery[]> {
  const rows = await autocommit(em).execute<Array<{ id: string; job_id: string }>>(
    `select id, job_id from webhook_delivery where state = 'pending' and next_attempt_at < now() - (? * interval '1 millisecond')
      order by next_attempt_at limit 1000`, [graceMs]);
  return rows.map((r) => ({ deliveryId: r.id, jobId: r.job_id }));
}

/** How old the oldest unrelayed event is, in seconds (0 when none wait): the relay's lag. */
export async function outboxLagSeconds(em: EntityManager): Promise<number> {
  const [row] = await autocommit(em).execute<Array<{ lag: number | null }>>(
    `select extract(epoch from now() - min(created_at))::float8 as lag from outbox where relayed_at is null`);
  return Math.max(0, row?.lag ?? 0);
}

/**
 * `holdfast webhooks replay`: sends again every finished (delivered or dead) delivery of an
 * event, or of an endpoint's events since a time — and makes the deliveries such an event should
 * have had but never got (an endpoint added or disabled meanwhile). Each starts a fresh retry
 * schedule under a new job id; deliveries still pending are left to run.
 */
export async function replayDeliveries(em: EntityManager, filter: { eventId: string } | { endpointId: string; since: Date }): Promise<NewDelivery[]> {
  return inTransaction(em, async (db) => {
    const byEvent = 'eventId' in filter;
    const match = byEvent ? 'o.id = ?' : 'e.id = ? and o.created_at >= ?';
    const params = byEvent ? [filter.eventId] : [filter.endpointId, filter.since];
    const suffix = `.r${Date.now()}`;
    const reset = await db.execute<Array<{ id: string; job_id: string }>>(
      `update webhook_delivery d set state = 'pending', attempts = 0, next_attempt_at = now(), finished_at = null, updated_at = now(),
              job_id = d.event_id || '.' || d.endpoint_id || ?
         from outbox o, webhook_endpoint e
        where o.id = d.event_id and e.id = d.endpoint_id and d.state <> 'pending' and e.status = 'enabled' and ${match}
       returning d.id, d.job_id`, [suffix, ...params]);
    const made = await db.execute<Array<{ id: string; job_id: string }>>(
      `insert into webhook_delivery (id, event_id, endpoint_id, integrator_id, state, job_id)
       select 'whd_' || replace(gen_random_uuid()::text, '-', ''), o.id, e.id, o.integrator_id, 'pending', o.id || '.' || e.id || ?
         from outbox o join webhook_endpoint e on e.integrator_id = o.integrator_id and e.status = 'enabled' and o.event_name = any (e.events)
        where ${match}
       on conflict (event_id, endpoint_id) do nothing
       returning id, job_id`, [suffix, ...params]);
    return [...reset, ...made].map((d) => ({ deliveryId: d.id, jobId: d.job_id }));
  });
}

/** How long delivered and dead deliveries, their attempts and relayed events are kept. */
export const WEBHOOK_RETENTION_DAYS = 30;

/**
 * Drops webhook history past the retention (at most `batch` rows of each kind per call, so a
 * backlog is worked off without long locks): attempts, finished deliveries, then relayed events
 * that no delivery still needs. Pending deliveries and their events are never touched.
 */
export async function purgeWebhookHistory(em: EntityManager, days = WEBHOOK_RETENTION_DAYS, batch = 10_000): Promise<number> {
  const db = autocommit(em);
  const [row] = await db.execute<Array<{ attempts: number }>>(
    `with old_deliveries as (
       select id from webhook_delivery where state <> 'pending' and finished_at < now() - (? * interval '1 day') limit ?
     ), attempts as (
       delete from webhook_attempt a where a.ctid in (
         select ctid from webhook_attempt where attempted_at < now() - (? * interval '1 day') or delivery_id in (select id from old_deliveries) limit ?)
       returning 1
     )
     select (select count(*) from attempts)::int as attempts`, [days, batch, days, batch * 4]);
  const [deliveries] = await db.execute<Array<{ n: number }>>(
    `with gone as (
       delete from webhook_delivery d where d.id in (
         select id from webhook_delivery where state <> 'pending' and finished_at < now() - (? * interval '1 day') limit ?)
         and not exists (select 1 from webhook_attempt a where a.delivery_id = d.id)
       returning 1
     ) select count(*)::int as n from gone`, [days, batch]);
  const [events] = await db.execute<Array<{ n: number }>>(
    `with gone as (
       delete from outbox o where o.id in (
         select id from outbox where relayed_at < now() - (? * interval '1 day') limit ?)
         and not exists (select 1 from webhook_delivery d where d.event_id = o.id)
       returning 1
     ) select count(*)::int as n from gone`, [days, batch]);
  return row.attempts + deliveries.n + events.n;
}
