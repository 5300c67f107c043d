/**
 * Provider webhooks in: a verified delivery is stored once per (provider, provider event id)
 * with its `provider-event.apply` command, in one transaction, and its job enqueued; the
 * request is answered then, before anything acts on the event. Operators list events and
 * replay one (its command again).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { commandResult, submitCommand } from '../commands/command.service.js';
import { db as pooled } from '../db/sql.js';
import type { Reply } from '../envelope.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { VerifyPaypalWebhook } from './paypal-webhook.js';
import {
  insertProviderEvent,
  latestProviderEvents,
  providerEventByProviderId,
  providerEventsNamed,
  setProviderEventCommand,
} from './provider-event.repository.js';
import { eventIdentity, paypalTransmission, paypalTransmissionProblems, type Provider, providerEventView } from './provider-event.rules.js';
import { verifiedStripeEvent } from './stripe-webhook.js';

const KIND = 'provider-event.apply';

/** What a delivery's answer says: the stored event, and whether it was stored before. */
export interface ReceivedEvent {
  id: string;
  provider: Provider;
  provider_event_id: string;
  type: string;
  duplicate: boolean;
}

/** Stores an event unless stored already, with its command; enqueues the command of a new one. */
async function receive(em: EntityManager, bus: Pick<CommandBus, 'enqueue'>, provider: Provider, body: unknown): Promise<ReceivedEvent> {
  const identity = eventIdentity(provider, body);
  if (!identity.ok) throw AppError.invalid(identity.fields, `The body is not a ${provider} event.`);
  const { providerEventId, type, payload } = identity;
  const stored = await pooled(em).transaction(async (db) => {
    const id = newId('pev');
    if (!(await insertProviderEvent(db, { id, provider, providerEventId, type, payload }))) return { id: undefined, commandId: undefined };
    const commandId = await submitCommand(db, { integratorId: null, kind: KIND, targetId: id });
    await setProviderEventCommand(db, id, commandId);
    return { id, commandId };
  });
  if (stored.id && stored.commandId) {
    // Redis refusing the job loses nothing: the command row is pending and the sweeper runs it.
    await bus.enqueue(stored.commandId, KIND);
    return { id: stored.id, provider, provider_event_id: providerEventId, type, duplicate: false };
  }
  const existing = await providerEventByProviderId(pooled(em), provider, providerEventId);
  if (!existing) throw new Error(`provider event ${provider} ${providerEventId}: neither stored nor found`);
  return { id: existing.id, provider, provider_event_id: providerEventId, type: existing.type, duplicate: true };
}

/** A Stripe delivery: verified with the endpoint's signing secret (400 otherwise), then stored once. */
export async function receiveStripeWebhook(
  em: EntityManager,
  bus: Pick<CommandBus, 'enqueue'>,
  secret: string,
  rawBody: Buffer,
  signature: string | string[] | undefined,
): Promise<ReceivedEvent> {
  return receive(em, bus, 'stripe', verifiedStripeEvent(rawBody, signature, secret));
}

/** What stands between a PayPal delivery and the call that verifies it. */
export interface PaypalVerifyGuard {
  /** The configured PayPal API base: a `cert_url` on its origin is taken as PayPal's (besides paypal.com). */
  apiBase?: string;
  /** Spends one verification of the budget; rejects (429, an AppError) past it. */
  spend?: () => Promise<void>;
}

/**
 * A PayPal delivery: a JSON event with PayPal's transmission headers, which PayPal's
 * verify-webhook-signature call must confirm (400 otherwise), then stored once. Nothing is asked
 * of PayPal for a delivery whose body is not an event or whose headers are missing or not
 * PayPal's (`paypalTransmissionProblems`), nor past the verification budget (`guard.spend`).
 */
export async function receivePaypalWebhook(
  em: EntityManager,
  bus: Pick<CommandBus, 'enqueue'>,
  verify: VerifyPaypalWebhook,
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  guard: PaypalVerifyGuard = {},
): Promise<ReceivedEvent> {
  const text = rawBody.toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw AppError.invalid({ body: ['MALFORMED_JSON'] }, 'The body is not valid JSON.');
  }
  const identity = eventIdentity('paypal', body);
  if (!identity.ok) throw AppError.invalid(identity.fields, 'The body is not a paypal event.');
  const transmission = paypalTransmission(headers);
  if (!transmission.ok) throw AppError.invalid(transmission.fields, 'A PayPal webhook needs its PAYPAL-* transmission headers.');
  const problems = paypalTransmissionProblems(transmission.transmission, guard.apiBase);
  if (Object.keys(problems).length) throw AppError.invalid(problems, "The PAYPAL-* transmission headers are not PayPal's.");
  // Each delivery past here costs a call to PayPal: within the budget only (429 past it).
  await guard.spend?.();
  if (!(await verify(headers, text)))
    throw AppError.invalid({ 'PAYPAL-TRANSMISSION-SIG': ['INVALID_SIGNATURE'] }, 'PayPal did not verify this webhook.');
  return receive(em, bus, 'paypal', body);
}

/** The latest events, newest first (of one provider, when named). */
export async function listProviderEvents(em: EntityManager, filter: { provider?: Provider; limit: number }) {
  return (await latestProviderEvents(pooled(em), filter)).map(providerEventView);
}

/**
 * Runs an event's command again: its pending command when it has one, else a new one; the
 * runner hands the event to its handler unless it was applied already. `id` is Holdfast's
 * (`pev_…`) or the provider's (then `provider` settles an id both providers used). Waits up to
 * `waitMs` for the outcome: the command's result, or null when it is still pending then.
 */
export async function replayProviderEvent(
  em: EntityManager,
  bus: Pick<CommandBus, 'requeue' | 'waitFor'>,
  id: string,
  opts: { provider?: Provider; waitMs: number; onQueueError?: (err: unknown) => void },
): Promise<{ event: ReturnType<typeof providerEventView>; commandId: string; result: Reply | null }> {
  const db = pooled(em);
  const named = await providerEventsNamed(db, id, opts.provider);
  if (!named.length) throw AppError.notFound('PROVIDER_EVENT_NOT_FOUND', `No provider event "${id}".`);
  if (named.length > 1)
    throw AppError.invalid(
      { provider: ['REQUIRED'] },
      `"${id}" names events of ${named.map((e) => e.provider).join(' and ')}: give --provider.`,
    );
  const [event] = named;
  const commandId = await db.transaction(async (tx) => {
    const submitted = await submitCommand(tx, { integratorId: null, kind: KIND, targetId: event.id });
    await setProviderEventCommand(tx, event.id, submitted);
    return submitted;
  });
  const result = bus.waitFor(commandId, opts.waitMs, () => commandResult(db, commandId));
  await bus.requeue(commandId, KIND).catch((err: unknown) => opts.onQueueError?.(err));
  return { event: providerEventView({ ...event, commandId }), commandId, result: await result };
}
