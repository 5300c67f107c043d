/**
 * The outbox table's one writer: every module records its events through `insertEvent` (or, in
 * a statement that must span modules, through `outboxInsertSql`), in the transaction of the
 * change it reports. Plain SQL: an event is written on the hot paths (escrow phases, blocks).
 */
import type { Db } from '../db/sql.js';
import { newId } from '../ids.js';
import type { EventName } from './webhook.rules.js';

/** Records an event; it commits or rolls back with the caller's transaction. Delivery is the relay's job. */
export async function insertEvent(db: Db, integratorId: string, eventName: EventName, message: Record<string, unknown>): Promise<string> {
  const id = newId('evt');
  await db.execute('insert into outbox (id, integrator_id, event_name, message) values (?, ?, ?, ?::jsonb)', [
    id,
    integratorId,
    eventName,
    JSON.stringify(message),
  ]);
  return id;
}

/**
 * Fragment: an INSERT of the events a query yields, for a statement that spans modules. The
 * query's columns are named `id`, `integrator_id`, `event_name` and `message` (jsonb).
 */
export function outboxInsertSql(eventsQuery: string): string {
  return `insert into outbox (id, integrator_id, event_name, message)
       select e.id, e.integrator_id, e.event_name, e.message from (${eventsQuery}) e`;
}

/** Whether an event with this id exists. */
export async function eventExists(db: Db, eventId: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>('select 1 from outbox where id = ?', [eventId]);
  return row !== undefined;
}
