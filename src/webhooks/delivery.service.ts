/**
 * One webhook delivery attempt (DESIGN §4 Webhooks): the signed body goes to the endpoint with
 * got (10 s timeout, no redirects, response body capped); any 2xx acknowledges. Every attempt
 * is recorded; the delivery row says what happens next: delivered, retried later, or given up
 * (dead-lettered). An endpoint failing without a success for `disableAfterMs` is disabled.
 * Without private targets allowed, every address a name resolves to is checked before any
 * connection (no SSRF into the operator's network, no DNS rebinding between check and use).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import got from 'got';
import { autocommit, inTransaction, isoTimestampSql } from '../db/sql.js';
import { batched } from '../db/batch.js';
import { deliveryBody, isPrivateAddress, retryDelayMs, shouldDisable, signatureHeader } from './webhook.rules.js';

export interface DeliveryPolicy {
  allowPrivateTargets: boolean;
  maxAttempts: number;
  retryBaseMs: number;
  disableAfterMs: number;
}

export type AttemptOutcome =
  | { outcome: 'delivered'; status: number }
  | { outcome: 'retry'; delayMs: number; error: string }
  | { outcome: 'dead'; error: string }
  | { outcome: 'skipped' };

const TIMEOUT_MS = 10_000;
const RESPONSE_CAP_BYTES = 64 * 1024;
const USER_AGENT = 'Holdfast-Webhooks/1.0 (+https://github.com/holdfast)';

class PrivateTargetError extends Error {}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `dns.lookup` that refuses names resolving to a private address (every address is checked). */
function publicOnlyLookup(hostname: string, options: { all?: boolean } | number | LookupCallback, callback?: LookupCallback): void {
  const cb = (typeof options === 'function' ? options : callback)!;
  const opts = typeof options === 'object' ? options : {};
  dnsLookup(hostname, { all: true }, (err, addresses) => {
    if (err) return cb(err, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return cb(new PrivateTargetError(`${hostname} resolves to a private address`) as NodeJS.ErrnoException, []);
    if (opts.all) return cb(null, addresses);
    cb(null, addresses[0].address, addresses[0].family);
  });
}

/** Sends one request; never throws. */
export async function send(url: string, body: string, headers: Record<string, string>, allowPrivate: boolean):
  Promise<{ status: number | null; error: string | null; latencyMs: number }> {
  const started = performance.now();
  const done = (status: number | null, error: string | null) => ({ status, error, latencyMs: Math.round(performance.now() - started) });
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return done(null, 'invalid URL');
  }
  if (!allowPrivate && (isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost'))) {
    return done(null, 'refused: private target');
  }
  return new Promise((resolve) => {
    let status: number | null = null;
    let received = 0;
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      resolve(done(status, error));
    };
    const stream = got.stream.post(url, {
      body,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      timeout: { request: TIMEOUT_MS },
      followRedirect: false,
      retry: { limit: 0 },
      throwHttpErrors: false,
      ...(allowPrivate ? {} : { dnsLookup: publicOnlyLookup as never }),
    });
    stream.on('response', (res: { statusCode: number }) => {
      status = res.statusCode;
    });
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // Only the status matters: a receiver that answers at length is cut off.
      if (received > RESPONSE_CAP_BYTES) {
        stream.destroy();
        finish(null);
      }
    });
    stream.on('end', () => finish(null));
    stream.on('error', (err: Error & { code?: string }) => {
      const cause = (err as { cause?: unknown }).cause;
      if (err instanceof PrivateTargetError || cause instanceof PrivateTargetError) return finish('refused: private target');
      finish(status !== null ? null : `${err.code ?? 'ERROR'}: ${err.message}`.slice(0, 300));
    });
  });
}

interface Loaded {
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

/**
 * The attempt maker of one worker process: loads deliveries and records successes in batches
 * (group commit: concurrent jobs share one statement), so a busy worker spends its time
 * sending, not waiting on PostgreSQL.
 */
export function deliveryAttempts(em: EntityManager, policy: DeliveryPolicy): (deliveryId: string) => Promise<AttemptOutcome> {
  const db = autocommit(em);
  const load = batched<string, Loaded | undefined>(async (ids) => {
    const rows = await db.execute<Array<Loaded & { id: string }>>(
      `select d.id, d.state, d.attempts, d.event_id, d.endpoint_id, e.url, e.secret, e.previous_secret,
              coalesce(e.previous_secret_expires_at > now(), false) as previous_valid, e.status as endpoint_status,
              o.event_name, o.message, o.created_at as event_created, i.name as integrator
         from webhook_delivery d join webhook_endpoint e on e.id = d.endpoint_id join outbox o on o.id = d.event_id
         join integrator i on i.id = d.integrator_id
        where d.id = any (?::varchar[])`, [ids]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  });
  // A success: the attempt, the delivery done, the endpoint healthy — for a whole batch at once.
  const delivered = batched<{ deliveryId: string; endpointId: string; eventId: string; status: number; latencyMs: number }, void>(async (acks) => {
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
      [acks.map((a) => a.deliveryId), acks.map((a) => a.endpointId), acks.map((a) => a.eventId), acks.map((a) => a.status), acks.map((a) => a.latencyMs)]);
    return acks.map(() => undefined);
  });
  return (deliveryId) => attempt(em, deliveryId, policy, load, delivered);
}

/**
 * Makes one attempt of a delivery and records it. A dead delivery run again (the dashboard's
 * retry) is sent once more; a delivered one is left alone.
 */
async function attempt(
  em: EntityManager, deliveryId: string, policy: DeliveryPolicy,
  load: (id: string) => Promise<Loaded | undefined>,
  delivered: (ack: { deliveryId: string; endpointId: string; eventId: string; status: number; latencyMs: number }) => Promise<void>,
): Promise<AttemptOutcome> {
  const db = autocommit(em);
  const d = await load(deliveryId);
  if (!d || d.state === 'delivered') return { outcome: 'skipped' };
  if (d.endpoint_status !== 'enabled') {
    const error = `endpoint ${d.endpoint_status}`;
    await db.execute(`update webhook_delivery set state = 'dead', last_error = ?, finished_at = now(), updated_at = now() where id = ?`, [error, deliveryId]);
    return { outcome: 'dead', error };
  }
  const body = deliveryBody({ id: d.event_id, event_name: d.event_name, message: d.message, created: new Date(d.event_created).toISOString(), integrator: d.integrator });
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = d.previous_secret && d.previous_valid ? [d.secret, d.previous_secret] : [d.secret];
  const result = await send(d.url, body, {
    'webhook-id': d.event_id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, d.event_id, timestamp, body),
  }, policy.allowPrivateTargets);
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  if (ok) {
    await delivered({ deliveryId, endpointId: d.endpoint_id, eventId: d.event_id, status: result.status!, latencyMs: result.latencyMs });
    return { outcome: 'delivered', status: result.status! };
  }
  const error = result.error ?? `HTTP ${result.status}`;
  return inTransaction(em, async (tx) => {
    await tx.execute(
      `insert into webhook_attempt (delivery_id, endpoint_id, event_id, status_code, latency_ms, ok, error) values (?, ?, ?, ?, ?, false, ?)`,
      [deliveryId, d.endpoint_id, d.event_id, result.status, result.latencyMs, error]);
    const [row] = await tx.execute<Array<{ attempts: number }>>(
      `update webhook_delivery set attempts = attempts + 1, last_status = ?, last_error = ?, updated_at = now() where id = ? returning attempts`,
      [result.status, error, deliveryId]);
    const [endpoint] = await tx.execute<Array<{ failing_since: Date }>>(
      `update webhook_endpoint set failing_since = coalesce(failing_since, now()) where id = ? returning failing_since`, [d.endpoint_id]);
    const disable = shouldDisable(new Date(endpoint.failing_since), new Date(), policy.disableAfterMs);
    if (disable) {
      await tx.execute(
        `update webhook_endpoint set status = 'disabled', disabled_reason = 'failing without a success since ' || ${isoTimestampSql('failing_since')},
                updated_at = now() where id = ? and status = 'enabled'`, [d.endpoint_id]);
    }
    if (row.attempts >= policy.maxAttempts || disable) {
      await tx.execute(`update webhook_delivery set state = 'dead', finished_at = now() where id = ?`, [deliveryId]);
      return { outcome: 'dead', error };
    }
    const delayMs = retryDelayMs(row.attempts, policy.retryBaseMs, Math.random());
    await tx.execute(`update webhook_delivery set state = 'pending', next_attempt_at = now() + (? * interval '1 millisecond') where id = ?`, [delayMs, deliveryId]);
    return { outcome: 'retry', delayMs, error };
  });
}
