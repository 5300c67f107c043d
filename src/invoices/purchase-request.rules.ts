/**
 * Purchase requests as clients send them (pure): the shapes of `POST /v2/escrow`,
 * `POST /v2/invoice` and `POST /v2/authorize/invoice` that older clients send, made into the
 * one shape the money rules read — `metadata: null` is absent, a payment method without
 * `amount` pays the remainder (as `amount: 0`), and omitted payment methods of a token-currency
 * purchase are the buyer's token wallets. And whether a payment method it names can pay it.
 */
import { canPayPurchases } from '../payment-methods/payment-method.rules.js';
import type { LineItemInput, PaymentMethodInput } from './invoice.rules.js';

/** A payment method as sent: `amount` may be omitted (the remainder). */
export interface PaymentMethodRequest {
  payment_method_id: string;
  amount?: number;
}

/** A line item as sent: `metadata` may be null. */
export type LineItemRequest = Omit<LineItemInput, 'metadata'> & { metadata?: Record<string, unknown> | null };

/** A purchase as sent (the body of `POST /v2/escrow` and `POST /v2/invoice`). */
export interface PurchaseRequest {
  account_id: string;
  reference_type?: string;
  reference_id?: string;
  description?: string;
  metadata?: Record<string, unknown> | null;
  payment_methods?: PaymentMethodRequest[];
  line_items: LineItemRequest[];
}

/** A purchase in the shape the money rules read; `payment_methods` stays undefined when omitted. */
export interface NormalisedPurchase extends Omit<PurchaseRequest, 'metadata' | 'payment_methods' | 'line_items'> {
  metadata?: Record<string, unknown>;
  payment_methods?: PaymentMethodInput[];
  line_items: LineItemInput[];
}

/** `metadata: null` is absent: the key is dropped, so it is stored and echoed as an absent one is. */
export function withoutNullMetadata<T extends { metadata?: unknown }>(
  value: T,
): Omit<T, 'metadata'> & { metadata?: Record<string, unknown> } {
  if (value.metadata !== null) return value as Omit<T, 'metadata'> & { metadata?: Record<string, unknown> };
  const { metadata: _null, ...rest } = value;
  return rest;
}

/** Payment methods as the money rules read them: one without `amount` takes the remainder (`amount: 0`). */
export function normalisePaymentMethods(methods: PaymentMethodRequest[]): PaymentMethodInput[];
export function normalisePaymentMethods(methods: PaymentMethodRequest[] | undefined): PaymentMethodInput[] | undefined;
export function normalisePaymentMethods(methods: PaymentMethodRequest[] | undefined): PaymentMethodInput[] | undefined {
  return methods?.map((pm) => ({ payment_method_id: pm.payment_method_id, amount: pm.amount ?? 0 }));
}

/**
 * The request in the rules' shape: null metadata (the purchase's and each line's) absent, each
 * payment method without `amount` taking the remainder (`amount: 0`; two such methods break the
 * one-remainder rule as two zeros do). Other fields are kept as sent.
 */
export function normalisePurchaseRequest<T extends PurchaseRequest>(
  request: T,
): Omit<T, 'metadata' | 'payment_methods' | 'line_items'> & NormalisedPurchase {
  const base = withoutNullMetadata(request);
  return {
    ...base,
    line_items: (request.line_items ?? []).map((line) => withoutNullMetadata(line)),
    payment_methods: normalisePaymentMethods(request.payment_methods),
  } as Omit<T, 'metadata' | 'payment_methods' | 'line_items'> & NormalisedPurchase;
}

/** A token wallet of the buyer, as the wallet choice reads it. */
export interface TokenWallet {
  payment_method_id: string;
  wallet_kind: 'standard' | 'convertible' | null;
  balance: number;
}

/**
 * The order token wallets pay in when the client names none: standard (bought) tokens first,
 * then convertible (received) ones — convertible tokens are the ones a player can have paid
 * out, so they are kept while bought ones last.
 */
export const TOKEN_WALLET_ORDER = ['standard', 'convertible'] as const;

/**
 * Which of the buyer's token wallets pay `total`, in TOKEN_WALLET_ORDER: a wallet that holds
 * the rest pays it (`amount: 0`, the remainder) and ends the list; one that holds less pays its
 * whole balance (an empty one is skipped); the last wallet pays whatever is left. So the shares
 * are what the client would have named — wallets that cannot cover the total make the pay fail
 * (`insufficient_funds`), as named ones do. Empty when the buyer has no such wallet.
 */
export function tokenWalletShares(total: number, wallets: TokenWallet[]): PaymentMethodInput[] {
  const ordered = TOKEN_WALLET_ORDER.flatMap((kind) => wallets.filter((w) => w.wallet_kind === kind));
  const shares: PaymentMethodInput[] = [];
  let left = total;
  for (const [i, wallet] of ordered.entries()) {
    if (i === ordered.length - 1 || wallet.balance >= left) {
      shares.push({ payment_method_id: wallet.payment_method_id, amount: 0 });
      break;
    }
    if (wallet.balance > 0) {
      shares.push({ payment_method_id: wallet.payment_method_id, amount: wallet.balance });
      left -= wallet.balance;
    }
  }
  return shares;
}

/** Why a named payment method cannot pay a purchase. */
export type MethodRefusal = 'NOT_FOUND' | 'PAYOUT_ONLY' | 'INCOMPATIBLE_CURRENCY';

/**
 * Why a payment method named to pay a purchase in `currency` cannot pay it, or null when it can:
 * `NOT_FOUND` (no active method of the buyer's), `PAYOUT_ONLY` (a method that only receives
 * payouts, such as PayPal), `INCOMPATIBLE_CURRENCY` (it pays in another currency).
 */
export function methodRefusal(
  method: { provider: string; processing_currency: string } | undefined,
  currency: string,
): MethodRefusal | null {
  if (!method) return 'NOT_FOUND';
  if (!canPayPurchases(method.provider)) return 'PAYOUT_ONLY';
  if (method.processing_currency !== currency) return 'INCOMPATIBLE_CURRENCY';
  return null;
}
