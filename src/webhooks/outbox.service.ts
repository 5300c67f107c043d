import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.js';
import { OutboxEvent } from './outbox.entity.js';
import type { Executor } from '../db/sql.js';

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
  const id = newId('evt');
  await db.execute('insert into outbox (id, integrator_id, event_name, message) values (?, ?, ?, ?::jsonb)', [id, integratorId, eventName, JSON.stringify(message)]);
  return id;
}
