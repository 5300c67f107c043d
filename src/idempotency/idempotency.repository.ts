/**
 * The store of Idempotency-Keys: the HTTP layer claims and answers them per request
 * (src/http/idempotency.ts); the maintenance worker drops them after their retention.
 */

/** How long a key is kept (and a claim on it blocks another request). */
export const IDEMPOTENCY_KEEP_HOURS = 24;

/** Deletes idempotency keys past the retention window; returns how many. */
export async function purgeExpiredIdempotencyKeys(em: { execute: (sql: string) => Promise<unknown> }): Promise<number> {
  const rows = (await em.execute(
    `delete from idempotency_key where created_at < now() - interval '${IDEMPOTENCY_KEEP_HOURS} hours' returning key`,
  )) as unknown[];
  return rows.length;
}
