/**
 * One webhook delivery attempt: the signed body goes to the endpoint with
 * got (10 s timeout, no redirects, response body capped); any 2xx acknowledges. Every attempt
 * is recorded; the delivery row says what happens next: delivered, retried later, or given up
 * (dead-lettered). An endpoint failing without a success for `disableAfterMs` is disabled.
 * Without private targets allowed, every address a name resolves to is checked before any
 * connection (no SSRF into the operator's network, no DNS rebinding between check and use).
 *
 * What an attempt records (and the endpoint's owner sees) says only `HTTP <status>`, `timed
 * out` or `target unreachable`: a refused private address, a name that does not resolve, a
 * refused or reset connection and a failed TLS handshake all read the same, so an integrator
 * cannot map how the operator's resolver answers internal names. The cause goes only to the
 * worker's log (`detail`).
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import type { EntityManager } from '@mikro-orm/postgresql';
import got from 'got';
import { db as pooled } from '../db/sql.js';
import {
  disableFailingEndpoint,
  loadDeliveries,
  markDeliveryDead,
  recordFailure,
  recordSuccesses,
  scheduleRetry,
  type DeliveryRecord,
} from './delivery.repository.js';
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
  | { outcome: 'retry'; delayMs: number; error: string; detail?: string }
  | { outcome: 'dead'; error: string; detail?: string }
  | { outcome: 'skipped' };

/** The one error of an attempt that got no answer for any reason but a timeout (see the header). */
export const UNREACHABLE = 'target unreachable';
/** The error of an attempt whose receiver did not answer in time. */
export const TIMED_OUT = 'timed out';

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

/**
 * Sends one request; never throws. `error` is what the attempt records (`invalid URL`,
 * `timed out`, `target unreachable`; null when an answer came: its `status` says the rest);
 * `detail` is the cause, for the operator's log only.
 */
export async function send(
  url: string,
  body: string,
  headers: Record<string, string>,
  allowPrivate: boolean,
): Promise<{ status: number | null; error: string | null; detail?: string; latencyMs: number }> {
  const started = performance.now();
  const done = (status: number | null, error: string | null, detail?: string) => ({
    status,
    error,
    ...(detail ? { detail } : {}),
    latencyMs: Math.round(performance.now() - started),
  });
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return done(null, 'invalid URL');
  }
  if (!allowPrivate && (isIP(host) ? isPrivateAddress(host) : host === 'localhost' || host.endsWith('.localhost'))) {
    return done(null, UNREACHABLE, 'refused: private target');
  }
  return new Promise((resolve) => {
    let status: number | null = null;
    let received = 0;
    let settled = false;
    const finish = (error: string | null, detail?: string) => {
      if (settled) return;
      settled = true;
      resolve(done(status, error, detail));
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
      if (status !== null) return finish(null);
      const cause = (err as { cause?: unknown }).cause;
      if (err instanceof PrivateTargetError || cause instanceof PrivateTargetError) return finish(UNREACHABLE, 'refused: private target');
      const detail = `${err.code ?? 'ERROR'}: ${err.message}`.slice(0, 300);
      finish(err.name === 'TimeoutError' ? TIMED_OUT : UNREACHABLE, detail);
    });
  });
}

type Loaded = DeliveryRecord;

/**
 * The attempt maker of one worker process: loads deliveries and records successes in batches
 * (group commit: concurrent jobs share one statement), so a busy worker spends its time
 * sending, not waiting on PostgreSQL.
 */
export function deliveryAttempts(em: EntityManager, policy: DeliveryPolicy): (deliveryId: string) => Promise<AttemptOutcome> {
  const db = pooled(em);
  const load = batched<string, Loaded | undefined>(async (ids) => {
    const rows = await loadDeliveries(db, ids);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id));
  });
  // A success: the attempt, the delivery done, the endpoint healthy — for a whole batch at once.
  const delivered = batched<{ deliveryId: string; endpointId: string; eventId: string; status: number; latencyMs: number }, void>(
    async (acks) => {
      await recordSuccesses(db, acks);
      return acks.map(() => undefined);
    },
  );
  return (deliveryId) => attempt(em, deliveryId, policy, load, delivered);
}

/**
 * Makes one attempt of a delivery and records it. A dead delivery run again (the dashboard's
 * retry) is sent once more; a delivered one is left alone.
 */
async function attempt(
  em: EntityManager,
  deliveryId: string,
  policy: DeliveryPolicy,
  load: (id: string) => Promise<Loaded | undefined>,
  delivered: (ack: { deliveryId: string; endpointId: string; eventId: string; status: number; latencyMs: number }) => Promise<void>,
): Promise<AttemptOutcome> {
  const db = pooled(em);
  const d = await load(deliveryId);
  if (!d || d.state === 'delivered') return { outcome: 'skipped' };
  if (d.endpoint_status !== 'enabled') {
    const error = `endpoint ${d.endpoint_status}`;
    await markDeliveryDead(db, deliveryId, error);
    return { outcome: 'dead', error };
  }
  const body = deliveryBody({
    id: d.event_id,
    event_name: d.event_name,
    message: d.message,
    created: new Date(d.event_created).toISOString(),
    integrator: d.integrator,
  });
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = d.previous_secret && d.previous_valid ? [d.secret, d.previous_secret] : [d.secret];
  const result = await send(
    d.url,
    body,
    {
      'webhook-id': d.event_id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, d.event_id, timestamp, body),
    },
    policy.allowPrivateTargets,
  );
  const ok = result.status !== null && result.status >= 200 && result.status < 300;
  if (ok) {
    await delivered({ deliveryId, endpointId: d.endpoint_id, eventId: d.event_id, status: result.status!, latencyMs: result.latencyMs });
    return { outcome: 'delivered', status: result.status! };
  }
  const error = result.error ?? `HTTP ${result.status}`;
  const detail = result.detail ? { detail: result.detail } : {};
  return db.transaction(async (tx) => {
    const failed = await recordFailure(tx, {
      deliveryId,
      endpointId: d.endpoint_id,
      eventId: d.event_id,
      status: result.status,
      latencyMs: result.latencyMs,
      error,
    });
    const disable = shouldDisable(failed.failingSince, failed.now, policy.disableAfterMs);
    if (disable) await disableFailingEndpoint(tx, d.endpoint_id);
    if (failed.attempts >= policy.maxAttempts || disable) {
      await markDeliveryDead(tx, deliveryId);
      return { outcome: 'dead', error, ...detail };
    }
    const delayMs = retryDelayMs(failed.attempts, policy.retryBaseMs, Math.random());
    await scheduleRetry(tx, deliveryId, delayMs);
    return { outcome: 'retry', delayMs, error, ...detail };
  });
}
