/**
 * webhook_delivery and webhook_attempt, and the relay's statements over the outbox and the
 * endpoints. Hand-written SQL: the relay claims events with FOR UPDATE SKIP LOCKED and makes
 * their deliveries in one statement, and a busy worker loads and acknowledges deliveries in
 * batches (one statement for many jobs), which the ORM cannot state.
 */
import type { Db } from '../db/sql.js';
import { isoTimestampSql } from '../db/sql.js';
import { joinIntegratorSql } from '../integrators/integrator.repository.js';
import { tenantNowSql } from '../sandbox/sandbox.repository.js';

/** A delivery with what sending it needs. */
export interface DeliveryRecord {
  id: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  event_id: string;
  endpoint_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_valid: boolean;
  endpoint_status: 'enabled' | 'disabled' | 'deleted';
  event_name: string;
  message: unknown;
  event_created: Date;
  integrator: string;
}

/** A delivery to enqueue. */
export interface DeliveryJob {
  deliveryId: string;
  jobId: string;
  /** The W3C traceparent of its event (tracing on, and only from the relay). */
  traceparent?: string;
}

/** Deliveries with their endpoint, event and integrator name. */
export function loadDeliveries(db: Db, ids: string[]): Promise<DeliveryRecord[]> {
  return db.execute<DeliveryRecord[]>(
    `select d.id, d.state, d.attempts, d.event_id, d.endpoint_id, e.url, e.secret, e.previous_secret,
            coalesce(e.previous_secret_expires_at > now(), false) as previous_valid, e.status as endpoint_status,
            o.event_name, o.message, o.created_at as event_created, i.name as integrator
       from webhook_delivery d join webhook_endpoint e on e.id = d.endpoint_id join outbox o on o.id = d.event_id
       ${joinIntegratorSql('i', 'd.integrator_id')}
      where d.id = any (?::varchar[])`,
    [ids],
  );
}

/** Successes, for a batch at once: the attempt, the delivery done, the endpoint healthy. */
export async function recordSuccesses(
  db: Db,
  acks: Array<{ deliveryId: string; endpointId: string; eventId: string; status: number; latencyMs: number }>,
): Promise<void> {
  await db.execute(
    `with v as (
       select * from unnest(?::varchar[], ?::varchar[], ?::varchar[], ?::int[], ?::int[]) as v (delivery_id, endpoint_id, event_id, status, latency)
     ), attempt as (
       insert into webhook_attempt (delivery_id, endpoint_id, event_id, status_code, latency_ms, ok, error)
       select delivery_id, endpoint_id, event_id, status, latency, true, null from v
     ), endpoint as (
       update webhook_endpoint set failing_since = null where id in (select endpoint_id from v) and failing_since is not null
     )
     update webhook_delivery d set attempts = d.attempts + 1, state = 'delivered', last_status = v.status, last_error = null,
            finished_at = now(), updated_at = now()
       from v where d.id = v.delivery_id`,
    [
      acks.map((a) => a.deliveryId),
      acks.map((a) => a.endpointId),
      acks.map((a) => a.eventId),
      acks.map((a) => a.status),
      acks.map((a) => a.latencyMs),
    ],
  );
}

/** Gives a delivery up. */
export async function markDeliveryDead(db: Db, id: string, error?: string): Promise<void> {
  if (error === undefined) await db.execute(`update webhook_delivery set state = 'dead', finished_at = now() where id = ?`, [id]);
  else
    await db.execute(`update webhook_delivery set state = 'dead', last_error = ?, finished_at = now(), updated_at = now() where id = ?`, [
      error,
      id,
    ]);
}

/**
 * Records a failed attempt; returns the delivery's attempts so far, since when its endpoint
 * fails and "now", both on the endpoint's integrator's clock (real time, or its staging test clock).
 */
export async function recordFailure(
  db: Db,
  failure: { deliveryId: string; endpointId: string; eventId: string; status: number | null; latencyMs: number; error: string },
): Promise<{ attempts: number; failingSince: Date; now: Date }> {
  await db.execute(
    `insert into webhook_attempt (delivery_id, endpoint_id, event_id, status_code, latency_ms, ok, error) values (?, ?, ?, ?, ?, false, ?)`,
    [failure.deliveryId, failure.endpointId, failure.eventId, failure.status, failure.latencyMs, failure.error],
  );
  const [row] = await db.execute<Array<{ attempts: number }>>(
    `update webhook_delivery set attempts = attempts + 1, last_status = ?, last_error = ?, updated_at = now() where id = ? returning attempts`,
    [failure.status, failure.error, failure.deliveryId],
  );
  const now = tenantNowSql('webhook_endpoint.integrator_id');
  const [endpoint] = await db.execute<Array<{ failing_since: Date; now: Date }>>(
    `update webhook_endpoint set failing_since = coalesce(failing_since, ${now}) where id = ? returning failing_since, ${now} as now`,
    [failure.endpointId],
  );
  return { attempts: row.attempts, failingSince: new Date(endpoint.failing_since), now: new Date(endpoint.now) };
}

/** Disables an enabled endpoint that has failed since `failing_since`. */
export async function disableFailingEndpoint(db: Db, endpointId: string): Promise<void> {
  await db.execute(
    `update webhook_endpoint set status = 'disabled', disabled_reason = 'failing without a success since ' || ${isoTimestampSql('failing_since')},
            updated_at = now() where id = ? and status = 'enabled'`,
    [endpointId],
  );
}

/** Schedules the next attempt. */
export async function scheduleRetry(db: Db, id: string, delayMs: number): Promise<void> {
  await db.execute(`update webhook_delivery set state = 'pending', next_attempt_at = now() + (? * interval '1 millisecond') where id = ?`, [
    delayMs,
    id,
  ]);
}

/** The relay statement (see `relayEvents`). */
const RELAY_SQL = `with claimed as (
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
          coalesce((select json_agg(json_build_object('id', id, 'job_id', job_id)) from made), '[]') as deliveries`;

/** The relay statement, the deliveries with their event's traceparent (tracing on). */
const RELAY_TRACED_SQL = `with claimed as (
     select id from outbox where relayed_at is null order by created_at, id limit ? for update skip locked
   ), marked as (
     update outbox o set relayed_at = now() from claimed c where o.id = c.id returning o.id, o.integrator_id, o.event_name, o.traceparent
   ), made as (
     insert into webhook_delivery (id, event_id, endpoint_id, integrator_id, state, job_id)
     select 'whd_' || replace(gen_random_uuid()::text, '-', ''), m.id, e.id, m.integrator_id, 'pending', m.id || '.' || e.id
       from marked m join webhook_endpoint e on e.integrator_id = m.integrator_id and e.status = 'enabled' and m.event_name = any (e.events)
     on conflict (event_id, endpoint_id) do nothing
     returning id, job_id, event_id
   )
   select (select count(*) from marked)::int as events,
          coalesce((select json_agg(json_build_object('id', d.id, 'job_id', d.job_id, 'traceparent', m.traceparent)) from made d join marked m on m.id = d.event_id), '[]') as deliveries`;

/**
 * Relays up to `limit` events in one statement: claims unrelayed events (SKIP LOCKED), marks
 * them relayed, and makes one delivery per subscribed enabled endpoint. `withTrace` (tracing
 * on): each delivery comes with its event's traceparent.
 */
export async function relayEvents(db: Db, limit: number, withTrace = false): Promise<{ events: number; deliveries: DeliveryJob[] }> {
  const [row] = await db.execute<Array<{ events: number; deliveries: Array<{ id: string; job_id: string; traceparent?: string | null }> }>>(
    withTrace ? RELAY_TRACED_SQL : RELAY_SQL,
    [limit],
  );
  return {
    events: row.events,
    deliveries: row.deliveries.map((d) =>
      d.traceparent ? { deliveryId: d.id, jobId: d.job_id, traceparent: d.traceparent } : { deliveryId: d.id, jobId: d.job_id },
    ),
  };
}

/**
 * An integrator's retries (pending deliveries already attempted) due by its clock (real time,
 * or its staging test clock): their next attempt lies at or before its "now".
 */
export async function dueRetriesOf(db: Db, integratorId: string): Promise<DeliveryJob[]> {
  const rows = await db.execute<Array<{ id: string; job_id: string }>>(
    `select id, job_id from webhook_delivery
      where integrator_id = ? and state = 'pending' and attempts > 0 and next_attempt_at <= ${tenantNowSql('webhook_delivery.integrator_id')}
      order by next_attempt_at limit 1000`,
    [integratorId],
  );
  return rows.map((r) => ({ deliveryId: r.id, jobId: r.job_id }));
}

/** Pending deliveries due for longer than `graceMs`. */
export async function overdueDeliveries(db: Db, graceMs: number): Promise<DeliveryJob[]> {
  const rows = await db.execute<Array<{ id: string; job_id: string }>>(
    `select id, job_id from webhook_delivery where state = 'pending' and next_attempt_at < now() - (? * interval '1 millisecond')
      order by next_attempt_at limit 1000`,
    [graceMs],
  );
  return rows.map((r) => ({ deliveryId: r.id, jobId: r.job_id }));
}

/** Which deliveries a replay sends again: an event's (to every endpoint, or to one), or an endpoint's events since a time. */
export type ReplayFilter = { eventId: string; endpointId?: string } | { endpointId: string; since: Date };

/**
 * Sends again the finished deliveries of an event (or of an endpoint's events since a time) and
 * makes those it should have had, each under a job id ending in `suffix`.
 */
export async function replayDeliveries(
  db: Db,
  filter: ReplayFilter,
  suffix: string,
): Promise<Array<DeliveryJob & { endpointId: string; integratorId: string }>> {
  const byEvent = 'eventId' in filter;
  const toOne = byEvent && filter.endpointId !== undefined;
  const match = byEvent ? (toOne ? 'o.id = ? and e.id = ?' : 'o.id = ?') : 'e.id = ? and o.created_at >= ?';
  const params = byEvent ? (toOne ? [filter.eventId, filter.endpointId] : [filter.eventId]) : [filter.endpointId, filter.since];
  const reset = await db.execute<Array<{ id: string; job_id: string; endpoint_id: string; integrator_id: string }>>(
    `update webhook_delivery d set state = 'pending', attempts = 0, next_attempt_at = now(), finished_at = null, updated_at = now(),
            job_id = d.event_id || '.' || d.endpoint_id || ?
       from outbox o, webhook_endpoint e
      where o.id = d.event_id and e.id = d.endpoint_id and d.state <> 'pending' and e.status = 'enabled' and ${match}
     returning d.id, d.job_id, d.endpoint_id, d.integrator_id`,
    [suffix, ...params],
  );
  const made = await db.execute<Array<{ id: string; job_id: string; endpoint_id: string; integrator_id: string }>>(
    `insert into webhook_delivery (id, event_id, endpoint_id, integrator_id, state, job_id)
     select 'whd_' || replace(gen_random_uuid()::text, '-', ''), o.id, e.id, o.integrator_id, 'pending', o.id || '.' || e.id || ?
       from outbox o join webhook_endpoint e on e.integrator_id = o.integrator_id and e.status = 'enabled' and o.event_name = any (e.events)
      where ${match}
     on conflict (event_id, endpoint_id) do nothing
     returning id, job_id, endpoint_id, integrator_id`,
    [suffix, ...params],
  );
  return [...reset, ...made].map((d) => ({ deliveryId: d.id, jobId: d.job_id, endpointId: d.endpoint_id, integratorId: d.integrator_id }));
}

/**
 * Drops attempts, finished deliveries and relayed events past `days` (at most `batch` of each
 * per call, `4 × batch` attempts); returns how many. Each statement takes its batch oldest first
 * by an index (`webhook_attempt_attempted_idx`, `webhook_delivery_finished_idx`,
 * `outbox_relayed_idx`) and deletes it by key (`= any (array(…))`, an index lookup per row, never
 * a join over the whole table), so a call costs its batch, not the table. An attempt is never
 * later than its delivery's finish (a replay clears `finished_at`), so a delivery past the
 * retention has only attempts past it: those go first, oldest first, and the delivery once it
 * has none left. An event goes once no delivery needs it; those still needed (a replay's
 * delivery, finished later) are skipped, never waited on.
 */
export async function purgeHistory(db: Db, days: number, batch: number): Promise<number> {
  const [attempts] = await db.execute<Array<{ n: number }>>(PURGE_ATTEMPTS_SQL, [days, batch * 4]);
  const [deliveries] = await db.execute<Array<{ n: number }>>(PURGE_DELIVERIES_SQL, [days, batch]);
  const [events] = await db.execute<Array<{ n: number }>>(PURGE_EVENTS_SQL, [days, batch]);
  return (attempts?.n ?? 0) + (deliveries?.n ?? 0) + (events?.n ?? 0);
}

const PURGE_ATTEMPTS_SQL = `with gone as (
       delete from webhook_attempt where id = any (array(
         select id from webhook_attempt where attempted_at < now() - (? * interval '1 day') order by attempted_at limit ?))
       returning 1
     ) select count(*)::int as n from gone`;

// The batch is locked as it is taken (a row a replay just made pending is left, and rows another
// purge holds are skipped), so nothing changes it before the delete.
const PURGE_DELIVERIES_SQL = `with gone as (
       delete from webhook_delivery d where d.id = any (array(
         select id from webhook_delivery where state <> 'pending' and finished_at < now() - (? * interval '1 day') order by finished_at limit ?
         for update skip locked))
         and not exists (select 1 from webhook_attempt a where a.delivery_id = d.id)
       returning 1
     ) select count(*)::int as n from gone`;

const PURGE_EVENTS_SQL = `with gone as (
       delete from outbox o where o.id = any (array(
         select x.id from outbox x where x.relayed_at < now() - (? * interval '1 day')
            and not exists (select 1 from webhook_delivery d where d.event_id = x.id)
          order by x.relayed_at limit ?))
       returning 1
     ) select count(*)::int as n from gone`;

/** How old the oldest unrelayed event is, in seconds (0 when none wait). */
export async function outboxLagSeconds(db: Db): Promise<number> {
  const [row] = await db.execute<Array<{ lag: number | null }>>(
    `select extract(epoch from now() - min(created_at))::float8 as lag from outbox where relayed_at is null`,
  );
  return Math.max(0, row?.lag ?? 0);
}

/** A delivery of an event, as the events API shows it. */
export interface EventDeliveryRecord {
  id: string;
  endpoint_id: string;
  state: 'pending' | 'delivered' | 'dead';
  next_attempt_at: Date;
  created_at: Date;
  finished_at: Date | null;
  attempts: Array<{ attempted_at: string; status_code: number | null; latency_ms: number; ok: boolean; error: string | null }>;
}

/** An event's deliveries, oldest first, each with its attempts (oldest first). */
export function eventDeliveries(db: Db, eventId: string): Promise<EventDeliveryRecord[]> {
  return db.execute<EventDeliveryRecord[]>(
    `select d.id, d.endpoint_id, d.state, d.next_attempt_at, d.created_at, d.finished_at,
            coalesce((select json_agg(json_build_object('attempted_at', ${isoTimestampSql('a.attempted_at')}, 'status_code', a.status_code,
                                                        'latency_ms', a.latency_ms, 'ok', a.ok, 'error', a.error)
                                      order by a.attempted_at, a.id)
                        from webhook_attempt a where a.delivery_id = d.id), '[]') as attempts
       from webhook_delivery d
      where d.event_id = ?
      order by d.created_at, d.id`,
    [eventId],
  );
}

/** A delivery as the console's webhooks page shows it: its event, where it stands, and its last answer. */
export interface EndpointDeliveryRecord {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_name: string;
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  next_attempt_at: Date;
  created_at: Date;
  finished_at: Date | null;
}

/** Which deliveries failed: given up (dead), or pending after a failed attempt (retrying). `webhook_delivery_failed_idx`'s predicate. */
const FAILED_SQL = "(x.state = 'dead' or (x.state = 'pending' and x.attempts > 0))";

/**
 * The latest deliveries of each of the integrator's endpoints (not deleted), `perEndpoint` of
 * each, newest first; with `failedOnly`, only those that failed. Ordered by endpoint (oldest
 * first), then newest first. One bounded walk per endpoint, by `webhook_delivery_endpoint_idx`
 * (or `webhook_delivery_failed_idx`, which holds the failed ones alone).
 */
export function latestDeliveries(
  db: Db,
  integratorId: string,
  opts: { perEndpoint: number; failedOnly: boolean },
): Promise<EndpointDeliveryRecord[]> {
  return db.execute<EndpointDeliveryRecord[]>(latestDeliveriesSql(opts.failedOnly), [opts.perEndpoint, integratorId]);
}

/** `latestDeliveries`' statement (exported for the plan test). */
export function latestDeliveriesSql(failedOnly: boolean): string {
  return `select d.id, d.endpoint_id, d.event_id, o.event_name, d.state, d.attempts, d.last_status, d.last_error, d.next_attempt_at,
            d.created_at, d.finished_at
       from webhook_endpoint e
       cross join lateral (
         select x.id, x.endpoint_id, x.event_id, x.state, x.attempts, x.last_status, x.last_error, x.next_attempt_at, x.created_at,
                x.finished_at
           from webhook_delivery x
          where x.endpoint_id = e.id${failedOnly ? ` and ${FAILED_SQL}` : ''}
          order by x.created_at desc, x.id desc limit ?) d
       join outbox o on o.id = d.event_id
      where e.integrator_id = ? and e.status <> 'deleted'
      order by e.created_at, e.id, d.created_at desc, d.id desc`;
}
