/**
 * Invoice rules (pure): the money rules of a purchase (docs/money.md; standard invoices share
 * them with escrows: one currency, line amounts above zero, recipients' shares within
 * their line, payment-method amounts that cover the total exactly with one 0 taking the
 * remainder), views and money display.
 */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';
import type { IInvoice } from './invoice.entity.js';
import { walletIdOf } from '../ledger/ledger.rules.js';

export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

export interface RecipientInput {
  amount: number;
  currency: string;
  source_wallet_id?: string;
  destination_wallet_id: string;
}

export interface LineItemInput {
  amount: number;
  currency: string;
  transaction_type: 'user_to_user' | 'user_to_integrator';
  product_sku?: string;
  description?: string;
  reference_type?: string;
  reference_id?: string;
  metadata?: Record<string, unknown>;
  recipients?: RecipientInput[];
}

export interface PaymentMethodInput {
  payment_method_id: string;
  amount: number;
}

export interface Charge {
  paymentMethodId: string;
  /** Minor units to charge this method (the remainder resolved). */
  amount: number;
}

export interface MoneyPlan {
  currency: string;
  total: number;
  charges: Charge[];
}

/**
 * Checks the money rules of an escrow request and resolves what each payment method pays.
 * Returns the plan, or the field errors (fields named like `line_items.0.amount`). With
 * `chargesLater` (an authorized invoice, whose buyer names them when paying) no payment
 * methods is allowed, and the plan has no charges.
 */
export function planMoney(
  lineItems: LineItemInput[],
  paymentMethods: PaymentMethodInput[],
  opts: { chargesLater?: boolean } = {},
): { ok: true; plan: MoneyPlan } | { ok: false; fields: FieldErrors } {
  const fields = fieldErrors();
  if (lineItems.length === 0) addFieldError(fields, 'line_items', 'REQUIRED');
  const currency = lineItems[0]?.currency;
  let total = 0;
  lineItems.forEach((line, i) => {
    if (line.currency !== currency) addFieldError(fields, `line_items.${i}.currency`, 'CURRENCY_MISMATCH');
    total += line.amount;
    let shares = 0;
    (line.recipients ?? []).forEach((r, j) => {
      if (r.currency !== line.currency) addFieldError(fields, `line_items.${i}.recipients.${j}.currency`, 'CURRENCY_MISMATCH');
      shares += r.amount;
    });
    if (shares > line.amount) addFieldError(fields, `line_items.${i}.recipients`, 'EXCEEDS_LINE_AMOUNT');
  });
  if (total > MAX_AMOUNT) addFieldError(fields, 'line_items', 'TOTAL_TOO_LARGE');

  const seen = new Set<string>();
  paymentMethods.forEach((pm, i) => {
    if (seen.has(pm.payment_method_id)) addFieldError(fields, `payment_methods.${i}.payment_method_id`, 'DUPLICATE');
    seen.add(pm.payment_method_id);
  });
  const zeros = paymentMethods.filter((pm) => pm.amount === 0).length;
  const fixed = paymentMethods.reduce((sum, pm) => sum + pm.amount, 0);
  if (paymentMethods.length === 0) {
    // An authorized invoice's buyer names them when paying.
    if (!opts.chargesLater) addFieldError(fields, 'payment_methods', 'REQUIRED');
  } else if (paymentMethods.length === 1) {
    // One method pays everything: its amount is 0 (the remainder) or the total itself.
    if (paymentMethods[0].amount !== 0 && paymentMethods[0].amount !== total)
      addFieldError(fields, 'payment_methods.0.amount', 'MUST_COVER_TOTAL');
  } else {
    if (zeros !== 1) addFieldError(fields, 'payment_methods', 'EXACTLY_ONE_REMAINDER');
    else if (fixed >= total) addFieldError(fields, 'payment_methods', 'EXCEEDS_TOTAL');
  }
  if (Object.keys(fields).length) return { ok: false, fields };
  const charges = paymentMethods.map((pm) => ({
    paymentMethodId: pm.payment_method_id,
    amount: pm.amount === 0 ? total - fixed : pm.amount,
  }));
  return { ok: true, plan: { currency: currency!, total, charges } };
}

/** Decimal places of a currency's minor unit: ISO 4217 for fiat; tokens are whole. */
const DECIMALS: Record<string, number> = { USD: 2, EUR: 2, GBP: 2, CAD: 2, AUD: 2, JPY: 0, KRW: 0 };

/** How many decimal places a currency's minor unit has (2 for USD; 0 for tokens and unknown codes). */
export function currencyDecimals(currency: string): number {
  return DECIMALS[currency] ?? 0;
}

/** `USD 1.55`, `VCD 100`: an amount (never negative: invoices carry none) in its currency's units. */
export function displayAmount(amount: number, currency: string): string {
  const decimals = DECIMALS[currency] ?? 0;
  if (decimals === 0) return `${currency} ${amount}`;
  const digits = String(amount).padStart(decimals + 1, '0');
  return `${currency} ${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * Why a recipient's `source_wallet_id` cannot be used, or null: the recipient's own destination
 * (`SAME_AS_DESTINATION`: the share would start where it lands) or the wallet of one of the
 * buyer's payment methods (`BUYER_WALLET`: the line would land back where it is paid from).
 * Either moves nothing, so the posting that should record the money would have no entries.
 */
export function sourceWalletProblem(
  recipient: { source_wallet_id?: string; destination_wallet_id: string },
  paymentMethods: ReadonlyArray<{ payment_method_id: string }>,
): 'SAME_AS_DESTINATION' | 'BUYER_WALLET' | null {
  const source = recipient.source_wallet_id;
  if (!source) return null;
  if (source === recipient.destination_wallet_id) return 'SAME_AS_DESTINATION';
  if (paymentMethods.some((pm) => walletIdOf(pm.payment_method_id) === source)) return 'BUYER_WALLET';
  return null;
}

/** Largest metadata object accepted, serialised. */
export const METADATA_MAX_BYTES = 8 * 1024;

export function metadataTooLarge(metadata: unknown): boolean {
  return metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES;
}

/** The invoice fields its view needs (an entity or a row mapped by the worker). */
export type InvoiceRecord = Pick<
  IInvoice,
  | 'id'
  | 'integratorId'
  | 'accountId'
  | 'escrowId'
  | 'invoiceType'
  | 'state'
  | 'referenceType'
  | 'referenceId'
  | 'description'
  | 'metadata'
  | 'currency'
  | 'totalAmount'
  | 'failureReason'
  | 'paymentMethods'
  | 'lineItems'
  | 'createdAt'
  | 'updatedAt'
> &
  Partial<Pick<IInvoice, 'nextActionUrl'>>;

/** The invoice as the API returns it (`getInvoice`). */
export function invoiceView(invoice: InvoiceRecord) {
  return {
    invoice_id: invoice.id,
    account_id: invoice.accountId,
    invoice_type: invoice.invoiceType,
    reference_type: invoice.referenceType ?? '',
    reference_id: invoice.referenceId ?? '',
    state: invoice.state,
    description: invoice.description ?? '',
    metadata: invoice.metadata,
    summary: {
      total_amount: invoice.totalAmount,
      currency: invoice.currency,
      display_amount: displayAmount(invoice.totalAmount, invoice.currency),
    },
    failure_reason: invoice.failureReason ?? '',
    // Only while the buyer's authentication (3-D Secure) is awaited.
    ...(invoice.state === 'PROCESSING' && invoice.nextActionUrl ? { next_action_url: invoice.nextActionUrl } : {}),
    created: invoice.createdAt.toISOString(),
    updated: invoice.updatedAt.toISOString(),
    payment_methods: Object.fromEntries(
      invoice.paymentMethods.map((c) => [
        c.payment_method_id,
        {
          payment_method_id: c.payment_method_id,
          authorized_amount: c.amount,
          currency: c.currency,
          display_amount: displayAmount(c.amount, c.currency),
          subitems: [],
        },
      ]),
    ),
    line_items: Object.fromEntries(
      invoice.lineItems.map((l) => [
        l.line_item_id,
        {
          line_item_id: l.line_item_id,
          product_sku: l.product_sku,
          amount: l.amount,
          currency: l.currency,
          display_amount: displayAmount(l.amount, l.currency),
          reference_type: l.reference_type,
          reference_id: l.reference_id,
          transaction_type: l.transaction_type,
          description: l.description,
          metadata: l.metadata,
          subitems: l.recipients.map((r) => ({
            amount: r.amount,
            currency: r.currency,
            display_amount: displayAmount(r.amount, r.currency),
            source_wallet_id: r.source_wallet_id,
            destination_wallet_id: r.destination_wallet_id,
          })),
        },
      ]),
    ),
    subitems: [],
  };
}

/**
 * What a token purchase invoice carries in its metadata: its pay issues these tokens (defined
 * here, where the pay runs, rather than by the tokens module that makes the invoice).
 */
export interface TokenPurchaseMetadata {
  tokens: number;
  token_currency: string;
  destination_account_id: string;
}

/** Where a buyer-present pay may send its buyer back after 3-D Secure: Holdfast's own pages, or a host the operator allows. */
export interface ReturnUrlPolicy {
  /** PUBLIC_URL: the hosted pages' origin. */
  publicUrl: string;
  /** ALLOWED_REDIRECT_PATTERNS: `example.com`, or `*.example.com` for its subdomains. */
  patterns: string[];
}

/**
 * Why a pay's `return_url` cannot be used, or null: an absolute https URL (http only for
 * localhost), without credentials, on the hosted pages' origin or a host the operator allows.
 */
export function returnUrlProblem(raw: string, policy: ReturnUrlPolicy): 'INVALID_VALUE' | 'REDIRECT_NOT_ALLOWED' | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'INVALID_VALUE';
  }
  if (raw.length > 2048 || url.username || url.password || !['https:', 'http:'].includes(url.protocol)) return 'INVALID_VALUE';
  if (url.origin === new URL(policy.publicUrl).origin) return null;
  const host = url.hostname.toLowerCase();
  if (url.protocol === 'http:' && host !== 'localhost' && host !== '127.0.0.1') return 'REDIRECT_NOT_ALLOWED';
  const allowed = policy.patterns.some((p) => {
    const pattern = p.trim().toLowerCase();
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
    return pattern !== '' && host === pattern;
  });
  return allowed ? null : 'REDIRECT_NOT_ALLOWED';
}
