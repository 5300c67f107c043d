/**
 * Which sight of a Stripe PaymentIntent is kept (pure). Its events arrive late, twice or out of
 * order, and a command run again gets Stripe's first answer back (its idempotency key): neither
 * may take a stored snapshot back — a captured charge shown as authorized again would be
 * captured or released once more by the sweep, a released one shown as a hold would be captured.
 * A PaymentIntent's statuses move forward in three steps: not yet authorized (requires_payment_method,
 * requires_confirmation, requires_action, processing — these may go back and forth, as a 3-D
 * Secure attempt fails and another starts, and hold no money), authorized (requires_capture),
 * then final (succeeded or canceled). A sight further along wins; among the not-yet-authorized
 * statuses the latest sight wins; an equal authorized or final one changes nothing.
 */

/** Each status's step; a status not listed (one Stripe adds later) never replaces a snapshot. */
export const INTENT_RANK: Readonly<Record<string, number>> = {
  requires_payment_method: 0,
  requires_confirmation: 0,
  requires_action: 0,
  processing: 0,
  requires_capture: 1,
  succeeded: 2,
  canceled: 2,
};

/** The step whose statuses may follow one another either way. */
export const INTENT_OPEN_RANK = 0;

/** Whether a PaymentIntent seen now (`seen` status) should replace the one stored (`stored` status; undefined when none is). */
export function intentSightSupersedes(stored: unknown, seen: unknown): boolean {
  const before = INTENT_RANK[String(stored)] ?? -1;
  const now = INTENT_RANK[String(seen)];
  return now !== undefined && (now > before || (now === before && now === INTENT_OPEN_RANK));
}
