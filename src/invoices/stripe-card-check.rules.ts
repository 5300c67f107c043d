/**
 * What `ledger verify` expects of the Stripe objects behind a card move Holdfast recorded: a paid
 * charge stands on one captured PaymentIntent of its amount and currency; a refund that went
 * through stands on one Refund of its amount that Stripe took (`succeeded`) or is taking
 * (`pending`); a refund part reversed (its money given back) on none, or on a Refund that
 * failed. Pure: the caller reads the rows and the stored snapshots.
 */
/** A card move Holdfast recorded on a Stripe card: a paid purchase's charge, or a refund's part that went through. */
export interface StripeCardMove {
  kind: 'charge' | 'refund';
  invoiceId: string;
  paymentMethodId: string;
  amount: number;
  currency: string;
  /** A refund's purchase (a refund invoice's, an escrow cancel's escrow invoice); null for a charge. */
  paidInvoiceId: string | null;
  /** A charge of an escrow invoice whose escrow was cancelled (its hold may have been released instead of refunded). */
  escrowCancelled: boolean;
  /** A refund part that failed after its money was posted and was reversed: its Refund, if any, must have failed. */
  reversed?: boolean;
}

/** A stored provider object as the check reads it. */
export interface StoredStripeObject {
  objectId: string;
  objectType: string;
  snapshot: Record<string, unknown>;
}

/** The statuses of a Refund that stand behind a refund recorded as done. */
const REFUND_TAKEN = ['succeeded', 'pending'];

/** The statuses of a Refund that stand behind a part reversed (its money given back to the integrator). */
const REFUND_UNDONE = ['failed', 'canceled'];

const shown = (o: StoredStripeObject) =>
  `${o.objectId} is ${String(o.snapshot.amount)} ${String(o.snapshot.currency ?? '').toUpperCase()} ${String(o.snapshot.status)}`;

/**
 * The problem with one move against the objects stored behind its ref (`stored`), or null.
 * `paidIntent`: for a refund, the stored PaymentIntent of the charge it refunds — an escrow
 * cancel that came before the capture released the hold (the intent `canceled`) instead of
 * refunding, and so has no Refund.
 */
export function stripeCardMoveMismatch(move: StripeCardMove, stored: StoredStripeObject[], paidIntent?: StoredStripeObject): string | null {
  const money = `${move.amount} ${move.currency}`;
  const sameMoney = (o: StoredStripeObject) =>
    Number(o.snapshot.amount) === move.amount && String(o.snapshot.currency ?? '').toUpperCase() === move.currency.toUpperCase();
  if (move.kind === 'charge') {
    const what = `invoice ${move.invoiceId}: card charge of payment method ${move.paymentMethodId} (${money})`;
    const intents = stored.filter((o) => o.objectType === 'payment_intent');
    if (intents.length !== 1) return `${what} has ${intents.length} stored Stripe PaymentIntents (expected 1)`;
    const intent = intents[0]!;
    const released = move.escrowCancelled && intent.snapshot.status === 'canceled';
    if (sameMoney(intent) && (intent.snapshot.status === 'succeeded' || released)) return null;
    // A capture Stripe refused: the purchase stands paid in the ledger, the card was never charged.
    if (intent.snapshot.status === 'canceled' && !move.escrowCancelled)
      return `${what}: Stripe refused its capture, its PaymentIntent ${intent.objectId} is canceled (${String(intent.snapshot.cancellation_reason ?? 'no reason')}): the purchase is paid in the ledger, the card never charged`;
    return `${what}: its stored PaymentIntent ${shown(intent)} (expected ${money} succeeded)`;
  }
  const what = `refund invoice ${move.invoiceId}: card refund to payment method ${move.paymentMethodId} (${money})`;
  const refunds = stored.filter((o) => o.objectType === 'refund');
  if (move.reversed) {
    // Reversed: Stripe refused it (no Refund) or its Refund failed; one Stripe took means the money went out twice.
    const taken = refunds.find((o) => !REFUND_UNDONE.includes(String(o.snapshot.status)));
    return taken ? `${what} was reversed, but its stored Refund ${shown(taken)} (expected failed or canceled)` : null;
  }
  if (!refunds.length && paidIntent?.snapshot.status === 'canceled') return null;
  if (refunds.length !== 1) return `${what} has ${refunds.length} stored Stripe Refunds (expected 1)`;
  const refund = refunds[0]!;
  if (sameMoney(refund) && REFUND_TAKEN.includes(String(refund.snapshot.status))) return null;
  return `${what}: its stored Refund ${shown(refund)} (expected ${money} succeeded or pending)`;
}
