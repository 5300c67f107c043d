/**
 * The outbox relay and the delivery sweeper. The relay claims unrelayed
 * events with `FOR UPDATE SKIP LOCKED` (several worker processes may relay at once) and, in the
 * same transaction (one statement), writes one delivery row per subscribed enabled endpoint and
 * marks the events relayed; jobs are enqueued after the commit. A crash between the two leaves pending
 * rows without jobs, which the sweeper re-enqueues: the rows, not Redis, are the truth.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';
import { db } from '../db/sql.js';
import * as deliveries from './delivery.repository.js';
import { eventExists as outboxEventExists } from './outbox.repository.js';
import { endpointExists as storedEndpointExists } from './webhook.repository.js';
import { tracingHooks } from '../runtime/tracing-hooks.js';

export type NewDelivery = deliveries.DeliveryJob;

/**
 * Relays up to `limit` events in one statement (its own transaction): claim unrelayed events
 * (SKIP LOCKED), mark them relayed, and make their deliveries. Returns the deliveries made, to
 * enqueue once committed.
 */
export function relayOutbox(em: EntityManager, limit = 500): Promise<{ events: number; deliveries: NewDelivery[] }> {
  return deliveries.relayEvents(db(em), limit, tracingHooks() !== undefined);
}

/** Pending deliveries due for longer than `graceMs` (their job may be lost). */
export function overdueDeliveries(em: EntityManager, graceMs: number): Promise<NewDelivery[]> {
  return deliveries.overdueDeliveries(db(em), graceMs);
}

/** How old the oldest unrelayed event is, in seconds (0 when none wait): the relay's lag. */
export function outboxLagSeconds(em: EntityManager): Promise<number> {
  return deliveries.outboxLagSeconds(db(em));
}

/**
 * Sends again every finished (delivered or dead) delivery of an event (to every endpoint, or
 * to one), or of an endpoint's events since a time — and makes the deliveries such an event
 * should have had but never got (an endpoint added or disabled meanwhile). Each starts a fresh
 * retry schedule under a new job id; deliveries still pending are left to run. Only enabled
 * endpoints are sent to. Callers enqueue through `replayAndEnqueue`.
 */
export function replayDeliveries(
  em: EntityManager,
  filter: deliveries.ReplayFilter,
  audit?: ReplayAudit,
): Promise<Array<NewDelivery & { endpointId: string }>> {
  return db(em).transaction(async (tx) => {
    const replayed = await deliveries.replayDeliveries(tx, filter, `.r${Date.now()}`);
    // A replay that sends something is recorded, in its transaction (an event or an endpoint is one integrator's).
    if (audit && replayed.length)
      await recordAudit(tx, {
        integratorId: replayed[0].integratorId,
        context: audit.context,
        action: audit.action,
        target: 'eventId' in filter ? { type: 'event', id: filter.eventId } : { type: 'webhook_endpoint', id: filter.endpointId },
        after: {
          ...('eventId' in filter ? {} : { since: filter.since.toISOString() }),
          endpoint_ids: [...new Set(replayed.map((d) => d.endpointId))],
          deliveries: replayed.length,
        },
      });
    return replayed.map(({ integratorId: _i, ...d }) => d);
  });
}

/** Who replays, for the audit trail: `webhook.resend` (the API's resend) or `webhook.replay` (the CLI's). */
export interface ReplayAudit {
  context: AuditContext;
  action: 'webhook.resend' | 'webhook.replay';
}

/** Where waiting retries are sent at once (the webhooks queue's producer, `WebhookBus`). */
export interface RetryQueue {
  /** Runs these deliveries' waiting (delayed) jobs now; returns how many it moved. */
  sendNow(deliveries: NewDelivery[]): Promise<number>;
}

/**
 * After an integrator's test clock moved forward: its retries now due on that clock are sent at
 * once instead of after their real delay. Returns how many.
 */
export async function sendDueRetries(em: EntityManager, queue: RetryQueue, integratorId: string): Promise<number> {
  return queue.sendNow(await deliveries.dueRetriesOf(db(em), integratorId));
}

/** Where replayed deliveries are enqueued (the webhooks queue's producer, `WebhookBus`). */
export interface DeliveryQueue {
  /** False when the queue cannot take them now: the rows stay pending and the delivery sweeper enqueues them. */
  enqueue(deliveries: NewDelivery[]): Promise<boolean>;
}

/**
 * The one way to replay, for `holdfast webhooks replay` and `POST /v2/events/{id}/resend`
 * alike: `replayDeliveries`, then the new deliveries enqueued. If the queue refuses them now,
 * the rows are pending and the delivery sweeper sends them.
 */
export async function replayAndEnqueue(
  em: EntityManager,
  queue: DeliveryQueue,
  filter: deliveries.ReplayFilter,
  audit?: ReplayAudit,
): Promise<Array<NewDelivery & { endpointId: string }>> {
  const replayed = await replayDeliveries(em, filter, audit);
  await queue.enqueue(replayed);
  return replayed;
}

/** Whether an event with this id exists (a replay of an unknown one is refused). */
export function eventExists(em: EntityManager, eventId: string): Promise<boolean> {
  return outboxEventExists(db(em), eventId);
}

/** Whether an endpoint with this id exists and is not deleted (a replay to an unknown one is refused). */
export function endpointExists(em: EntityManager, endpointId: string): Promise<boolean> {
  return storedEndpointExists(db(em), endpointId);
}

/** How long delivered and dead deliveries, their attempts and relayed events are kept. */
export const WEBHOOK_RETENTION_DAYS = 30;

/**
 * Drops webhook history past the retention (at most `batch` rows of each kind per call, so a
 * backlog is worked off without long locks): attempts, finished deliveries, then relayed events
 * that no delivery still needs. Pending deliveries and their events are never touched.
 */
export function purgeWebhookHistory(em: EntityManager, days = WEBHOOK_RETENTION_DAYS, batch = 10_000): Promise<number> {
  return deliveries.purgeHistory(db(em), days, batch);
}
