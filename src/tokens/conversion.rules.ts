/**
 * Token conversion rules (pure): what an exchange of convertible tokens for USD is worth, its
 * fee, how it answers, and what executing it may do in each status.
 */
import { ceilRatio, type QuoteRefusal, tokenQuote } from './tokens.rules.js';

/**
 * An exchange is OPEN when quoted; EXECUTED once its posting moved the money; EXPIRED when an
 * execution came after `expires_at`; REVERSED when the payout that took its money was reversed.
 * An execution the integrator's USD wallet cannot cover leaves it OPEN (it may be run again).
 */
export const EXCHANGE_STATUSES = ['OPEN', 'EXECUTED', 'EXPIRED', 'REVERSED'] as const;
export type ExchangeStatus = (typeof EXCHANGE_STATUSES)[number];

/** Exchanges pay out in USD. */
export const FIAT_CURRENCY = 'USD';

/** How long an exchange may be executed after it was made, unless configured (`TOKEN_EXCHANGE_TTL_SECONDS`). */
export const DEFAULT_EXCHANGE_TTL_SECONDS = 900;

export interface ExchangeRecord {
  id: string;
  integratorId: string;
  accountId: string;
  status: ExchangeStatus;
  tokenAmount: number;
  tokenCurrency: string;
  fiatAmount: number;
  fiatCurrency: string;
  feeAmount: number;
  expiresAt: Date;
  payoutId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * The fee of a conversion: `ceil(fiat × bps / 10000)` cents (rounded up, never more than the fiat
 * amount), in exact integers: `fiat × bps` passes 2^53 long before the fiat amount does.
 */
export function conversionFee(fiatAmount: number, feeBps: number): number {
  return Math.min(fiatAmount, ceilRatio(fiatAmount, feeBps, 10_000));
}

/** The quote of `amount` tokens in `currency`: the fiat cents (exact, as token purchases need) and the fee; or the field at fault. */
export function conversionQuote(
  amount: number,
  currency: string,
  integrator: { tokenCurrency: string | null; tokensPerUsd: number | null },
  feeBps: number,
): { ok: true; tokens: number; fiat: number; fee: number } | QuoteRefusal {
  if (!integrator.tokenCurrency || !integrator.tokensPerUsd || currency !== integrator.tokenCurrency)
    return { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' };
  const quote = tokenQuote(amount, currency, integrator.tokenCurrency, integrator.tokensPerUsd);
  if (!quote.ok) return quote;
  return { ok: true, tokens: quote.tokens, fiat: quote.cents, fee: conversionFee(quote.cents, feeBps) };
}

/** What the user receives: the fiat amount less the fee. */
export function netAmount(exchange: Pick<ExchangeRecord, 'fiatAmount' | 'feeAmount'>): number {
  return exchange.fiatAmount - exchange.feeAmount;
}

/** What executing an exchange does in its status (`expired`: its `expires_at` has passed). */
export function executeDecision(status: ExchangeStatus, expired: boolean): 'execute' | 'answer' | 'expire' | 'expired' | 'refuse' {
  if (status === 'EXECUTED') return 'answer';
  if (status === 'EXPIRED') return 'expired';
  if (status === 'REVERSED') return 'refuse';
  return expired ? 'expire' : 'execute';
}

/** An exchange as the API answers it. */
export function exchangeView(e: ExchangeRecord) {
  return {
    token_exchange_id: e.id,
    account_id: e.accountId,
    status: e.status,
    token_amount: e.tokenAmount,
    token_currency: e.tokenCurrency,
    fiat_amount: e.fiatAmount,
    fiat_currency: e.fiatCurrency,
    fee_amount: e.feeAmount,
    expires_at: new Date(e.expiresAt).toISOString(),
    created: new Date(e.createdAt).toISOString(),
    updated: new Date(e.updatedAt).toISOString(),
  };
}
export type ExchangeView = ReturnType<typeof exchangeView>;
