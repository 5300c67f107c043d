/**
 * The Stripe card processor (CARD_PROCESSOR=stripe), through the official `stripe` package.
 * Card data never reaches Holdfast: a card is added from a Stripe PaymentMethod id that Stripe's
 * browser library (or the integrator) collected, attached to the account's one Stripe Customer.
 * A charge is a PaymentIntent, authorized off-session with `capture_method: manual` and captured
 * once the whole pay is decided; a refund is a Refund; a dispute's evidence goes to its Dispute. Every call carries the idempotency key
 * its caller derived from the command and step. A decline is an answer; Stripe unreachable, a
 * timeout, a 5xx, a rate limit or a rejected key throws `CardProviderUnavailable` (retry later).
 */
import Stripe from 'stripe';
import { stripeClient } from './stripe-client.js';
import {
  CardProviderUnavailable,
  cardCallKey,
  REFUND_IDEMPOTENCY_CONFLICT_REASON,
  type AddCardOutcome,
  type Authorization,
  type CardChargeRequest,
  type CardInput,
  type CardOwner,
  type CardProcessor,
  type CardProvider,
  type DisputeUpdateResult,
  type RefundResult,
} from './card-processor.port.js';
import { REFUND_DECLINED_REASON } from './sandbox-card.rules.js';

/** How the adapter reaches Stripe (config's `stripeApi`, and the client's timeout). */
export interface StripeCardOptions {
  secretKey: string;
  host: string;
  port: number;
  protocol: 'http' | 'https';
  /** Per request; a command waits on it, so it stays well under the worker's job lock (default 20 s). */
  timeoutMs?: number;
  /** Where a capture Stripe refused is told, once (the process logger). */
  logger?: RefusalLogger;
}

/** What the adapter logs with: a warning, its fields and its message (pino's shape). */
export interface RefusalLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

type StripeError = InstanceType<typeof Stripe.errors.StripeError>;

/** Whether Stripe could not answer now (down, timed out, 5xx, rate limited, key refused): retry, it is no answer. */
function unavailable(err: unknown): boolean {
  const e = Stripe.errors;
  if (err instanceof e.StripeConnectionError || err instanceof e.StripeRateLimitError || err instanceof e.StripeAPIError) return true;
  if (err instanceof e.StripeAuthenticationError || err instanceof e.StripePermissionError) return true;
  // A request with the same idempotency key still in flight (409 lock) answers once it finishes.
  return err instanceof e.StripeError && ((err.statusCode ?? 0) >= 500 || err.statusCode === 409);
}

/** Runs a call; an outage becomes `CardProviderUnavailable` (its message names the call, never the key). */
async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (unavailable(err)) {
      const e = err as StripeError;
      throw new CardProviderUnavailable(`Stripe could not answer ${what}: ${e.type ?? 'error'}${e.statusCode ? ` ${e.statusCode}` : ''}`);
    }
    throw err;
  }
}

/** Holdfast's reason for a declined charge: today's reasons, and `authentication_required` for a card needing its holder. */
export function declineReason(err: { code?: string; decline_code?: string }): string {
  if (err.code === 'authentication_required' || err.decline_code === 'authentication_required') return 'authentication_required';
  if (err.decline_code === 'insufficient_funds' || err.code === 'insufficient_funds') return 'insufficient_funds';
  return 'card_declined';
}

const plain = (o: unknown) => JSON.parse(JSON.stringify(o)) as Record<string, unknown>;

/** The Stripe card processor: `addCard` attaches PaymentMethods; its provider authorizes, captures, releases and refunds. */
export function stripeCardProcessor(options: StripeCardOptions): CardProcessor {
  // Commands retry with the same idempotency keys: the client itself never retries.
  const stripe = stripeClient(options);

  async function customerOf(owner: CardOwner): Promise<string> {
    if (owner.customerId) return owner.customerId;
    // Keyed by the account: two first cards added at once still make one Customer.
    const customer = await call('a customer', () =>
      stripe.customers.create(
        { metadata: { holdfast_account_id: owner.accountId, holdfast_integrator_id: owner.integratorId } },
        { idempotencyKey: `customer:${owner.accountId}` },
      ),
    );
    return customer.id;
  }

  async function addCard(input: CardInput, owner: CardOwner): Promise<AddCardOutcome> {
    if (input.number !== undefined || input.stripe_payment_method === undefined)
      return {
        ok: false,
        fields: { 'card.number': 'NOT_ALLOWED' },
        message: 'Card numbers never reach Holdfast: add the card as a Stripe PaymentMethod (card.stripe_payment_method).',
      };
    const pmId = input.stripe_payment_method;
    const customerId = await customerOf(owner);
    let pm: Stripe.PaymentMethod;
    try {
      pm = await call('a card', () =>
        stripe.paymentMethods.attach(pmId, { customer: customerId }, { idempotencyKey: `attach:${owner.accountId}:${pmId}` }),
      );
    } catch (err) {
      // Stripe verifies a card when it is attached: a declining card cannot be kept on file.
      if (err instanceof Stripe.errors.StripeCardError)
        return {
          ok: false,
          fields: { 'card.stripe_payment_method': 'DECLINED' },
          message: `Stripe declined the card (${declineReason(err)}).`,
        };
      if (err instanceof Stripe.errors.StripeInvalidRequestError)
        return {
          ok: false,
          fields: { 'card.stripe_payment_method': err.code === 'resource_missing' ? 'NOT_FOUND' : 'INVALID_VALUE' },
          message: 'Stripe does not accept this PaymentMethod for the account.',
        };
      throw err;
    }
    if (pm.type !== 'card' || !pm.card)
      return { ok: false, fields: { 'card.stripe_payment_method': 'NOT_A_CARD' }, message: 'The PaymentMethod is not a card.' };
    return {
      ok: true,
      card: {
        brand: pm.card.brand,
        last4: pm.card.last4,
        exp_month: pm.card.exp_month,
        exp_year: pm.card.exp_year,
        fingerprint: pm.card.fingerprint ?? pm.id,
        pspReference: pm.id,
        details: { processor: 'stripe', customer_id: customerId, stripe_payment_method: pm.id },
      },
    };
  }

  /**
   * A capture or a release, answered with the PaymentIntent. One Stripe refuses (the hold lapsed
   * after seven days, was released or captured already) is answered with the PaymentIntent as
   * Stripe has it now, which says what became of the hold: retrying the same refusal would never
   * end. A refusal that leaves the hold open is no answer: it throws (the command retries).
   */
  async function settled(
    what: 'a capture' | 'a release',
    paymentIntentId: string,
    run: () => Promise<Stripe.PaymentIntent>,
  ): Promise<Record<string, unknown>> {
    try {
      return plain(await run());
    } catch (err) {
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
      const now = await call('a PaymentIntent', () => stripe.paymentIntents.retrieve(paymentIntentId));
      if (now.status === 'requires_capture') throw err;
      // Told once: the intent is stored as it is now, so its command asks Stripe nothing more of it.
      if (now.status !== 'succeeded' && what === 'a capture')
        options.logger?.warn(
          { payment_intent: now.id, status: now.status, cancellation_reason: now.cancellation_reason, stripe_code: err.code },
          'Stripe refused the capture of a paid charge: the purchase stands, the card was not charged (ledger verify names it)',
        );
      return plain(now);
    }
  }

  const provider: CardProvider = {
    async authorize(c: CardChargeRequest): Promise<Authorization> {
      try {
        const intent = await call('a charge', () =>
          stripe.paymentIntents.create(
            {
              amount: c.amount,
              currency: c.currency.toLowerCase(),
              customer: c.card.customer_id as string,
              payment_method: c.card.stripe_payment_method as string,
              // Off-session there is no page to redirect to: no redirect-based methods, no return_url.
              automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
              confirm: true,
              off_session: true,
              capture_method: 'manual',
              description: c.description,
              // The command id lets a sweep finish a hold its command left (its capture or release keys derive from it).
              metadata: { holdfast_ref: c.holdfastRef, holdfast_integrator_id: c.integratorId, holdfast_command_id: c.commandId },
            },
            { idempotencyKey: cardCallKey(c.commandId, 'charge', c.paymentMethodId) },
          ),
        );
        if (intent.status === 'requires_capture' || intent.status === 'succeeded')
          return { ok: true, paymentIntentId: intent.id, snapshot: plain(intent) };
        return {
          ok: false,
          reason: intent.status === 'requires_action' ? 'authentication_required' : 'card_declined',
          paymentIntentId: intent.id,
          snapshot: plain(intent),
        };
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError) {
          const intent = (err.raw as { payment_intent?: { id: string } }).payment_intent;
          return { ok: false, reason: declineReason(err), paymentIntentId: intent?.id ?? null, snapshot: intent ? plain(intent) : null };
        }
        // Stripe refusing the request itself (a PaymentMethod detached or gone): the card cannot pay.
        if (err instanceof Stripe.errors.StripeInvalidRequestError)
          return { ok: false, reason: 'payment_method_unavailable', paymentIntentId: null, snapshot: null };
        throw err;
      }
    },

    /**
     * The buyer-present charge (the hosted checkout): no `off_session`, and the page's
     * `return_url`, so a card needing 3-D Secure answers `requires_action` with Stripe's page for
     * the buyer instead of a decline. Its own way in, so the off-session charge above stays as it is.
     */
    async authorizeOnSession(c: CardChargeRequest, returnUrl: string): Promise<Authorization> {
      try {
        const intent = await call('a charge', () =>
          stripe.paymentIntents.create(
            {
              amount: c.amount,
              currency: c.currency.toLowerCase(),
              customer: c.card.customer_id as string,
              payment_method: c.card.stripe_payment_method as string,
              // The buyer is on the page: 3-D Secure sends them to their bank and back to return_url.
              automatic_payment_methods: { enabled: true },
              return_url: returnUrl,
              confirm: true,
              capture_method: 'manual',
              description: c.description,
              metadata: { holdfast_ref: c.holdfastRef, holdfast_integrator_id: c.integratorId, holdfast_command_id: c.commandId },
            },
            { idempotencyKey: cardCallKey(c.commandId, 'charge', c.paymentMethodId) },
          ),
        );
        if (intent.status === 'requires_capture' || intent.status === 'succeeded')
          return { ok: true, paymentIntentId: intent.id, snapshot: plain(intent) };
        const url = intent.status === 'requires_action' ? intent.next_action?.redirect_to_url?.url : undefined;
        if (url)
          return { ok: false, reason: 'authentication_required', paymentIntentId: intent.id, snapshot: plain(intent), nextActionUrl: url };
        return { ok: false, reason: 'card_declined', paymentIntentId: intent.id, snapshot: plain(intent) };
      } catch (err) {
        if (err instanceof Stripe.errors.StripeCardError) {
          const intent = (err.raw as { payment_intent?: { id: string } }).payment_intent;
          return { ok: false, reason: declineReason(err), paymentIntentId: intent?.id ?? null, snapshot: intent ? plain(intent) : null };
        }
        if (err instanceof Stripe.errors.StripeInvalidRequestError)
          return { ok: false, reason: 'payment_method_unavailable', paymentIntentId: null, snapshot: null };
        throw err;
      }
    },

    async retrieve(paymentIntentId: string) {
      return plain(await call('a charge', () => stripe.paymentIntents.retrieve(paymentIntentId)));
    },

    async capture(paymentIntentId: string, key: string) {
      return settled('a capture', paymentIntentId, () =>
        call('a capture', () => stripe.paymentIntents.capture(paymentIntentId, {}, { idempotencyKey: key })),
      );
    },

    async cancel(paymentIntentId: string, key: string) {
      return settled('a release', paymentIntentId, () =>
        call('a release', () => stripe.paymentIntents.cancel(paymentIntentId, {}, { idempotencyKey: key })),
      );
    },

    async refund(paymentIntentId: string, amount: number, key: string): Promise<RefundResult> {
      try {
        const refund = await call('a refund', () =>
          stripe.refunds.create({ payment_intent: paymentIntentId, amount }, { idempotencyKey: key }),
        );
        if (refund.status === 'failed' || refund.status === 'canceled')
          return { ok: false, reason: REFUND_DECLINED_REASON, refundId: refund.id, snapshot: plain(refund) };
        return { ok: true, refundId: refund.id, snapshot: plain(refund) };
      } catch (err) {
        // The key used before with other parameters: an answer (the refund fails, for an operator), never a retry.
        if (err instanceof Stripe.errors.StripeIdempotencyError)
          return { ok: false, reason: REFUND_IDEMPOTENCY_CONFLICT_REASON, refundId: null, snapshot: null };
        // Stripe refusing the refund (the charge already refunded, disputed, …) is a failed refund, not an outage.
        if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError)
          return { ok: false, reason: REFUND_DECLINED_REASON, refundId: null, snapshot: null };
        throw err;
      }
    },

    async updateDispute(disputeId: string, evidence: Record<string, string>, submit: boolean, key: string): Promise<DisputeUpdateResult> {
      try {
        const dispute = await call('a dispute update', () =>
          stripe.disputes.update(disputeId, { evidence, submit }, { idempotencyKey: key }),
        );
        return { ok: true, snapshot: plain(dispute) };
      } catch (err) {
        // Stripe refusing the update (a dispute closed or already submitted, a field it will not take) is an answer.
        if (err instanceof Stripe.errors.StripeInvalidRequestError) return { ok: false, reason: err.code ?? 'invalid_request' };
        throw err;
      }
    },
  };

  return {
    name: 'stripe',
    addCard,
    // The provider decides: authorizations before a pay's decision, the refund call itself.
    chargeFailure: () => undefined,
    refundFailure: () => undefined,
    provider,
  };
}
