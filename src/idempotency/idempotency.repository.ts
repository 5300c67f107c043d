/**
 * The idempotency_key table: the HTTP layer claims and answers keys per request
 * (src/http/idempotency.ts); the maintenance worker drops them after their retention.
 * Hand-written SQL: the claim is one INSERT … ON CONFLICT … WHERE
 * (exactly one of two concurrent requests wins), which MikroORM's upsert cannot state, and every
 * mutating request runs these statements, so they run prepared on the pool.
 */
import type { Db } from '../db/sql.js';
import { tenantNowSql } from '../sandbox/sandbox.repository.js';

/** How long a key is kept (and a claim on it blocks another request). */
export const IDEMPOTENCY_KEEP_HOURS = 24;

/** A remembered request, as the replay needs it. */
export interface IdempotencyKeyRecord {
  requestHash: string;
  state: 'running' | 'done';
  responseStatus: number | null;
  responseBody: unknown;
  reissue: boolean;
}

/**
 * Claims the key for this request (or takes over one older than `keepHours`); false when another
 * holds it. A key's age is on its integrator's clock (real time, or its staging test clock).
 */
export async function claimKey(
  db: Db,
  owner: string,
  key: string,
  requestHash: string,
  keepHours: number,
  integratorId: string,
): Promise<boolean> {
  const now = tenantNowSql('?');
  const claimed = await db.execute<Array<{ key: string }>>(
    `insert into idempotency_key (client_id, key, request_hash, state, created_at) values (?, ?, ?, 'running', ${now})
     on conflict (client_id, key) do update
       set request_hash = excluded.request_hash, state = 'running', response_status = null, response_body = null,
           created_at = excluded.created_at
       where idempotency_key.created_at < excluded.created_at - interval '${Number(keepHours)} hours'
     returning key`,
    [owner, key, requestHash, integratorId],
  );
  return claimed.length > 0;
}

/** The key's record, if it exists. */
export async function findKey(db: Db, owner: string, key: string): Promise<IdempotencyKeyRecord | undefined> {
  const [row] = await db.execute<
    Array<{ request_hash: string; state: 'running' | 'done'; response_status: number | null; response_body: unknown; reissue: boolean }>
  >('select request_hash, state, response_status, response_body, reissue from idempotency_key where client_id = ? and key = ?', [
    owner,
    key,
  ]);
  return (
    row && {
      requestHash: row.request_hash,
      state: row.state,
      responseStatus: row.response_status,
      responseBody: row.response_body,
      reissue: row.reissue,
    }
  );
}

/** Forgets the key (a 5xx answer is not remembered). */
export async function forgetKey(db: Db, owner: string, key: string): Promise<void> {
  await db.execute('delete from idempotency_key where client_id = ? and key = ?', [owner, key]);
}

/** Stores the answer (or, with `reissue`, what a replay needs to answer again). */
export async function storeResponse(db: Db, owner: string, key: string, status: number, body: unknown, reissue: boolean): Promise<void> {
  await db.execute(
    `update idempotency_key set state = 'done', response_status = ?, response_body = ?::jsonb, reissue = ? where client_id = ? and key = ?`,
    [status, JSON.stringify(body ?? null), reissue, owner, key],
  );
}

/**
 * Deletes idempotency keys past the retention window, at most `batch` of them (oldest first, by
 * the `created_at` index) so that no statement holds the table long; returns how many. The rows
 * are deleted by their address (`ctid = any (array(…))`): a TID scan whatever the table's size,
 * as the other purges delete by key.
 */
export async function purgeExpiredIdempotencyKeys(db: Db, batch = 5_000): Promise<number> {
  const [row] = await db.execute<Array<{ n: number }>>(
    `with gone as (
       delete from idempotency_key where ctid = any (array(
         select ctid from idempotency_key where created_at < now() - interval '${IDEMPOTENCY_KEEP_HOURS} hours' order by created_at limit ?))
       returning 1
     ) select count(*)::int as n from gone`,
    [batch],
  );
  return row?.n ?? 0;
}
