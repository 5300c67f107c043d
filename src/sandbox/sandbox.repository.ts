/**
 * sandbox_clock: how far each integrator has moved its staging test clock ahead. Hand-written
 * SQL: the time-based rules of other modules read "now" for a tenant inside their own
 * statements through `tenantNowSql`, and moving the clock is one upsert.
 */
import type { Db } from '../db/sql.js';

/**
 * SQL for "now" as the tenant `integratorIdSql` (an SQL expression: a column, or `?`) sees it:
 * real time plus its test clock's offset. Production never writes the table, so there it is
 * `now()`. Use it for both sides of a time-based rule: when a deadline is set and when it is
 * checked, or a deadline set in real time would be passed at once by an advanced clock.
 */
export function tenantNowSql(integratorIdSql: string): string {
  return `(now() + coalesce((select sc.offset_seconds from sandbox_clock sc where sc.integrator_id = ${integratorIdSql}), 0) * interval '1 second')`;
}

/** The integrator's clock: its "now" and offset in seconds (0: real time). */
export async function readClock(db: Db, integratorId: string): Promise<{ now: Date; offsetSeconds: number }> {
  const [row] = await db.execute<Array<{ now: Date; offset_seconds: number }>>(
    `select ${tenantNowSql('?')} as now,
            coalesce((select offset_seconds from sandbox_clock where integrator_id = ?), 0)::float8 as offset_seconds`,
    [integratorId, integratorId],
  );
  return { now: new Date(row.now), offsetSeconds: Number(row.offset_seconds) };
}

/**
 * Moves the integrator's clock forward by `seconds`, unless its offset would pass `maxOffsetSeconds`;
 * false then (nothing changed).
 */
export async function advanceClock(db: Db, integratorId: string, seconds: number, maxOffsetSeconds: number): Promise<boolean> {
  const rows = await db.execute<unknown[]>(
    `insert into sandbox_clock (integrator_id, offset_seconds) select ?, ?::bigint where ?::bigint <= ?::bigint
     on conflict (integrator_id) do update
       set offset_seconds = sandbox_clock.offset_seconds + excluded.offset_seconds, updated_at = now()
       where sandbox_clock.offset_seconds + excluded.offset_seconds <= ?::bigint
     returning integrator_id`,
    [integratorId, seconds, seconds, maxOffsetSeconds, maxOffsetSeconds],
  );
  return rows.length > 0;
}

/** Puts the integrator's clock back to real time. */
export async function resetClock(db: Db, integratorId: string): Promise<void> {
  await db.execute('delete from sandbox_clock where integrator_id = ?', [integratorId]);
}

/** Puts every integrator's clock back to real time; returns how many were ahead. */
export async function resetAllClocks(db: Db): Promise<number> {
  const rows = await db.execute<unknown[]>('delete from sandbox_clock returning integrator_id');
  return rows.length;
}
