/**
 * The outbox table's one writer: every module records its events through `insertEvent` (or, in
 * a statement that must span modules, through `outboxInsertSql`), in the transaction of the
 * change it reports. Plain SQL: an event is written on the hot paths (escrow phases, blocks).
 */
import type { Db } from '../db/sql.js';
import { newId } from '../ids.js';
import { joinIntegratorSql } from '../integrators/integrator.repository.js';
import type { EventName } from './webhook.rules.js';
import { currentTraceparent } from '../runtime/tracing-hooks.js';

/** Records an event; it commits or rolls back with the caller's transaction. Delivery is the relay's job. */
export async function insertEvent(db: Db, integratorId: string, eventName: EventName, message: Record<string, unknown>): Promise<string> {
  const id = newId('evt');
  await db.execute('insert into outbox (id, integrator_id, event_name, message, traceparent) values (?, ?, ?, ?::jsonb, ?)', [
    id,
    integratorId,
    eventName,
    JSON.stringify(message),
    currentTraceparent() ?? null,
  ]);
  return id;
}

/**
 * Fragment: an INSERT of the events a query yields, for a statement that spans modules. The
 * query's columns are named `id`, `integrator_id`, `event_name`, `message` (jsonb) and
 * `traceparent` (null when tracing is off).
 */
export function outboxInsertSql(eventsQuery: string): string {
  return `insert into outbox (id, integrator_id, event_name, message, traceparent)
       select e.id, e.integrator_id, e.event_name, e.message, e.traceparent from (${eventsQuery}) e`;
}

/** Whether an event with this id exists. */
export async function eventExists(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>('select 1 from outbox where id = ?', [eventId]);
  return row !== undefined;
}

/** An event as the events API reads it, with its integrator's name (the delivery body names it). */
export interface EventRecord {
  id: string;
  event_name: string;
  message: Record<string, unknown>;
  created_at: Date;
  integrator: string;
}

/** What `GET /v2/events` filters on; `since` is the oldest time the list ever shows. */
export interface EventFilter {
  since: Date;
  type?: string;
  accountId?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

function eventConditions(integratorId: string, filter: EventFilter): { sql: string; params: unknown[] } {
  const parts = ['o.integrator_id = ?', 'o.created_at >= ?'];
  const params: unknown[] = [integratorId, filter.since];
  if (filter.type !== undefined) {
    parts.push('o.event_name = ?');
    params.push(filter.type);
  }
  if (filter.accountId !== undefined) {
    // The expression of outbox_integrator_account_idx, so the index serves it.
    parts.push(`(o.message ->> 'account_id') = ?`);
    params.push(filter.accountId);
  }
  if (filter.createdAfter !== undefined) {
    parts.push('o.created_at >= ?');
    params.push(filter.createdAfter);
  }
  if (filter.createdBefore !== undefined) {
    parts.push('o.created_at < ?');
    params.push(filter.createdBefore);
  }
  return { sql: parts.join(' and '), params };
}

/** A page of an integrator's events (by creation time, then id) and how many match in all. */
export async function listEvents(
  db: Db,
  integratorId: string,
  filter: EventFilter,
  page: { limit: number; offset: number; order: 'asc' | 'desc' },
): Promise<{ total: number; events: EventRecord[] }> {
  const where = eventConditions(integratorId, filter);
  const [count] = await db.execute<Array<{ total: number }>>(
    `select count(*)::int as total from outbox o where ${where.sql}`,
    where.params,
  );
  const order = page.order === 'asc' ? 'asc' : 'desc';
  const events = await db.execute<EventRecord[]>(
    `select o.id, o.event_name, o.message, o.created_at, i.name as integrator
       from outbox o ${joinIntegratorSql('i', 'o.integrator_id')}
      where ${where.sql}
      order by o.created_at ${order}, o.id ${order} limit ? offset ?`,
    [...where.params, page.limit, page.offset],
  );
  return { total: count.total, events };
}

/** The integrator's event with this id, if it is still kept. */
export async function findEvent(db: Db, integratorId: string, eventId: string): Promise<EventRecord | undefined> {
  const [row] = await db.execute<EventRecord[]>(
    `select o.id, o.event_name, o.message, o.created_at, i.name as integrator
       from outbox o ${joinIntegratorSql('i', 'o.integrator_id')}
      where o.id = ? and o.integrator_id = ?`,
    [eventId, integratorId],
  );
  return row;
}

/**
 * Fragment for an export: the integrator's events matching the filter (as `GET /v2/events`
 * filters them, `since` its oldest), oldest first (ties by id), as rows (`event_id`,
 * `created_at`, `type`, `account_id`, `message` — the event's body as JSON).
 */
export function eventExportSql(integratorId: string, filter: EventFilter): { sql: string; params: unknown[] } {
  const where = eventConditions(integratorId, filter);
  return {
    sql: `select o.id as event_id, o.created_at, o.event_name as type, o.message ->> 'account_id' as account_id, o.message
            from outbox o where ${where.sql} order by o.created_at, o.id`,
    params: where.params,
  };
}
