/** The sandbox payout rail's PayPal addresses (pure): which payouts fail, which stay unclaimed, every other one paid. */

/** The sandbox PayPal address whose payouts fail (every other address's payouts succeed). */
export const PAYPAL_PAYOUT_FAILS = 'payout-fails@example.com';

/**
 * The sandbox PayPal address whose payouts stay PROCESSING, as an unclaimed PayPal payout does,
 * until an outcome is applied to them (in staging, the payout's PATCH with a `rail_outcome`).
 */
export const PAYPAL_PAYOUT_UNCLAIMED = 'payout-unclaimed@example.com';

/** What a payout to a sandbox PayPal address does when executed. */
export type PaypalSandboxOutcome = 'succeeds' | 'payout_fails' | 'payout_unclaimed';

/** What payouts to this (normalised) sandbox address do. */
export function paypalSandboxOutcome(email: string): PaypalSandboxOutcome {
  if (email === PAYPAL_PAYOUT_FAILS) return 'payout_fails';
  return email === PAYPAL_PAYOUT_UNCLAIMED ? 'payout_unclaimed' : 'succeeds';
}
