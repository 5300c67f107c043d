/**
 * Virtual token rules (pure): converting between USD cents and tokens at an integrator's rate.
 * Every product of an amount and a rate is taken in BigInt: amounts reach 2^53 − 1, and in
 * floating point `amount × rate` rounds beyond 2^53, which made inexact amounts look exact.
 */

/** The largest amount the API takes or answers (the `Amount` schema's maximum): every amount stays an exact JS number. */
export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

export type QuoteRefusal = {
  ok: false;
  field: 'currency' | 'amount';
  code: 'UNSUPPORTED_CURRENCY' | 'TOO_SMALL' | 'NOT_EXACT' | 'TOO_LARGE';
};

/**
 * `amount × multiplier / divisor`, exactly: refused as NOT_EXACT when it is not a whole number,
 * TOO_LARGE when it is above MAX_AMOUNT. All three are positive safe integers.
 */
export function exactRatio(
  amount: number,
  multiplier: number,
  divisor: number,
): { ok: true; value: number } | { ok: false; code: 'NOT_EXACT' | 'TOO_LARGE' } {
  const product = BigInt(amount) * BigInt(multiplier);
  const whole = BigInt(divisor);
  if (product % whole !== 0n) return { ok: false, code: 'NOT_EXACT' };
  const value = product / whole;
  return value > BigInt(MAX_AMOUNT) ? { ok: false, code: 'TOO_LARGE' } : { ok: true, value: Number(value) };
}

/** `ceil(amount × multiplier / divisor)`, exactly (the product may pass 2^53). */
export function ceilRatio(amount: number, multiplier: number, divisor: number): number {
  const whole = BigInt(divisor);
  return Number((BigInt(amount) * BigInt(multiplier) + whole - 1n) / whole);
}

/** An amount the API could have sent: a whole number from 1 to MAX_AMOUNT (null), or why not. */
function amountRefusal(amount: number): QuoteRefusal | null {
  if (!Number.isInteger(amount)) return { ok: false, field: 'amount', code: 'NOT_EXACT' };
  if (amount < 1) return { ok: false, field: 'amount', code: 'TOO_SMALL' };
  if (amount > MAX_AMOUNT) return { ok: false, field: 'amount', code: 'TOO_LARGE' };
  return null;
}

/**
 * How many tokens and how many USD cents a purchase is, from an amount in either currency.
 * `tokensPerUsd` tokens cost USD 1.00 (100 cents); the conversion must be exact (`tokens × 100 =
 * cents × tokensPerUsd`, never rounded: `NOT_EXACT`), and both sides at most MAX_AMOUNT
 * (`TOO_LARGE`).
 */
export function tokenQuote(
  amount: number,
  currency: string,
  tokenCurrency: string,
  tokensPerUsd: number,
): { ok: true; tokens: number; cents: number } | QuoteRefusal {
  if (currency !== tokenCurrency && currency !== 'USD') return { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' };
  // The integrator's rate is a positive whole number (a database check, and the CLI's): anything else is a bug.
  if (!Number.isSafeInteger(tokensPerUsd) || tokensPerUsd < 1)
    throw new Error(`tokens per USD must be a positive whole number, not ${tokensPerUsd}`);
  const refused = amountRefusal(amount);
  if (refused) return refused;
  if (currency === tokenCurrency) {
    const cents = exactRatio(amount, 100, tokensPerUsd);
    return cents.ok ? { ok: true, tokens: amount, cents: cents.value } : { ok: false, field: 'amount', code: cents.code };
  }
  const tokens = exactRatio(amount, tokensPerUsd, 100);
  return tokens.ok ? { ok: true, tokens: tokens.value, cents: amount } : { ok: false, field: 'amount', code: tokens.code };
}

/** The message of a refused quote's 400 (`amount` codes; the currency's is the caller's to word). */
export function quoteRefusalMessage(code: QuoteRefusal['code'], tokensPerUsd: number, tokenCurrency: string): string {
  switch (code) {
    case 'NOT_EXACT':
      return `The amount does not convert exactly at ${tokensPerUsd} ${tokenCurrency} per USD 1.00: it must be a whole number of tokens for a whole number of cents.`;
    case 'TOO_LARGE':
      return `The amount converts to more than ${MAX_AMOUNT}, the largest amount there is.`;
    case 'TOO_SMALL':
      return 'The amount must be at least 1.';
    default:
      return `Only ${tokenCurrency} and USD convert.`;
  }
}
