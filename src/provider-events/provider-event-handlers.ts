/**
 * What acts on each provider event: a map from (provider, event type) to the handler of the
 * module that owns what the event is about (KYC for `identity.verification_session.*`, payouts
 * for `PAYMENT.PAYOUTS-ITEM.*`, card charges for `payment_intent.*`, `charge.*`, refunds for
 * `refund.*`, disputes for `charge.dispute.*`). The modules' handlers are imported here and nowhere else in this module, so a
 * module never imports this one (no folder cycle): a handler is a plain function whose types
 * the module declares itself, structurally equal to `ProviderEventHandler`.
 *
 * A handler runs in its event's command transaction (all its SQL on the `db` it is given), must
 * be idempotent (an event may reach it again after a crash before the commit), answers
 * `applied` or `ignored` (the event changes nothing) — or `{ outcome, next }` when it submitted
 * commands in that transaction for the worker to run next (a payout's `payout.settle`) —, throws
 * an AppError to refuse the event (stored as `failed` with its message, its writes undone) and
 * anything else to have the command retried. An event without a handler is stored and ends
 * `ignored`, and can be replayed (`holdfast provider-events replay`) once its handler exists.
 */
import type { CommandKind } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { applyStripeDisputeEvent } from '../disputes/stripe-dispute-events.js';
import { applyPaymentIntentEvent } from '../invoices/payment-intent-event.handler.js';
import { applyIdentitySessionEvent } from '../kyc/identity-session-events.js';
import { payoutItemEventHandler } from '../payouts/payout-item-event.handler.js';
import { applyRefundEvent } from '../refunds/refund-event.handler.js';
import { handlerPatterns, type Provider, type ProviderEventRecord } from './provider-event.rules.js';

/** What a handler made of its event, and the commands it submitted in the event's transaction (enqueued after the commit). */
export type HandlerAnswer =
  | 'applied'
  | 'ignored'
  | { outcome: 'applied' | 'ignored'; next?: Array<{ commandId: string; kind: CommandKind }> };

/** Acts on one event; see the file's header for its contract. */
export type ProviderEventHandler = (db: Db, event: ProviderEventRecord) => Promise<HandlerAnswer>;

/** The handlers by `<provider> <type pattern>`; a pattern is an event type or a dotted prefix with `.*`. */
const handlers = new Map<string, ProviderEventHandler>();

/** The handler registry; the modules' handlers are registered at the end of this file as they are written. */
export const providerEventHandlers = {
  /** The handler of an event: the one registered for its exact type, else for its longest `prefix.*`. */
  find(provider: Provider, type: string): ProviderEventHandler | undefined {
    for (const pattern of handlerPatterns(type)) {
      const handler = handlers.get(`${provider} ${pattern}`);
      if (handler) return handler;
    }
    return undefined;
  },
  /**
   * Registers a handler for a type or `prefix.*` of a provider; returns what unregisters it.
   * Refuses a pattern that already has one: an event has one handler.
   */
  register(provider: Provider, pattern: string, handler: ProviderEventHandler): () => void {
    const key = `${provider} ${pattern}`;
    if (handlers.has(key)) throw new Error(`provider event handlers: ${key} has a handler already`);
    handlers.set(key, handler);
    return () => {
      if (handlers.get(key) === handler) handlers.delete(key);
    };
  },
};

providerEventHandlers.register('stripe', 'identity.verification_session.*', applyIdentitySessionEvent);
// PayPal's payout item events (SUCCEEDED, FAILED, BLOCKED, DENIED, RETURNED, UNCLAIMED…): the payouts module settles its payout.
providerEventHandlers.register('paypal', 'PAYMENT.PAYOUTS-ITEM.*', payoutItemEventHandler);
// A card Refund's later sights (pending settling, a refund failing after it was taken): its stored snapshot moves forward,
// and a Refund that failed after its part was recorded as gone through is reversed (the refunds module).
providerEventHandlers.register('stripe', 'refund.*', applyRefundEvent);
providerEventHandlers.register('stripe', 'charge.refund.updated', applyRefundEvent);
// A buyer-present card pay awaiting 3-D Secure: these say its PaymentIntent moved; the invoices module settles the invoice (`invoice.confirm`).
for (const type of ['amount_capturable_updated', 'succeeded', 'payment_failed', 'canceled'])
  providerEventHandlers.register('stripe', `payment_intent.${type}`, applyPaymentIntentEvent);
// A card charge's dispute (`created`, `updated`, `closed`, `funds_withdrawn`, `funds_reinstated`): the disputes module opens and moves it.
providerEventHandlers.register('stripe', 'charge.dispute.*', applyStripeDisputeEvent);
