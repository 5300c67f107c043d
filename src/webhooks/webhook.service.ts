/**
 * Webhook endpoints of an integrator: register (the signing secret is
 * shown once), list, read with recent attempts, delete, rotate the secret, re-enable. Another
 * integrator's endpoint is exactly as absent as a missing one.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../integrators/principal.js';
import { db as pooled, type Db } from '../db/sql.js';
import { latestDeliveries, type EndpointDeliveryRecord } from './delivery.repository.js';
import * as endpoints from './webhook.repository.js';
import type { EndpointRecord } from './webhook.repository.js';
import { targetProblem, type EventName } from './webhook.rules.js';

/** How long the previous secret still signs deliveries after a rotation. */
const ROTATION_OVERLAP_HOURS = 24;

/** How many recent attempts `GET /v2/webhooks/{id}` shows. */
const RECENT_ATTEMPTS = 20;

export interface EndpointInput {
  url: string;
  events: EventName[];
  description?: string;
}

const notFound = () => AppError.notFound('WEBHOOK_GET_ERROR', 'Webhook endpoint not found.');

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function endpointView(row: EndpointRecord) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    created: new Date(row.created_at).toISOString(),
    updated: new Date(row.updated_at).toISOString(),
  };
}

async function findEndpoint(db: Db, principal: Principal, id: string, lock = false): Promise<EndpointRecord> {
  const row = await endpoints.findEndpoint(db, principal.integratorId, id, lock);
  if (!row) throw notFound();
  return row;
}

/** `POST /v2/webhooks`: the new endpoint with its signing secret (shown this once). */
export async function createEndpoint(em: EntityManager, principal: Principal, input: EndpointInput, allowPrivate: boolean) {
  const problem = targetProblem(input.url, allowPrivate);
  if (problem) throw AppError.invalid({ url: [problem] }, 'The webhook URL is not an allowed target.');
  const secret = newSecret();
  const row = await endpoints.insertEndpoint(pooled(em), {
    id: newId('whe'),
    integratorId: principal.integratorId,
    url: input.url,
    events: input.events,
    description: input.description ?? null,
    secret,
  });
  return { ...endpointView(row), secret };
}

/** `GET /v2/webhooks`: the integrator's endpoints, oldest first (no secrets). */
export async function listEndpoints(em: EntityManager, principal: Principal) {
  return (await endpoints.listEndpoints(pooled(em), principal.integratorId)).map(endpointView);
}

/** `GET /v2/webhooks/{id}`: the endpoint and its most recent delivery attempts. */
export async function getEndpoint(em: EntityManager, principal: Principal, id: string) {
  const db = pooled(em);
  const row = await findEndpoint(db, principal, id);
  const attempts = await endpoints.recentAttempts(db, id, RECENT_ATTEMPTS);
  return {
    ...endpointView(row),
    recent_attempts: attempts.map((a) => ({
      attempted_at: new Date(a.attempted_at).toISOString(),
      event_id: a.event_id,
      event_name: a.event_name,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      ok: a.ok,
      error: a.error,
    })),
  };
}

/** `DELETE /v2/webhooks/{id}`: stops deliveries to it (pending ones are given up). */
export async function deleteEndpoint(em: EntityManager, principal: Principal, id: string) {
  return pooled(em).transaction(async (db) => {
    await findEndpoint(db, principal, id, true);
    return endpointView(await endpoints.markEndpointDeleted(db, id));
  });
}

/** `POST /v2/webhooks/{id}/rotate-secret`: a new secret; the old one also signs for 24 h more. */
export async function rotateSecret(em: EntityManager, principal: Principal, id: string) {
  return pooled(em).transaction(async (db) => {
    await findEndpoint(db, principal, id, true);
    const secret = newSecret();
    const row = await endpoints.rotateEndpointSecret(db, id, secret, ROTATION_OVERLAP_HOURS);
    return { ...endpointView(row), secret, previous_secret_expires_at: new Date(row.previous_secret_expires_at).toISOString() };
  });
}

/** `POST /v2/webhooks/{id}/enable`: re-enables an endpoint disabled after failing too long. */
export async function enableEndpoint(em: EntityManager, principal: Principal, id: string) {
  return pooled(em).transaction(async (db) => {
    await findEndpoint(db, principal, id, true);
    return endpointView(await endpoints.markEndpointEnabled(db, id));
  });
}

function deliveryView(d: EndpointDeliveryRecord) {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_name: d.event_name,
    status: d.state,
    attempts: d.attempts,
    last_status: d.last_status,
    last_error: d.last_error,
    next_attempt_at: d.state === 'pending' ? new Date(d.next_attempt_at).toISOString() : null,
    created: new Date(d.created_at).toISOString(),
    finished: d.finished_at === null ? null : new Date(d.finished_at).toISOString(),
  };
}

/**
 * The integrator's endpoints with their health (the console's webhooks page): each with since
 * when it fails (null while healthy) and its latest `recent` deliveries, newest first; and the
 * failed deliveries — given up (dead) or retrying after a failed attempt — the latest `failed`
 * of them in all, newest first across endpoints. Each delivery has its attempts so far, the
 * last answer's status and error, and (while pending) when it is tried next.
 */
export async function endpointHealth(em: EntityManager, principal: Principal, limits: { recent: number; failed: number }) {
  const db = pooled(em);
  const rows = await endpoints.listEndpoints(db, principal.integratorId);
  const recent = await latestDeliveries(db, principal.integratorId, { perEndpoint: limits.recent, failedOnly: false });
  const failed = await latestDeliveries(db, principal.integratorId, { perEndpoint: limits.failed, failedOnly: true });
  return {
    endpoints: rows.map((row) => ({
      ...endpointView(row),
      failing_since: row.failing_since === null ? null : new Date(row.failing_since).toISOString(),
      deliveries: recent.filter((d) => d.endpoint_id === row.id).map(deliveryView),
    })),
    failed: failed
      .map(deliveryView)
      .sort((a, b) => (a.created < b.created ? 1 : a.created > b.created ? -1 : a.id < b.id ? 1 : -1))
      .slice(0, limits.failed),
  };
}
