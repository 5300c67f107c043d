/**
 * Amounts between Holdfast and PayPal (pure). Holdfast counts money in integer minor units of
 * the currency's ISO 4217 exponent; PayPal takes a decimal string with the number of decimals it
 * supports for the currency (none for HUF, JPY and TWD). The conversion is exact, in integers:
 * an amount PayPal cannot express (HUF cents) is refused, never rounded.
 */

/** PayPal's payout currencies: [ISO 4217 exponent (Holdfast's minor units), PayPal's decimals]. */
const PAYPAL_CURRENCIES: Readonly<Record<string, readonly [iso: number, paypal: number]>> = {
  AUD: [2, 2],
  BRL: [2, 2],
  CAD: [2, 2],
  CNY: [2, 2],
  CZK: [2, 2],
  DKK: [2, 2],
  EUR: [2, 2],
  GBP: [2, 2],
  HKD: [2, 2],
  HUF: [2, 0],
  ILS: [2, 2],
  JPY: [0, 0],
  MXN: [2, 2],
  MYR: [2, 2],
  NOK: [2, 2],
  NZD: [2, 2],
  PHP: [2, 2],
  PLN: [2, 2],
  SEK: [2, 2],
  SGD: [2, 2],
  CHF: [2, 2],
  THB: [2, 2],
  TWD: [2, 0],
  USD: [2, 2],
};

export interface PaypalAmount {
  currency: string;
  value: string;
}

export class UnsupportedAmountError extends Error {
  constructor(
    readonly code: 'currency_not_supported' | 'amount_not_supported',
    message: string,
  ) {
    super(message);
    this.name = 'UnsupportedAmountError';
  }
}

/**
 * A positive integer amount in minor units → PayPal's `{ currency, value }` (`1` USD → `"0.01"`,
 * `123456789` → `"1234567.89"`, `500` JPY → `"500"`). Throws UnsupportedAmountError for a
 * currency PayPal does not pay out in or an amount it cannot express.
 */
export function toPaypalAmount(minorUnits: number, currency: string): PaypalAmount {
  const exponents = PAYPAL_CURRENCIES[currency];
  if (!exponents) throw new UnsupportedAmountError('currency_not_supported', `PayPal does not pay out in ${currency}.`);
  if (!Number.isSafeInteger(minorUnits) || minorUnits <= 0)
    throw new UnsupportedAmountError('amount_not_supported', 'The amount must be a positive whole number of minor units.');
  const [iso, decimals] = exponents;
  let units = BigInt(minorUnits);
  const dropped = 10n ** BigInt(iso - decimals);
  if (units % dropped !== 0n)
    throw new UnsupportedAmountError('amount_not_supported', `PayPal takes whole units of ${currency}: the amount has a fraction.`);
  units /= dropped;
  if (decimals === 0) return { currency, value: units.toString() };
  const digits = units.toString().padStart(decimals + 1, '0');
  return { currency, value: `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}` };
}

/** PayPal's decimal string → integer minor units of `currency` (exact; undefined when it is not a valid amount). */
export function fromPaypalAmount(amount: PaypalAmount): number | undefined {
  const exponents = PAYPAL_CURRENCIES[amount.currency];
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.value);
  if (!exponents || !match) return undefined;
  const [iso] = exponents;
  const fraction = match[2] ?? '';
  if (fraction.length > iso && /[^0]/.test(fraction.slice(iso))) return undefined;
  const units = BigInt(match[1]) * 10n ** BigInt(iso) + BigInt(fraction.slice(0, iso).padEnd(iso, '0') || '0');
  return units <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(units) : undefined;
}
