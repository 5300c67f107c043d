import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.js';
import { OutboxEvent } from './outbox.entity.js';
import type { Executor, Write } from '../db/sql.js';

import type { EventName } from './webhook.rules.js';

/**
 * Records an event in the outbox on the caller's EntityManager, so it commits or rolls back
 * with the change it reports. Delivery is the relay's job.
 */
export function recordEvent(em: EntityManager, integratorId: string, eventName: EventName, message: Record<string, unknown>): string {
  const id = newId('evt');
  em.create(OutboxEvent, { id, integratorId, eventName, message, createdAt: new Date(), relayedAt: null });
  return id;
}

/** The same, as an INSERT on an Executor (a worker's plain-SQL transaction). */
export async function insertEvent(db: Executor, integratorId: string, eventName: EventName, message: Record<string, unknown>): Promise<string> {
  const { sql, params } = eventWrite(integratorId, eventName, message);
  await db.execute(sql, params);
  return params[0] as string;
}

/** The INSERT of an event, to send together with the writes it reports. */
export function eventWrite(integratorId: string, eventName: EventName, message: Record<string, unknown>): Write {
  return { sql: 'insert into outbox (id, integrator_id, event_name, message) values (?, ?, ?, ?::jsonb)', params: [newId('evt'), integratorId, eventName, JSON.stringify(message)] };
}
