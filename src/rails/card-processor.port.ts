/**
 * The card rail's port: what adding a card, charging it and refunding it need from a card
 * processor. Two adapters: `sandbox` (sandbox-card.adapter.ts: the test card numbers decide at
 * once, no network) and `stripe` (stripe-card.adapter.ts: PaymentMethods, PaymentIntents and
 * Refunds through the `stripe` package). Services receive the processor where they are
 * assembled (the web app, the workers); they never read the configuration.
 *
 * A processor that decides at once answers `chargeFailure` / `refundFailure` from the card's
 * stored details, synchronously: the batched escrow path decides a whole batch without an
 * await per charge. A processor with a `provider` answers `undefined` there: the command then
 * asks the provider (`authorize` before its decision, `capture`/`cancel` after it, `refund`).
 */

/** The adapters of the card rail (CARD_PROCESSOR). */
export type CardProcessorName = 'sandbox' | 'stripe';

/** A card as the request names it: a sandbox card's number, or a Stripe PaymentMethod id. */
export interface CardInput {
  number?: string;
  exp_month?: number;
  exp_year?: number;
  cvc?: string;
  stripe_payment_method?: string;
}

/** Whose card it is: the integrator, the account, and the provider customer the account already has (if any). */
export interface CardOwner {
  integratorId: string;
  accountId: string;
  /** The provider's customer of this account, from one of its cards already added (Stripe: `cus_…`). */
  customerId: string | null;
}

/** What Holdfast keeps of a card: never its number or CVC. */
export interface CardOnFile {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  /** The same for the same card number (per integrator for the sandbox; Stripe's own fingerprint). */
  fingerprint: string;
  /** The provider's id of the card (Stripe: the PaymentMethod `pm_…`); null for the sandbox. */
  pspReference: string | null;
  /** Adapter-specific facts kept in the method's details (`sandbox_outcome`; `stripe_customer`, `stripe_payment_method`). */
  details: Record<string, unknown>;
}

export type AddCardOutcome = { ok: true; card: CardOnFile } | { ok: false; fields: Record<string, string>; message?: string };

/** A stored card's details as charging reads them. */
export type StoredCard = Record<string, unknown>;

/** One card charge of a command: the command and step make its idempotency key. */
export interface CardChargeRequest {
  commandId: string;
  paymentMethodId: string;
  /** The stored card's details (its provider ids). */
  card: StoredCard;
  /** Minor units. */
  amount: number;
  /** ISO 4217, upper case as Holdfast keeps it. */
  currency: string;
  /** What the charge stands behind (`invoice:<invoice id>:charge:<payment method id>`). */
  holdfastRef: string;
  integratorId: string;
  description: string;
}

/**
 * A charge authorized (held on the card, not yet captured) or declined. A buyer-present charge
 * whose card needs its holder's authentication (3-D Secure) is not decided yet: `ok: false` with
 * the reason `authentication_required` and `nextActionUrl`, the provider's page for the buyer.
 */
export type Authorization =
  | { ok: true; paymentIntentId: string; snapshot: Record<string, unknown> }
  | {
      ok: false;
      reason: string;
      paymentIntentId: string | null;
      snapshot: Record<string, unknown> | null;
      /** Buyer present only: where the buyer authenticates; the provider's webhook tells the outcome. */
      nextActionUrl?: string;
    };

/**
 * Why a refund failed when the provider refused its idempotency key (the key was used before with
 * other parameters): no Refund is Holdfast's for that request — an operator looks the key up.
 */
export const REFUND_IDEMPOTENCY_CONFLICT_REASON = 'provider_idempotency_conflict';

/** A refund the provider took (`succeeded`, `pending`) or refused (`failed`, with a reason). */
export type RefundResult =
  | { ok: true; refundId: string; snapshot: Record<string, unknown> }
  | { ok: false; reason: string; refundId: string | null; snapshot: Record<string, unknown> | null };

/**
 * The calls a real processor makes. Each carries an idempotency key derived from the command
 * and its step (`<command id>:<step>:<payment method id>`), so a retried or crashed command never
 * charges or refunds twice. A provider that cannot be reached, times out, answers 5xx or limits
 * the rate throws `CardProviderUnavailable`: the command is left to retry. A decline is an answer.
 */
export interface CardProvider {
  /**
   * Authorizes a charge off-session (captured later): declined cards and cards needing their
   * holder answer `ok: false` (`authentication_required`).
   */
  authorize(charge: CardChargeRequest): Promise<Authorization>;
  /**
   * Authorizes a charge with the buyer present (the hosted checkout; captured later): a card that
   * needs its holder's authentication answers `ok: false`, `authentication_required` with the
   * provider's `nextActionUrl`, which sends the buyer back to `returnUrl` once done; the
   * provider's webhook then tells the outcome (`retrieve` reads it).
   */
  authorizeOnSession(charge: CardChargeRequest, returnUrl: string): Promise<Authorization>;
  /** The provider's PaymentIntent as it stands now (the truth a webhook only announces). */
  retrieve(paymentIntentId: string): Promise<Record<string, unknown>>;
  /**
   * Captures an authorized charge (its idempotency key: `<command id>:capture:<payment method id>`).
   * A capture the provider refuses (the hold lapsed or was released) answers the charge as the
   * provider has it now (`canceled`), not an error: it is an outcome, not worth a retry.
   */
  capture(paymentIntentId: string, key: string): Promise<Record<string, unknown>>;
  /** Releases an authorized charge (`<command id>:cancel:<payment method id>`). */
  cancel(paymentIntentId: string, key: string): Promise<Record<string, unknown>>;
  /** Refunds part or all of a captured charge (`<command id>:refund:<payment method id>`). */
  refund(paymentIntentId: string, amount: number, key: string): Promise<RefundResult>;
  /**
   * Gives the provider's dispute the evidence (text fields; an empty string clears one) and,
   * with `submit`, submits it for review; `key` is the call's idempotency key. Answers the
   * dispute as the provider shows it, or `refused` when the provider will not take it (the
   * dispute is closed or already submitted). Optional: a processor without its own disputes has none.
   */
  updateDispute?(disputeId: string, evidence: Record<string, string>, submit: boolean, key: string): Promise<DisputeUpdateResult>;
}

/** The provider took the evidence (its dispute as it shows it now), or refused it (why, in its words). */
export type DisputeUpdateResult = { ok: true; snapshot: Record<string, unknown> } | { ok: false; reason: string };

/**
 * How charging decides a card (synchronously): the sandbox from the stored card, a real
 * processor from the authorizations its command made before deciding (`authorizedVerdicts`).
 */
export interface CardVerdicts {
  /** Why a charge of this card fails (null: it goes through); undefined when nothing decided it (it then fails). */
  chargeFailure(card: StoredCard, paymentMethodId: string): string | null | undefined;
  /** Why a refund to this card fails (null: it goes through, or the provider decides when refunding). */
  refundFailure(card: StoredCard, paymentMethodId: string): string | null | undefined;
}

/** A card processor: how cards are added, and how their charges and refunds are decided. */
export interface CardProcessor extends CardVerdicts {
  readonly name: CardProcessorName;
  /** Checks the card the request names and answers what to keep of it, or the fields at fault. */
  addCard(input: CardInput, owner: CardOwner): Promise<AddCardOutcome>;
  /** The provider's calls; absent for a processor that decides at once (the sandbox). */
  readonly provider?: CardProvider;
}

/** The provider could not answer (down, timed out, 5xx, rate limited): the command retries later. */
export class CardProviderUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CardProviderUnavailable';
  }
}

/** The verdicts of a real processor's authorizations, by payment method id: a card without one fails. */
export function authorizedVerdicts(authorizations: Map<string, Authorization>): CardVerdicts {
  return {
    chargeFailure: (_card, id) => {
      const a = authorizations.get(id);
      return a ? (a.ok ? null : a.reason) : undefined;
    },
    refundFailure: () => null,
  };
}

/** The idempotency key of a command's step on one payment method: `<command id>:<step>:<payment method id>`. */
export function cardCallKey(commandId: string, step: 'charge' | 'capture' | 'cancel' | 'refund', paymentMethodId: string): string {
  return `${commandId}:${step}:${paymentMethodId}`;
}

/** What a card charge stands behind in `provider_object`: `invoice:<invoice id>:charge:<payment method id>`. */
export function chargeRef(invoiceId: string, paymentMethodId: string): string {
  return `invoice:${invoiceId}:charge:${paymentMethodId}`;
}

/**
 * What a card charge's dispute stands behind in `provider_object`:
 * `invoice:<invoice id>:charge:<payment method id>:dispute` (a charge has one dispute in Holdfast,
 * so the ref is known before the dispute is written, whichever event comes first).
 */
export function disputeRef(invoiceId: string, paymentMethodId: string): string {
  return `${chargeRef(invoiceId, paymentMethodId)}:dispute`;
}

/** What a card refund stands behind: `invoice:<refund or cancel invoice id>:refund:<payment method id>`. */
export function refundRef(invoiceId: string, paymentMethodId: string): string {
  return `invoice:${invoiceId}:refund:${paymentMethodId}`;
}
