import { docUrl, StripeError } from './stripe-error.js';
import { fingerprint, stripeId } from './stripe-ids.js';
import { type TestCard, testCardByNumber, testCardByToken } from './test-cards.js';
import type { StripeEvent, WebhookSender } from './webhook-sender.js';

type Obj = Record<string, any>;
type Params = Record<string, any>;

/** The request an operation runs for: it goes into the `request` of the events it causes. */
export interface RequestContext {
  requestId: string;
  idempotencyKey: string | null;
  /** The caller used a publishable key (the browser library): only the client-side operations are open. */
  publishable: boolean;
}

/** The identity outcomes a test can move a VerificationSession to. */
export type IdentityOutcome = 'processing' | 'verified' | 'requires_input' | 'canceled';

const now = () => Math.floor(Date.now() / 1000);
const CANCELABLE = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];

/**
 * The objects and life cycles of the Stripe resources the fake serves — Customers, PaymentMethods,
 * PaymentIntents (with their Charges), Refunds, Disputes, Identity VerificationSessions — written from
 * Stripe's OpenAPI description (operation parameters, object fields, status enums, event types).
 */
export class StripeApi {
  readonly customers = new Map<string, Obj>();
  readonly paymentMethods = new Map<string, Obj>();
  readonly paymentIntents = new Map<string, Obj>();
  readonly charges = new Map<string, Obj>();
  readonly refunds = new Map<string, Obj>();
  readonly verificationSessions = new Map<string, Obj>();
  readonly disputes = new Map<string, Obj>();
  private readonly cards = new Map<string, TestCard>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly webhooks: WebhookSender,
    private readonly baseUrl: () => string,
    private readonly refundFailureDelayMs: number,
  ) {}

  // Customers

  /** POST /v1/customers */
  createCustomer(p: Params, ctx: RequestContext): Obj {
    if (p.payment_method) this.assertAttachable(this.paymentMethod(p.payment_method));
    const customer: Obj = {
      id: stripeId('cus', 14),
      object: 'customer',
      address: null,
      balance: 0,
      created: now(),
      currency: null,
      default_source: null,
      delinquent: false,
      description: p.description ?? null,
      discount: null,
      email: p.email ?? null,
      invoice_prefix: stripeId('x', 8).slice(2).toUpperCase(),
      invoice_settings: { custom_fields: null, default_payment_method: null, footer: null, rendering_options: null },
      livemode: false,
      metadata: p.metadata ?? {},
      name: p.name ?? null,
      next_invoice_sequence: 1,
      phone: p.phone ?? null,
      preferred_locales: [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: null,
    };
    this.customers.set(customer.id, customer);
    this.emit('customer.created', customer, ctx);
    if (p.invoice_settings?.default_payment_method)
      customer.invoice_settings.default_payment_method = p.invoice_settings.default_payment_method;
    if (p.payment_method) this.attachPaymentMethod(p.payment_method, { customer: customer.id }, ctx);
    return customer;
  }

  /** GET /v1/customers/{customer} */
  customer(id: string): Obj {
    const customer = this.customers.get(id);
    if (!customer) throw StripeError.missing('customer', id);
    return customer;
  }

  // PaymentMethods

  /** POST /v1/payment_methods — the browser library's `createPaymentMethod` (card details with a publishable key). */
  createPaymentMethod(p: Params, ctx: RequestContext): Obj {
    if (p.type !== 'card') throw StripeError.invalid('The fake only creates PaymentMethods of type card.', 'type');
    const number = String(p.card?.number ?? '');
    if (!ctx.publishable) {
      // Stripe refuses raw card numbers from a server unless the account is specially enabled.
      throw StripeError.invalid(
        'Sending credit card numbers directly to the Stripe API is generally unsafe. Collect them with Stripe.js instead.',
        'card[number]',
      );
    }
    const card = testCardByNumber(number);
    if (!card) {
      throw new StripeError(402, {
        type: 'card_error',
        code: 'incorrect_number',
        message: 'Your card number is incorrect.',
        param: 'number',
      });
    }
    const pm = this.newPaymentMethod(card, {
      exp_month: Number(p.card?.exp_month) || 12,
      exp_year: Number(p.card?.exp_year) || new Date().getUTCFullYear() + 1,
    });
    if (p.billing_details) Object.assign(pm.billing_details, p.billing_details);
    if (p.metadata) pm.metadata = p.metadata;
    return pm;
  }

  /** GET /v1/payment_methods/{payment_method}: a test id (`pm_card_visa`) gives a fresh PaymentMethod, as Stripe does. */
  paymentMethod(id: string): Obj {
    const known = this.paymentMethods.get(id);
    if (known) return known;
    const card = testCardByToken(id);
    if (!card) throw StripeError.missing('PaymentMethod', id, 'payment_method');
    return this.newPaymentMethod(card);
  }

  /** POST /v1/payment_methods/{payment_method}/attach */
  attachPaymentMethod(id: string, p: Params, ctx: RequestContext): Obj {
    if (!p.customer) throw StripeError.invalid('Missing required param: customer.', 'customer', 'parameter_missing');
    const customer = this.customer(p.customer);
    const pm = this.paymentMethod(id);
    if (pm.customer && pm.customer !== customer.id) {
      throw StripeError.invalid('The payment method you provided has already been attached to a customer.', 'payment_method');
    }
    if (pm.customer === customer.id) return pm;
    this.assertAttachable(pm);
    pm.customer = customer.id;
    this.emit('payment_method.attached', pm, ctx);
    return pm;
  }

  /** Stripe's documented declining test cards "can't be attached to a Customer object": attaching answers the decline. */
  private assertAttachable(pm: Obj): void {
    const card = this.cards.get(pm.id);
    if (!card?.declinesAttach || card.charge.kind !== 'decline') return;
    throw new StripeError(
      402,
      {
        type: 'card_error',
        code: card.charge.code,
        decline_code: card.charge.declineCode,
        message: card.charge.message,
        doc_url: docUrl(card.charge.code),
      },
      true,
    );
  }

  /** POST /v1/payment_methods/{payment_method}/detach */
  detachPaymentMethod(id: string, ctx: RequestContext): Obj {
    const pm = this.paymentMethods.get(id);
    if (!pm) throw StripeError.missing('PaymentMethod', id, 'payment_method');
    if (!pm.customer) {
      throw StripeError.invalid(`The payment method ${id} is not attached to a customer so detachment is impossible.`, 'payment_method');
    }
    const previous = { customer: pm.customer };
    pm.customer = null;
    this.emit('payment_method.detached', pm, ctx, previous);
    return pm;
  }

  /** GET /v1/payment_methods?customer= and GET /v1/customers/{customer}/payment_methods: newest first. */
  listPaymentMethods(customer: string | undefined, p: Params): Obj {
    if (!customer) throw StripeError.invalid('Missing required param: customer.', 'customer', 'parameter_missing');
    this.customer(customer);
    const limit = Math.min(Math.max(Number(p.limit ?? 10) || 10, 1), 100);
    const all = [...this.paymentMethods.values()].filter((pm) => pm.customer === customer && (!p.type || pm.type === p.type)).reverse();
    return { object: 'list', data: all.slice(0, limit), has_more: all.length > limit, url: `/v1/customers/${customer}/payment_methods` };
  }

  private newPaymentMethod(card: TestCard, exp?: { exp_month: number; exp_year: number }): Obj {
    const pm: Obj = {
      id: stripeId('pm'),
      object: 'payment_method',
      allow_redisplay: 'unspecified',
      billing_details: {
        address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
        email: null,
        name: null,
        phone: null,
      },
      card: {
        brand: card.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'unchecked' },
        country: card.country,
        display_brand: card.brand,
        exp_month: exp?.exp_month ?? 12,
        exp_year: exp?.exp_year ?? new Date().getUTCFullYear() + 1,
        fingerprint: fingerprint(card.number),
        funding: card.funding,
        generated_from: null,
        last4: card.number.slice(-4),
        networks: { available: [card.brand], preferred: null },
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: now(),
      customer: null,
      livemode: false,
      metadata: {},
      type: 'card',
    };
    this.paymentMethods.set(pm.id, pm);
    this.cards.set(pm.id, card);
    return pm;
  }

  // PaymentIntents

  /** POST /v1/payment_intents */
  createPaymentIntent(p: Params, ctx: RequestContext): Obj {
    const amount = integerParam(p.amount, 'amount');
    if (!p.currency) throw StripeError.invalid('Missing required param: currency.', 'currency', 'parameter_missing');
    const currency = String(p.currency).toLowerCase();
    if (!/^[a-z]{3}$/.test(currency)) throw StripeError.invalid(`Invalid currency: ${currency}.`, 'currency', 'parameter_invalid_string');
    if (amount < 1) throw StripeError.invalid('This value must be greater than or equal to 1.', 'amount');
    const minimum = MINIMUM_CHARGE[currency];
    if (minimum && amount < minimum[0]) {
      throw StripeError.invalid(`Amount must be at least ${minimum[1]} ${currency}`, 'amount', 'amount_too_small');
    }
    if (p.customer) this.customer(p.customer);
    const confirm = bool(p.confirm);
    if (p.off_session !== undefined && !confirm) {
      throw StripeError.invalid(
        'You may only specify `off_session` when confirming this PaymentIntent (with `confirm=true`).',
        'off_session',
      );
    }
    const captureMethod = p.capture_method ?? 'automatic';
    if (!['automatic', 'automatic_async', 'manual'].includes(captureMethod)) {
      throw StripeError.invalid(`Invalid capture_method: must be one of automatic, automatic_async, or manual`, 'capture_method');
    }
    const methods = paymentMethodChoice(p);
    if (confirm) requireReturnUrl(methods.automatic_payment_methods, p.return_url);
    const pm = p.payment_method ? this.usablePaymentMethod(p.payment_method, p.customer) : undefined;
    const id = stripeId('pi');
    const intent: Obj = {
      id,
      object: 'payment_intent',
      amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: methods.automatic_payment_methods,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: captureMethod,
      client_secret: `${id}_secret_${stripeId('x', 25).slice(2)}`,
      confirmation_method: 'automatic',
      created: now(),
      currency,
      customer: p.customer ?? null,
      description: p.description ?? null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      metadata: p.metadata ?? {},
      next_action: null,
      on_behalf_of: null,
      payment_method: pm?.id ?? null,
      payment_method_configuration_details: null,
      payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
      payment_method_types: methods.payment_method_types,
      processing: null,
      receipt_email: p.receipt_email ?? null,
      review: null,
      setup_future_usage: p.setup_future_usage ?? null,
      shipping: null,
      statement_descriptor: p.statement_descriptor ?? null,
      statement_descriptor_suffix: p.statement_descriptor_suffix ?? null,
      status: pm ? 'requires_confirmation' : 'requires_payment_method',
      transfer_data: null,
      transfer_group: null,
    };
    this.paymentIntents.set(id, intent);
    this.emit('payment_intent.created', intent, ctx);
    if (confirm) return this.confirmIntent(intent, { off_session: p.off_session, return_url: p.return_url }, ctx);
    return intent;
  }

  /** GET /v1/payment_intents/{intent} (with a publishable key, only with the intent's `client_secret`). */
  paymentIntent(id: string, p: Params = {}, ctx?: RequestContext): Obj {
    const intent = this.paymentIntents.get(id);
    if (!intent || (ctx?.publishable && p.client_secret !== intent.client_secret))
      throw StripeError.missing('payment_intent', id, 'intent');
    return intent;
  }

  /** POST /v1/payment_intents/{intent}: metadata (merged; an empty value removes a key), description, amount, payment_method. */
  updatePaymentIntent(id: string, p: Params): Obj {
    const intent = this.paymentIntent(id);
    if (p.amount !== undefined || p.payment_method !== undefined) {
      if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(intent.status)) {
        throw StripeError.unexpectedState(
          'payment_intent_unexpected_state',
          `You cannot update this PaymentIntent because it has a status of ${intent.status}.`,
        );
      }
    }
    if (p.amount !== undefined) intent.amount = integerParam(p.amount, 'amount');
    if (p.payment_method !== undefined) {
      intent.payment_method = this.usablePaymentMethod(p.payment_method, intent.customer).id;
      intent.status = 'requires_confirmation';
    }
    if (p.description !== undefined) intent.description = p.description || null;
    if (p.metadata !== undefined) {
      for (const [k, v] of Object.entries(p.metadata as Record<string, string>)) {
        if (v === '') delete intent.metadata[k];
        else intent.metadata[k] = v;
      }
    }
    return intent;
  }

  /** POST /v1/payment_intents/{intent}/confirm */
  confirmPaymentIntent(id: string, p: Params, ctx: RequestContext): Obj {
    const intent = this.paymentIntent(id, p, ctx);
    if (!['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(intent.status)) {
      throw StripeError.unexpectedState(
        'payment_intent_unexpected_state',
        `You cannot confirm this PaymentIntent because it has a status of ${intent.status}.`,
      );
    }
    if (p.payment_method) intent.payment_method = this.usablePaymentMethod(p.payment_method, intent.customer).id;
    if (p.capture_method) intent.capture_method = p.capture_method;
    if (!intent.payment_method) {
      throw StripeError.unexpectedState(
        'payment_intent_unexpected_state',
        "You cannot confirm this PaymentIntent because it's missing a payment method. Update the PaymentIntent with a payment method and then confirm it again.",
      );
    }
    requireReturnUrl(intent.automatic_payment_methods, p.return_url);
    return this.confirmIntent(intent, p, ctx);
  }

  /** POST /v1/payment_intents/{intent}/cancel */
  cancelPaymentIntent(id: string, p: Params, ctx: RequestContext): Obj {
    const intent = this.paymentIntent(id);
    if (!CANCELABLE.includes(intent.status)) {
      throw StripeError.unexpectedState(
        'payment_intent_unexpected_state',
        `You cannot cancel this PaymentIntent because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${CANCELABLE.join(', ')}.`,
      );
    }
    this.release(intent, p.cancellation_reason ?? null, ctx, 'charge.refunded');
    return intent;
  }

  /** POST /v1/payment_intents/{intent}/capture: all or part (`amount_to_capture`) of an authorization; the rest is released. */
  capturePaymentIntent(id: string, p: Params, ctx: RequestContext): Obj {
    const intent = this.paymentIntent(id);
    if (intent.status !== 'requires_capture') {
      throw StripeError.unexpectedState(
        'payment_intent_unexpected_state',
        `This PaymentIntent could not be captured because it has a status of ${intent.status}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
      );
    }
    const amount = p.amount_to_capture === undefined ? intent.amount_capturable : integerParam(p.amount_to_capture, 'amount_to_capture');
    if (amount < 1 || amount > intent.amount_capturable) {
      throw StripeError.invalid(
        `The amount_to_capture (${amount}) must be positive and at most the amount_capturable (${intent.amount_capturable}).`,
        'amount_to_capture',
        'amount_too_large',
      );
    }
    const charge = this.charges.get(intent.latest_charge)!;
    const previous = { amount_captured: charge.amount_captured, captured: false };
    Object.assign(charge, {
      captured: true,
      amount_captured: amount,
      // The part not captured is released, which Stripe shows as refunded on the charge.
      amount_refunded: charge.amount - amount,
      balance_transaction: stripeId('txn'),
    });
    if (p.metadata) Object.assign(intent.metadata, p.metadata);
    Object.assign(intent, { status: 'succeeded', amount_capturable: 0, amount_received: amount });
    this.emit('charge.captured', charge, ctx, previous);
    this.emit('payment_intent.succeeded', intent, ctx);
    return intent;
  }

  /** Lets an uncaptured authorization lapse, as Stripe does after seven days: canceled `automatic`, `charge.expired`. */
  expireAuthorization(id: string): Obj {
    const intent = this.paymentIntent(id);
    if (intent.status !== 'requires_capture') {
      throw StripeError.unexpectedState(
        'payment_intent_unexpected_state',
        `This PaymentIntent has a status of ${intent.status}, not requires_capture.`,
      );
    }
    this.release(intent, 'automatic', { requestId: '', idempotencyKey: null, publishable: false }, 'charge.expired');
    return intent;
  }

  private release(intent: Obj, reason: string | null, ctx: RequestContext, chargeEvent: 'charge.refunded' | 'charge.expired'): void {
    const wasAuthorized = intent.status === 'requires_capture';
    Object.assign(intent, { status: 'canceled', canceled_at: now(), cancellation_reason: reason, next_action: null, amount_capturable: 0 });
    if (wasAuthorized) {
      // Canceling an authorization gives the capturable amount back: the charge shows it refunded.
      const charge = this.charges.get(intent.latest_charge)!;
      Object.assign(charge, { amount_refunded: charge.amount, refunded: true });
      this.emit(chargeEvent, charge, ctx);
    }
    this.emit('payment_intent.canceled', intent, ctx);
  }

  /** Finishes (or fails) the 3-D Secure challenge of an intent in `requires_action`, as the buyer would on the issuer's page. */
  completeAuthentication(id: string, outcome: 'complete' | 'fail', ctx: RequestContext): Obj {
    const intent = this.paymentIntent(id);
    if (intent.status !== 'requires_action') {
      throw StripeError.unexpectedState(
        'payment_intent_unexpected_state',
        `This PaymentIntent has a status of ${intent.status}, not requires_action.`,
      );
    }
    intent.next_action = null;
    const pm = this.paymentMethods.get(intent.payment_method)!;
    const card = this.cards.get(pm.id)!;
    if (outcome === 'complete' && card.charge.kind === 'authenticate' && card.charge.afterwards) {
      try {
        this.decline(intent, pm, ctx, card.charge.afterwards);
      } catch (e) {
        if (!(e instanceof StripeError)) throw e;
      }
      return intent;
    }
    if (outcome === 'complete') return this.succeed(intent, pm, ctx, true);
    const error = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      doc_url: 'https://stripe.com/docs/error-codes/payment-intent-authentication-failure',
      message:
        'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
      payment_method: structuredClone(pm),
    };
    Object.assign(intent, { status: 'requires_payment_method', last_payment_error: error, payment_method: null });
    this.emit('payment_intent.payment_failed', intent, ctx);
    return intent;
  }

  private usablePaymentMethod(id: string, customer: string | null | undefined): Obj {
    const pm = this.paymentMethod(id);
    if (pm.customer && customer && pm.customer !== customer) {
      throw StripeError.invalid(`The provided PaymentMethod ${pm.id} belongs to a different Customer.`, 'payment_method');
    }
    return pm;
  }

  private confirmIntent(intent: Obj, p: Params, ctx: RequestContext): Obj {
    const pm = this.paymentMethods.get(intent.payment_method)!;
    const card = this.cards.get(pm.id)!;
    const offSession = bool(p.off_session);
    intent.last_payment_error = null;
    if (card.charge.kind === 'succeed') return this.succeed(intent, pm, ctx, false);
    if (card.charge.kind === 'decline') {
      return this.decline(intent, pm, ctx, { code: card.charge.code, declineCode: card.charge.declineCode, message: card.charge.message });
    }
    if (offSession) {
      return this.decline(intent, pm, ctx, {
        code: 'authentication_required',
        declineCode: 'authentication_required',
        message: 'Your card was declined. This transaction requires authentication.',
      });
    }
    const returnUrl = p.return_url ?? null;
    Object.assign(intent, {
      status: 'requires_action',
      next_action: {
        type: 'redirect_to_url',
        redirect_to_url: { url: `${this.baseUrl()}/3ds/${intent.id}`, return_url: returnUrl },
      },
    });
    this.emit('payment_intent.requires_action', intent, ctx);
    return intent;
  }

  private succeed(intent: Obj, pm: Obj, ctx: RequestContext, authenticated: boolean): Obj {
    const manual = intent.capture_method === 'manual';
    const charge = this.newCharge(intent, pm, { paid: true, authenticated, captured: !manual });
    intent.latest_charge = charge.id;
    intent.next_action = null;
    this.emit('charge.succeeded', charge, ctx);
    if (manual) {
      Object.assign(intent, { status: 'requires_capture', amount_capturable: intent.amount });
      this.emit('payment_intent.amount_capturable_updated', intent, ctx);
      return intent;
    }
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount });
    this.emit('payment_intent.succeeded', intent, ctx);
    return intent;
  }

  private decline(intent: Obj, pm: Obj, ctx: RequestContext, d: { code: string; declineCode?: string; message: string }): never {
    const charge = this.newCharge(intent, pm, { paid: false, authenticated: false, failure: d });
    const error = {
      type: 'card_error' as const,
      code: d.code,
      decline_code: d.declineCode,
      message: d.message,
      charge: charge.id,
      doc_url: `https://stripe.com/docs/error-codes/${d.code.replace(/_/g, '-')}`,
    };
    Object.assign(intent, {
      status: 'requires_payment_method',
      latest_charge: charge.id,
      last_payment_error: { ...error, payment_method: structuredClone(pm) },
      payment_method: null,
    });
    this.emit('charge.failed', charge, ctx);
    this.emit('payment_intent.payment_failed', intent, ctx);
    throw new StripeError(
      402,
      { ...error, payment_intent: structuredClone(intent), payment_method: structuredClone(pm), param: undefined },
      true,
    );
  }

  private newCharge(
    intent: Obj,
    pm: Obj,
    o: { paid: boolean; authenticated: boolean; captured?: boolean; failure?: { code: string; declineCode?: string; message: string } },
  ): Obj {
    const id = stripeId('ch');
    const charge: Obj = {
      id,
      object: 'charge',
      amount: intent.amount,
      amount_captured: o.paid && o.captured !== false ? intent.amount : 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: o.paid && o.captured !== false ? stripeId('txn') : null,
      billing_details: structuredClone(pm.billing_details),
      calculated_statement_descriptor: 'HOLDFAST',
      captured: o.paid && o.captured !== false,
      created: now(),
      currency: intent.currency,
      customer: intent.customer,
      description: intent.description,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: o.failure?.code ?? null,
      failure_message: o.failure?.message ?? null,
      fraud_details: {},
      livemode: false,
      metadata: structuredClone(intent.metadata),
      on_behalf_of: null,
      outcome: o.paid
        ? {
            network_status: 'approved_by_network',
            reason: null,
            risk_level: 'normal',
            risk_score: 20,
            seller_message: 'Payment complete.',
            type: 'authorized',
          }
        : {
            network_status: 'declined_by_network',
            reason: o.failure?.declineCode ?? null,
            risk_level: 'normal',
            risk_score: 20,
            seller_message: 'The bank did not return any further details with this decline.',
            type: 'issuer_declined',
          },
      paid: o.paid,
      payment_intent: intent.id,
      payment_method: pm.id,
      payment_method_details: {
        card: {
          amount_authorized: o.paid ? intent.amount : null,
          brand: pm.card.brand,
          checks: pm.card.checks,
          country: pm.card.country,
          exp_month: pm.card.exp_month,
          exp_year: pm.card.exp_year,
          fingerprint: pm.card.fingerprint,
          funding: pm.card.funding,
          last4: pm.card.last4,
          network: pm.card.brand,
          three_d_secure: o.authenticated ? { authentication_flow: 'challenge', result: 'authenticated', version: '2.2.0' } : null,
        },
        type: 'card',
      },
      receipt_email: intent.receipt_email,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      refunds: { object: 'list', data: [], has_more: false, total_count: 0, url: `/v1/charges/${id}/refunds` },
      review: null,
      shipping: null,
      source_transfer: null,
      statement_descriptor: null,
      statement_descriptor_suffix: null,
      status: o.paid ? 'succeeded' : 'failed',
      transfer_data: null,
      transfer_group: null,
    };
    this.charges.set(id, charge);
    return charge;
  }

  /** GET /v1/charges/{charge} */
  charge(id: string): Obj {
    const charge = this.charges.get(id);
    if (!charge) throw StripeError.missing('charge', id, 'charge');
    return charge;
  }

  // Refunds

  /** POST /v1/refunds */
  createRefund(p: Params, ctx: RequestContext): Obj {
    let charge: Obj;
    if (p.payment_intent) {
      const intent = this.paymentIntents.get(p.payment_intent);
      if (!intent) throw StripeError.missing('payment_intent', p.payment_intent, 'payment_intent');
      if (intent.status !== 'succeeded' || !intent.latest_charge) {
        throw StripeError.invalid(
          `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
          'payment_intent',
          'charge_not_refundable',
        );
      }
      charge = this.charges.get(intent.latest_charge)!;
    } else if (p.charge) {
      charge = this.charge(p.charge);
    } else {
      throw StripeError.invalid(
        'One of the following params should be provided for this request: payment_intent or charge.',
        undefined,
        'parameter_missing',
      );
    }
    const remaining = charge.amount - charge.amount_refunded;
    const amount = p.amount === undefined ? remaining : integerParam(p.amount, 'amount');
    if (remaining <= 0) {
      throw StripeError.unexpectedState('charge_already_refunded', `Charge ${charge.id} has already been refunded.`);
    }
    if (amount < 1) throw StripeError.invalid('This value must be greater than or equal to 1.', 'amount');
    if (amount > remaining) {
      throw StripeError.invalid(
        `Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`,
        'amount',
        'amount_too_large',
      );
    }
    const refund: Obj = {
      id: stripeId('re'),
      object: 'refund',
      amount,
      balance_transaction: stripeId('txn'),
      charge: charge.id,
      created: now(),
      currency: charge.currency,
      destination_details: {
        card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' },
        type: 'card',
      },
      metadata: p.metadata ?? {},
      payment_intent: charge.payment_intent,
      reason: p.reason ?? null,
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    };
    const card = this.cards.get(charge.payment_method);
    if (card?.refund === 'pending-then-succeeds') Object.assign(refund, { status: 'pending', pending_reason: 'processing' });
    this.refunds.set(refund.id, refund);
    charge.amount_refunded += amount;
    charge.refunded = charge.amount_refunded === charge.amount;
    charge.refunds.data.unshift(refund);
    charge.refunds.total_count += 1;
    this.emit('refund.created', refund, ctx);
    this.emit('charge.refunded', charge, ctx);
    if (card?.refund === 'fails-later') this.later(() => this.failRefund(refund.id), this.refundFailureDelayMs);
    if (card?.refund === 'pending-then-succeeds') this.later(() => this.settleRefund(refund.id), this.refundFailureDelayMs);
    return refund;
  }

  /** GET /v1/refunds/{refund} */
  refund(id: string): Obj {
    const refund = this.refunds.get(id);
    if (!refund) throw StripeError.missing('refund', id, 'refund');
    return refund;
  }

  /** Settles a pending refund as succeeded, as Stripe does later for `pm_card_pendingRefund`. */
  settleRefund(id: string): Obj {
    const refund = this.refund(id);
    if (refund.status !== 'pending') return refund;
    const previous = { status: refund.status };
    refund.status = 'succeeded';
    refund.pending_reason = null;
    const ctx: RequestContext = { requestId: '', idempotencyKey: null, publishable: false };
    this.emit('refund.updated', refund, ctx, previous);
    this.emit('charge.refund.updated', refund, ctx, previous);
    return refund;
  }

  /** Fails a refund after the fact, as Stripe does for a card that cannot take one back (`pm_card_refundFail`). */
  failRefund(id: string, reason = 'expired_or_canceled_card'): Obj {
    const refund = this.refund(id);
    if (refund.status === 'failed') return refund;
    const previous = { status: refund.status };
    Object.assign(refund, { status: 'failed', failure_reason: reason, failure_balance_transaction: stripeId('txn') });
    const charge = this.charges.get(refund.charge)!;
    charge.amount_refunded -= refund.amount;
    charge.refunded = false;
    const ctx: RequestContext = { requestId: '', idempotencyKey: null, publishable: false };
    this.emit('refund.updated', refund, ctx, previous);
    this.emit('charge.refund.updated', refund, ctx, previous);
    this.emit('refund.failed', refund, ctx, previous);
    return refund;
  }

  // Disputes

  /**
   * Opens a dispute on a PaymentIntent's charge, as a card network's notice reaches Stripe:
   * `charge.dispute.created` (status `needs_response`, or `warning_needs_response` for an
   * inquiry), the charge marked `disputed`. Its object carries no balance transaction yet: the
   * withdrawal is `withdrawDisputeFunds` (`charge.dispute.funds_withdrawn`), which a chargeback
   * has and an inquiry does not.
   */
  openDispute(paymentIntentId: string, o: { reason?: string; amount?: number; inquiry?: boolean; dueInDays?: number } = {}): Obj {
    const intent = this.paymentIntents.get(paymentIntentId);
    if (!intent?.latest_charge) throw new Error(`stripe fake: ${paymentIntentId} has no charge to dispute`);
    const charge = this.charges.get(intent.latest_charge)!;
    if (!charge.captured) throw new Error(`stripe fake: the charge of ${paymentIntentId} was not captured`);
    const created = now();
    const dispute: Obj = {
      id: stripeId('dp'),
      object: 'dispute',
      amount: o.amount ?? charge.amount_captured - charge.amount_refunded,
      balance_transactions: [],
      charge: charge.id,
      created,
      currency: charge.currency,
      enhanced_eligibility_types: [],
      evidence: Object.fromEntries(DISPUTE_EVIDENCE_FIELDS.map((f) => [f, null])),
      evidence_details: {
        due_by: created + (o.dueInDays ?? 7) * 86_400,
        enhanced_eligibility: {},
        has_evidence: false,
        past_due: false,
        submission_count: 0,
        submission_method: 'not_submitted',
      },
      intended_submission_method: null,
      is_charge_refundable: !!o.inquiry,
      livemode: false,
      metadata: {},
      network_reason_code: o.inquiry ? null : '10.4',
      payment_intent: intent.id,
      payment_method_details: {
        card: {
          brand: charge.payment_method_details.card.brand,
          case_type: o.inquiry ? 'inquiry' : 'chargeback',
          network_reason_code: null,
        },
        type: 'card',
      },
      reason: o.reason ?? 'fraudulent',
      status: o.inquiry ? 'warning_needs_response' : 'needs_response',
    };
    this.disputes.set(dispute.id, dispute);
    charge.disputed = true;
    this.emit('charge.dispute.created', dispute, NO_REQUEST);
    return dispute;
  }

  /**
   * The cardholder's bank escalates an inquiry to a chargeback, on the same dispute object: its
   * status becomes `needs_response` with a new deadline (`charge.dispute.updated`); the withdrawal
   * follows with `withdrawDisputeFunds`.
   */
  escalateInquiry(id: string, dueInDays = 7): Obj {
    const dispute = this.dispute(id);
    if (!['warning_needs_response', 'warning_under_review'].includes(dispute.status))
      throw new Error(`stripe fake: ${id} is no open inquiry (${dispute.status})`);
    const previous = { status: dispute.status };
    dispute.status = 'needs_response';
    dispute.is_charge_refundable = false;
    dispute.network_reason_code = '10.4';
    dispute.payment_method_details.card.case_type = 'chargeback';
    dispute.evidence_details.due_by = now() + dueInDays * 86_400;
    this.emit('charge.dispute.updated', dispute, NO_REQUEST, previous);
    return dispute;
  }

  /** Stripe takes the disputed amount and its fee from the balance: a withdrawal, `charge.dispute.funds_withdrawn`. */
  withdrawDisputeFunds(id: string, fee = 1500): Obj {
    const dispute = this.dispute(id);
    if (dispute.balance_transactions.some((t: Obj) => t.amount < 0)) return dispute;
    dispute.balance_transactions.push(this.disputeTransaction(dispute, -dispute.amount, fee, 'dispute', 'Chargeback withdrawal'));
    this.emit('charge.dispute.funds_withdrawn', dispute, NO_REQUEST);
    return dispute;
  }

  /**
   * The network decides: `won` (a chargeback's withdrawn amount comes back: a reinstatement,
   * `charge.dispute.funds_reinstated` after `charge.dispute.closed`), `lost`, or for an inquiry
   * `warning_closed`.
   */
  closeDisputeAs(id: string, outcome: 'won' | 'lost' | 'warning_closed'): Obj {
    const dispute = this.dispute(id);
    if (CLOSED_DISPUTE.includes(dispute.status)) return dispute;
    const previous = { status: dispute.status };
    dispute.status = outcome;
    dispute.evidence_details.past_due = false;
    dispute.is_charge_refundable = false;
    const withdrawn = dispute.balance_transactions.some((t: Obj) => t.amount < 0);
    const reinstated = dispute.balance_transactions.some((t: Obj) => t.amount > 0);
    if (outcome === 'won' && withdrawn && !reinstated) {
      dispute.balance_transactions.push(this.disputeTransaction(dispute, dispute.amount, 0, 'dispute_reversal', 'Chargeback reversal'));
    }
    this.emit('charge.dispute.closed', dispute, NO_REQUEST, previous);
    if (outcome === 'won' && withdrawn && !reinstated) this.emit('charge.dispute.funds_reinstated', dispute, NO_REQUEST);
    return dispute;
  }

  /** GET /v1/disputes/{dispute} */
  dispute(id: string): Obj {
    const dispute = this.disputes.get(id);
    if (!dispute) throw StripeError.missing('dispute', id, 'dispute');
    return dispute;
  }

  /**
   * POST /v1/disputes/{dispute}: stages evidence (text fields; an empty string clears one) and
   * metadata, and with `submit=true` (the default when omitted is true in Stripe's API too)
   * submits it: `needs_response` → `under_review`. A closed dispute, or one already under
   * review, takes no evidence.
   */
  updateDispute(id: string, p: Params, ctx: RequestContext): Obj {
    const dispute = this.dispute(id);
    if (CLOSED_DISPUTE.includes(dispute.status)) {
      throw StripeError.unexpectedState('charge_dispute_closed', `This dispute (${id}) is already closed and can no longer be updated.`);
    }
    if (p.evidence !== undefined && !dispute.status.endsWith('needs_response')) {
      throw StripeError.unexpectedState(
        'charge_dispute_submitted',
        `The evidence of this dispute (${id}) was submitted already and can no longer be changed.`,
      );
    }
    const evidence = p.evidence ?? {};
    if (typeof evidence !== 'object' || Array.isArray(evidence)) throw StripeError.invalid('Invalid hash', 'evidence');
    let total = 0;
    for (const [field, value] of Object.entries(evidence)) {
      if (!DISPUTE_EVIDENCE_FIELDS.includes(field))
        throw StripeError.invalid(`Received unknown parameter: evidence[${field}]`, `evidence[${field}]`);
      if (typeof value !== 'string') throw StripeError.invalid(`Invalid string: evidence[${field}]`, `evidence[${field}]`);
      if (value.length > 20_000) throw StripeError.invalid(`evidence[${field}] must be at most 20000 characters.`, `evidence[${field}]`);
      total += value.length;
    }
    const previous: Obj = {};
    for (const [field, value] of Object.entries(evidence)) dispute.evidence[field] = value === '' ? null : value;
    const staged = DISPUTE_EVIDENCE_FIELDS.reduce((n, f) => n + String(dispute.evidence[f] ?? '').length, 0);
    if (total > 150_000 || staged > 150_000)
      throw StripeError.invalid('The evidence may hold at most 150000 characters in all.', 'evidence');
    if (p.metadata && typeof p.metadata === 'object') Object.assign(dispute.metadata, p.metadata);
    dispute.evidence_details.has_evidence = DISPUTE_EVIDENCE_FIELDS.some((f) => dispute.evidence[f] !== null);
    // Stripe's API: submit defaults to true.
    if (p.submit === undefined || bool(p.submit)) {
      previous.status = dispute.status;
      dispute.status = dispute.status === 'warning_needs_response' ? 'warning_under_review' : 'under_review';
      dispute.evidence_details.submission_count += 1;
      dispute.evidence_details.submission_method = 'manual';
    }
    this.emit('charge.dispute.updated', dispute, ctx, previous);
    return dispute;
  }

  /** POST /v1/disputes/{dispute}/close: the merchant accepts the dispute (`lost`). */
  acceptDispute(id: string, ctx: RequestContext): Obj {
    const dispute = this.dispute(id);
    if (CLOSED_DISPUTE.includes(dispute.status)) return dispute;
    const previous = { status: dispute.status };
    dispute.status = dispute.status.startsWith('warning_') ? 'warning_closed' : 'lost';
    dispute.is_charge_refundable = false;
    this.emit('charge.dispute.closed', dispute, ctx, previous);
    return dispute;
  }

  private disputeTransaction(dispute: Obj, amount: number, fee: number, category: string, what: string): Obj {
    return {
      id: stripeId('txn'),
      object: 'balance_transaction',
      amount,
      available_on: now(),
      created: now(),
      currency: dispute.currency,
      description: `${what} for ${dispute.charge}`,
      exchange_rate: null,
      fee,
      fee_details: fee
        ? [{ amount: fee, application: null, currency: dispute.currency, description: 'Dispute fee', type: 'stripe_fee' }]
        : [],
      net: amount - fee,
      reporting_category: category,
      source: dispute.id,
      status: 'available',
      type: 'adjustment',
    };
  }

  // Identity

  /** POST /v1/identity/verification_sessions */
  createVerificationSession(p: Params, ctx: RequestContext): Obj {
    if (!['document', 'id_number'].includes(p.type)) {
      throw StripeError.invalid(
        p.type === undefined ? 'Missing required param: type.' : `Invalid type: must be one of document or id_number`,
        'type',
        p.type === undefined ? 'parameter_missing' : 'parameter_invalid_string',
      );
    }
    const id = stripeId('vs');
    const session: Obj = {
      id,
      object: 'identity.verification_session',
      client_reference_id: p.client_reference_id ?? null,
      client_secret: `${id}_secret_${stripeId('x', 25).slice(2)}`,
      created: now(),
      last_error: null,
      last_verification_report: null,
      livemode: false,
      metadata: p.metadata ?? {},
      options: p.options ?? (p.type === 'document' ? { document: {} } : { id_number: {} }),
      provided_details: p.provided_details ?? null,
      redaction: null,
      related_customer: p.related_customer ?? null,
      status: 'requires_input',
      type: p.type,
      url: `${this.baseUrl()}/identity/${id}`,
      verified_outputs: null,
    };
    this.verificationSessions.set(id, session);
    this.returnUrls.set(id, p.return_url ?? null);
    this.emit('identity.verification_session.created', session, ctx);
    return session;
  }

  /** Where the hosted verification page sends the user back (`return_url` at creation). */
  readonly returnUrls = new Map<string, string | null>();

  /** GET /v1/identity/verification_sessions/{session} */
  verificationSession(id: string): Obj {
    const session = this.verificationSessions.get(id);
    if (!session) throw StripeError.missing('identity.verification_session', id, 'session');
    return session;
  }

  /** POST /v1/identity/verification_sessions/{session}/cancel: only a session waiting for input can be canceled. */
  cancelVerificationSession(id: string, ctx: RequestContext): Obj {
    const session = this.verificationSession(id);
    if (session.status !== 'requires_input') {
      throw StripeError.unexpectedState(
        'session_invalid_status',
        `This VerificationSession has a status of ${session.status}; only a VerificationSession in requires_input can be canceled.`,
      );
    }
    return this.moveSession(session, 'canceled', ctx);
  }

  /** Moves a session as the user's verification would; `requires_input` takes the `last_error` code. */
  settleVerificationSession(id: string, outcome: IdentityOutcome, errorCode = 'document_unverified_other'): Obj {
    const session = this.verificationSession(id);
    return this.moveSession(session, outcome, { requestId: '', idempotencyKey: null, publishable: false }, errorCode);
  }

  private moveSession(session: Obj, outcome: IdentityOutcome, ctx: RequestContext, errorCode?: string): Obj {
    session.status = outcome;
    session.last_error = null;
    if (outcome === 'requires_input') {
      session.last_error = { code: errorCode, reason: IDENTITY_REASONS[errorCode ?? ''] ?? 'The document could not be verified.' };
    }
    if (outcome === 'verified') {
      session.last_verification_report = stripeId('vr');
      session.verified_outputs = null;
    }
    if (outcome === 'canceled') {
      session.url = null;
      session.client_secret = null;
    }
    this.emit(`identity.verification_session.${outcome}`, session, ctx);
    return session;
  }

  // Shared

  /** Replaces the ids named in `expand[]` by their objects, as Stripe does for expandable fields one level deep. */
  expand(object: Obj, fields: unknown): Obj {
    if (!Array.isArray(fields) || fields.length === 0) return object;
    const out = structuredClone(object);
    for (const field of fields) {
      const id = out[String(field)];
      if (typeof id !== 'string') continue;
      const found = this.lookup(id);
      if (found) out[String(field)] = structuredClone(found);
    }
    return out;
  }

  private lookup(id: string): Obj | undefined {
    for (const map of [
      this.customers,
      this.paymentMethods,
      this.paymentIntents,
      this.charges,
      this.refunds,
      this.disputes,
      this.verificationSessions,
    ]) {
      const found = map.get(id);
      if (found) return found;
    }
    return undefined;
  }

  /** Cancels timers still pending (refund failures to come). */
  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private later(fn: () => void, ms: number): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private emit(type: string, object: Obj, ctx: RequestContext, previous?: Record<string, unknown>): StripeEvent {
    return this.webhooks.emit(type, object, { id: ctx.requestId || null, idempotency_key: ctx.idempotencyKey }, previous);
  }
}

/** The dispute evidence fields Stripe takes as text (the file fields are left out: the fake has no Files). */
const DISPUTE_EVIDENCE_FIELDS = [
  'access_activity_log',
  'billing_address',
  'cancellation_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'customer_name',
  'customer_purchase_ip',
  'duplicate_charge_explanation',
  'duplicate_charge_id',
  'product_description',
  'refund_policy_disclosure',
  'refund_refusal_explanation',
  'service_date',
  'shipping_address',
  'shipping_carrier',
  'shipping_date',
  'shipping_tracking_number',
  'uncategorized_text',
];

const CLOSED_DISPUTE = ['won', 'lost', 'warning_closed', 'prevented'];

/** What an event no API request caused carries as its `request`. */
const NO_REQUEST: RequestContext = { requestId: '', idempotencyKey: null, publishable: false };

// Stripe's documented minimum charge amounts (docs.stripe.com/currencies#minimum-and-maximum-charge-amounts),
// in minor units, for the currencies a test is likely to use; others are not checked.
const MINIMUM_CHARGE: Record<string, [number, string]> = {
  usd: [50, '$0.50'],
  eur: [50, '€0.50'],
  gbp: [30, '£0.30'],
  cad: [50, '$0.50'],
  aud: [50, '$0.50'],
  chf: [50, 'CHF 0.50'],
  jpy: [50, '¥50'],
};

const IDENTITY_REASONS: Record<string, string> = {
  abandoned: 'The user abandoned the verification.',
  consent_declined: 'The user declined to be verified by Stripe.',
  document_expired: 'The provided identity document has expired.',
  document_type_not_supported: 'The provided identity document is not one of the allowed types.',
  document_unverified_other: 'The document could not be verified.',
  selfie_face_mismatch: "The selfie does not match the document's photo.",
  under_supported_age: 'The user is under the supported age.',
};

/**
 * Since API version 2023-08-16 an intent without `payment_method_types` takes the Dashboard's
 * payment methods (`automatic_payment_methods`, redirects allowed); the fake's Dashboard has cards only.
 */
function paymentMethodChoice(p: Params): { automatic_payment_methods: Obj | null; payment_method_types: string[] } {
  if (Array.isArray(p.payment_method_types)) {
    if (!p.payment_method_types.includes('card')) {
      throw StripeError.invalid('The fake serves card payments only: payment_method_types must include card.', 'payment_method_types');
    }
    return { automatic_payment_methods: null, payment_method_types: p.payment_method_types };
  }
  const apm = p.automatic_payment_methods;
  if (apm && !bool(apm.enabled)) return { automatic_payment_methods: null, payment_method_types: ['card'] };
  const allowRedirects = apm?.allow_redirects ?? 'always';
  if (!['always', 'never'].includes(allowRedirects)) {
    throw StripeError.invalid(
      'Invalid automatic_payment_methods[allow_redirects]: must be one of always or never',
      'automatic_payment_methods[allow_redirects]',
    );
  }
  return { automatic_payment_methods: { allow_redirects: allowRedirects, enabled: true }, payment_method_types: ['card'] };
}

/** Stripe refuses to confirm, without a `return_url`, an intent that may take redirect-based payment methods. */
function requireReturnUrl(apm: Obj | null, returnUrl: unknown): void {
  if (apm?.enabled && apm.allow_redirects === 'always' && !returnUrl) {
    throw StripeError.invalid(
      'A `return_url` must be specified because this Payment Intent is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set `automatic_payment_methods[enabled]` to `true` and `automatic_payment_methods[allow_redirects]` to `never` when creating Setup Intents and Payment Intents.',
    );
  }
}

function integerParam(value: unknown, param: string): number {
  if (value === undefined) throw StripeError.invalid(`Missing required param: ${param}.`, param, 'parameter_missing');
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(n) || String(value).trim() === '') {
    throw StripeError.invalid(`Invalid integer: ${String(value)}`, param, 'parameter_invalid_integer');
  }
  return n;
}

function bool(value: unknown): boolean {
  return value === true || value === 'true';
}
