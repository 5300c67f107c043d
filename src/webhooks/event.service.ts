/**
 * The events API: an integrator's events of the last 30 days (the outbox rows its webhooks
 * are made from), one event with its deliveries and their attempts, and a resend — the same
 * replay as `holdfast webhooks replay` (`replayAndEnqueue`), for the caller's own events and
 * endpoints only. Another integrator's event or endpoint is exactly as absent as a missing one.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditContext } from '../audit/audit.service.js';
import { AppError } from '../errors.js';
import type { Principal } from '../integrators/principal.js';
import { db as pooled } from '../db/sql.js';
import { eventDeliveries } from './delivery.repository.js';
import { findEvent, listEvents as listStoredEvents, type EventRecord } from './outbox.repository.js';
import { replayAndEnqueue, type DeliveryQueue } from './relay.service.js';
import { findEndpoint } from './webhook.repository.js';
import { eventListSince, eventView } from './webhook.rules.js';

export interface EventQuery {
  type?: string;
  account_id?: string;
  created_after?: string;
  created_before?: string;
  limit: number;
  offset: number;
  sort: 'asc' | 'desc';
}

const eventNotFound = () => AppError.notFound('EVENT_GET_ERROR', 'Event not found.');

function view(row: EventRecord) {
  return eventView({
    id: row.id,
    event_name: row.event_name,
    message: row.message,
    created: new Date(row.created_at).toISOString(),
    integrator: row.integrator,
  });
}

/** `GET /v2/events`: a page of the caller's events of the last 30 days and how many match. */
export async function listEvents(em: EntityManager, principal: Principal, query: EventQuery) {
  const page = await listStoredEvents(
    pooled(em),
    principal.integratorId,
    {
      since: eventListSince(new Date()),
      type: query.type,
      accountId: query.account_id,
      createdAfter: query.created_after === undefined ? undefined : new Date(query.created_after),
      createdBefore: query.created_before === undefined ? undefined : new Date(query.created_before),
    },
    { limit: query.limit, offset: query.offset, order: query.sort },
  );
  return { total: page.total, events: page.events.map(view) };
}

/** `GET /v2/events/{id}`: the event and its deliveries, one per endpoint, each with every attempt kept. */
export async function getEvent(em: EntityManager, principal: Principal, eventId: string) {
  const db = pooled(em);
  const row = await findEvent(db, principal.integratorId, eventId);
  if (!row) throw eventNotFound();
  const deliveries = await eventDeliveries(db, eventId);
  return {
    ...view(row),
    deliveries: deliveries.map((d) => ({
      id: d.id,
      endpoint_id: d.endpoint_id,
      status: d.state,
      next_attempt_at: d.state === 'pending' ? new Date(d.next_attempt_at).toISOString() : null,
      created: new Date(d.created_at).toISOString(),
      finished: d.finished_at === null ? null : new Date(d.finished_at).toISOString(),
      attempts: d.attempts.map((a) => ({
        attempted_at: a.attempted_at,
        event_id: row.id,
        event_name: row.event_name,
        status_code: a.status_code,
        latency_ms: a.latency_ms,
        ok: a.ok,
        error: a.error,
      })),
    })),
  };
}

/**
 * `POST /v2/events/{id}/resend`: sends the event again to one endpoint (`endpoint_id`) or to
 * every enabled endpoint subscribed to its type. A named endpoint must be the caller's (404),
 * subscribed to the event's type (400: it never will be, an endpoint's events do not change)
 * and enabled (409 until it is enabled again). A delivery still being retried is left to its
 * schedule and not listed.
 */
export async function resendEvent(
  em: EntityManager,
  queue: DeliveryQueue,
  principal: Principal,
  eventId: string,
  input: { endpoint_id?: string } | undefined,
  audit?: AuditContext,
) {
  const db = pooled(em);
  const event = await findEvent(db, principal.integratorId, eventId);
  if (!event) throw eventNotFound();
  const endpointId = input?.endpoint_id;
  if (endpointId !== undefined) {
    const endpoint = await findEndpoint(db, principal.integratorId, endpointId);
    if (!endpoint) throw AppError.notFound('WEBHOOK_GET_ERROR', 'Webhook endpoint not found.');
    if (!endpoint.events.includes(event.event_name)) {
      throw AppError.invalid({ endpoint_id: ['NOT_SUBSCRIBED'] }, "The webhook endpoint is not subscribed to this event's type.");
    }
    if (endpoint.status !== 'enabled') {
      throw new AppError('invalid_state', 'The webhook endpoint is disabled: enable it first (POST /v2/webhooks/{webhook_id}/enable).', {
        codes: ['WEBHOOK_DISABLED'],
      });
    }
  }
  const resent = await replayAndEnqueue(
    em,
    queue,
    endpointId === undefined ? { eventId } : { eventId, endpointId },
    audit && { context: audit, action: 'webhook.resend' },
  );
  return { event_id: eventId, resent: resent.map((d) => ({ endpoint_id: d.endpointId, delivery_id: d.deliveryId })) };
}
