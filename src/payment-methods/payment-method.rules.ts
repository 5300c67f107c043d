/** Payment method rules (pure): PayPal payout destinations as stored, which methods pay purchases (the sandbox's cards and PayPal addresses: src/rails/sandbox-card.rules.ts, sandbox-payout.rules.ts). */

/** A PayPal address as stored and compared: lower-cased (the schema checked its format and length). */
export function normalisePaypalEmail(email: string): string {
  return email.toLowerCase();
}

/** Providers whose methods only receive payouts: a purchase never charges one. */
export const PAYOUT_ONLY_PROVIDERS: readonly string[] = ['paypal'];

/** Whether a method of this provider may pay a purchase (a payout-only one may not: `PAYOUT_ONLY`). */
export function canPayPurchases(provider: string): boolean {
  return !PAYOUT_ONLY_PROVIDERS.includes(provider);
}
