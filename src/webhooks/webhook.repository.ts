/**
 * webhook_endpoint (and the deliveries an endpoint's deletion gives up). Hand-written SQL: the
 * changes are single UPDATE … RETURNING statements under a row lock, and the secret rotation
 * copies one column into another in place.
 */
import type { Db } from '../db/sql.js';

/** An endpoint as the API shows it (never its secrets). */
export interface EndpointRecord {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled' | 'deleted';
  disabled_reason: string | null;
  /** Since when its deliveries fail without a success in between (null while healthy). */
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, url, events, description, status, disabled_reason, failing_since, created_at, updated_at';

/** Adds an enabled endpoint. */
export async function insertEndpoint(
  db: Db,
  endpoint: { id: string; integratorId: string; url: string; events: string[]; description: string | null; secret: string },
): Promise<EndpointRecord> {
  const [row] = await db.execute<EndpointRecord[]>(
    `insert into webhook_endpoint (id, integrator_id, url, events, description, secret, status)
     values (?, ?, ?, ?, ?, ?, 'enabled') returning ${COLUMNS}`,
    [endpoint.id, endpoint.integratorId, endpoint.url, endpoint.events, endpoint.description, endpoint.secret],
  );
  return row;
}

/** The integrator's endpoint (not deleted), locked for the caller's transaction when asked. */
export async function findEndpoint(db: Db, integratorId: string, id: string, lock = false): Promise<EndpointRecord | undefined> {
  const [row] = await db.execute<EndpointRecord[]>(
    `select ${COLUMNS} from webhook_endpoint where id = ? and integrator_id = ? and status <> 'deleted'${lock ? ' for update' : ''}`,
    [id, integratorId],
  );
  return row;
}

/** Whether an endpoint with this id exists (not deleted), whoever owns it. */
export async function endpointExists(db: Db, id: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>("select 1 from webhook_endpoint where id = ? and status <> 'deleted'", [id]);
  return row !== undefined;
}

/** The integrator's endpoints (not deleted), oldest first. */
export function listEndpoints(db: Db, integratorId: string): Promise<EndpointRecord[]> {
  return db.execute<EndpointRecord[]>(
    `select ${COLUMNS} from webhook_endpoint where integrator_id = ? and status <> 'deleted' order by created_at, id`,
    [integratorId],
  );
}

/** Marks an endpoint deleted and gives up its pending deliveries. */
export async function markEndpointDeleted(db: Db, id: string): Promise<EndpointRecord> {
  const [row] = await db.execute<EndpointRecord[]>(
    `update webhook_endpoint set status = 'deleted', updated_at = now() where id = ? returning ${COLUMNS}`,
    [id],
  );
  await db.execute(
    `update webhook_delivery set state = 'dead', last_error = 'endpoint deleted', finished_at = now(), updated_at = now()
      where endpoint_id = ? and state = 'pending'`,
    [id],
  );
  return row;
}

/** Replaces the secret; the old one keeps signing for `overlapHours`. */
export async function rotateEndpointSecret(
  db: Db,
  id: string,
  secret: string,
  overlapHours: number,
): Promise<EndpointRecord & { previous_secret_expires_at: Date }> {
  const [row] = await db.execute<Array<EndpointRecord & { previous_secret_expires_at: Date }>>(
    `update webhook_endpoint set previous_secret = secret, secret = ?,
            previous_secret_expires_at = now() + (? * interval '1 hour'), updated_at = now()
      where id = ? returning ${COLUMNS}, previous_secret_expires_at`,
    [secret, overlapHours, id],
  );
  return row;
}

/** Re-enables an endpoint. */
export async function markEndpointEnabled(db: Db, id: string): Promise<EndpointRecord> {
  const [row] = await db.execute<EndpointRecord[]>(
    `update webhook_endpoint set status = 'enabled', disabled_reason = null, failing_since = null, updated_at = now() where id = ? returning ${COLUMNS}`,
    [id],
  );
  return row;
}

/** The endpoint's most recent attempts, newest first, with their events' names. */
export function recentAttempts(db: Db, endpointId: string, limit: number) {
  return db.execute<
    Array<{
      attempted_at: Date;
      event_id: string;
      event_name: string;
      status_code: number | null;
      latency_ms: number;
      ok: boolean;
      error: string | null;
    }>
  >(
    `select a.attempted_at, a.event_id, o.event_name, a.status_code, a.latency_ms, a.ok, a.error
       from webhook_attempt a join outbox o on o.id = a.event_id
      where a.endpoint_id = ? order by a.attempted_at desc, a.id desc limit ?`,
    [endpointId, limit],
  );
}
