/** Payment method rules (pure): sandbox PayPal payout destinations, which methods pay purchases (sandbox cards: src/rails/sandbox-card.rules.ts). */

/** The sandbox PayPal address whose payouts fail (every other address's payouts succeed). */
export const PAYPAL_PAYOUT_FAILS = 'payout-fails@example.com';

/** What a payout to a sandbox PayPal address does when executed. */
export type PaypalSandboxOutcome = 'succeeds' | 'payout_fails';

/** A PayPal address as stored and compared: lower-cased (the schema checked its format and length). */
export function normalisePaypalEmail(email: string): string {
  return email.toLowerCase();
}

/** What payouts to this (normalised) sandbox address do. */
export function paypalSandboxOutcome(email: string): PaypalSandboxOutcome {
  return email === PAYPAL_PAYOUT_FAILS ? 'payout_fails' : 'succeeds';
}

/** Providers whose methods only receive payouts: a purchase never charges one. */
export const PAYOUT_ONLY_PROVIDERS: readonly string[] = ['paypal'];

/** Whether a method of this provider may pay a purchase (a payout-only one may not: `PAYOUT_ONLY`). */
export function canPayPurchases(provider: string): boolean {
  return !PAYOUT_ONLY_PROVIDERS.includes(provider);
}
