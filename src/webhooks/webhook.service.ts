/**
 * Webhook endpoints of an integrator (DESIGN §4 Webhooks): register (the signing secret is
 * shown once), list, read with recent attempts, delete, rotate the secret, re-enable. Another
 * integrator's endpoint is exactly as absent as a missing one.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../auth/auth.service.js';
import { autocommit, inTransaction, type Executor } from '../db/sql.js';
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

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled' | 'deleted';
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

const notFound = () => AppError.notFound('WEBHOOK_GET_ERROR', 'Webhook endpoint not found.');

function newSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

function endpointView(row: EndpointRow) {
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

async function findEndpoint(db: Executor, principal: Principal, id: string, lock = false): Promise<EndpointRow> {
  const [row] = await db.execute<EndpointRow[]>(
    `select * from webhook_endpoint where id = ? and integrator_id = ? and status <> 'deleted'${lock ? ' for update' : ''}`, [id, principal.integratorId]);
  if (!row) throw notFound();
  return row;
}

/** `POST /v2/webhooks`: the new endpoint with its signing secret (shown this once). */
export async function createEndpoint(em: EntityManager, principal: Principal, input: EndpointInput, allowPrivate: boolean) {
  const problem = targetProblem(input.url, allowPrivate);
  if (problem) throw AppError.invalid({ url: [problem] }, 'The webhook URL is not an allowed target.');
  const secret = newSecret();
  const [row] = await autocommit(em).execute<EndpointRow[]>(
    `insert into webhook_endpoint (id, integrator_id, url, events, description, secret, status)
     values (?, ?, ?, ?, ?, ?, 'enabled') returning *`,
    [newId('whe'), principal.integratorId, input.url, input.events, input.description ?? null, secret]);
  return { ...endpointView(row), secret };
}

/** `GET /v2/webhooks`: the integrator's endpoints, oldest first (no secrets). */
export async function listEndpoints(em: EntityManager, principal: Principal) {
  const rows = await autocommit(em).execute<EndpointRow[]>(
    `select * from webhook_endpoint where integrator_id = ? and status <> 'deleted' order by created_at, id`, [principal.integratorId]);
  return rows.map(endpointView);
}

/** `GET /v2/webhooks/{id}`: the endpoint and its most recent delivery attempts. */
export async function getEndpoint(em: EntityManager, principal: Principal, id: string) {
  const db = autocommit(em);
  const row = await findEndpoint(db, principal, id);
  const attempts = await db.execute<Array<{ attempted_at: Date; event_id: string; event_name: string; status_code: number | null; latency_ms: number; ok: boolean; error: string | null }>>(
    `select a.attempted_at, a.event_id, o.event_name, a.status_code, a.latency_ms, a.ok, a.error
       from webhook_attempt a join outbox o on o.id = a.event_id
      where a.endpoint_id = ? order by a.attempted_at desc, a.id desc limit ?`, [id, RECENT_ATTEMPTS]);
  return {
    ...endpointView(row),
    recent_attempts: attempts.map((a) => ({
      attempted_at: new Date(a.attempted_at).toISOString(), event_id: a.event_id, event_name: a.event_name,
      status_code: a.status_code, latency_ms: a.latency_ms, ok: a.ok, error: a.error,
    })),
  };
}

/** `DELETE /v2/webhooks/{id}`: stops deliveries to it (pending ones are given up). */
export async function deleteEndpoint(em: EntityManager, principal: Principal, id: string) {
  return inTransaction(em, async (db) => {
    await findEndpoint(db, principal, id, true);
    const [row] = await db.execute<EndpointRow[]>(`update webhook_endpoint set status = 'deleted', updated_at = now() where id = ? returning *`, [id]);
    await db.execute(
      `update webhook_delivery set state = 'dead', last_error = 'endpoint deleted', finished_at = now(), updated_at = now()
        where endpoint_id = ? and state = 'pending'`, [id]);
    return endpointView(row);
  });
}

/** `POST /v2/webhooks/{id}/rotate-secret`: a new secret; the old one also signs for 24 h more. */
export async function rotateSecret(em: EntityManager, principal: Principal, id: string) {
  return inTransaction(em, async (db) => {
    await findEndpoint(db, principal, id, true);
    const secret = newSecret();
    const [row] = await db.execute<Array<EndpointRow & { previous_secret_expires_at: Date }>>(
      `update webhook_endpoint set previous_secret = secret, secret = ?,
              previous_secret_expires_at = now() + (? * interval '1 hour'), updated_at = now()
        where id = ? returning *`, [secret, ROTATION_OVERLAP_HOURS, id]);
    return { ...endpointView(row), secret, previous_secret_expires_at: new Date(row.previous_secret_expires_at).toISOString() };
  });
}

/** `POST /v2/webhooks/{id}/enable`: re-enables an endpoint disabled after failing too long. */
export async function enableEndpoint(em: EntityManager, principal: Principal, id: string) {
  return inTransaction(em, async (db) => {
    await findEndpoint(db, principal, id, true);
    const [row] = await db.execute<EndpointRow[]>(
      `update webhook_endpoint set status = 'enabled', disabled_reason = null, failing_since = null, updated_at = now() where id = ? returning *`, [id]);
    return endpointView(row);
  });
}
