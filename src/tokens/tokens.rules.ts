/** Virtual token rules (pure): converting between USD cents and tokens at an integrator's rate. */

/**
 * How many tokens and how many USD cents a purchase is, from an amount in either currency.
 * `tokensPerUsd` tokens cost USD 1.00 (100 cents); the conversion must be exact.
 */
export function tokenQuote(
  amount: number,
  currency: string,
  tokenCurrency: string,
  tokensPerUsd: number,
): { ok: true; tokens: number; cents: number } | { ok: false; field: 'currency' | 'amount'; code: string } {
  if (currency === tokenCurrency) {
    const cents = (amount * 100) / tokensPerUsd;
    return Number.isSafeInteger(cents) && cents > 0
      ? { ok: true, tokens: amount, cents }
      : { ok: false, field: 'amount', code: 'NOT_EXACT' };
  }
  if (currency === 'USD') {
    const tokens = (amount * tokensPerUsd) / 100;
    return Number.isSafeInteger(tokens) && tokens > 0
      ? { ok: true, tokens, cents: amount }
      : { ok: false, field: 'amount', code: 'NOT_EXACT' };
  }
  return { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' };
}
