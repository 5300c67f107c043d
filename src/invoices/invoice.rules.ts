/** Invoice views and money display (pure). */
import type { IInvoice } from './invoice.entity.js';

/** Decimal places of a currency's minor unit: ISO 4217 for fiat; tokens are whole. */
const DECIMALS: Record<string, number> = { USD: 2, EUR: 2, GBP: 2, CAD: 2, AUD: 2, JPY: 0, KRW: 0 };

/** `USD 1.55`, `VCD 100`. */
export function displayAmount(amount: number, currency: string): string {
  const decimals = DECIMALS[currency] ?? 0;
  if (decimals === 0) return `${currency} ${amount}`;
  const negative = amount < 0;
  const digits = String(Math.abs(amount)).padStart(decimals + 1, '0');
  return `${currency} ${negative ? '-' : ''}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/** Largest metadata object accepted, serialised (DESIGN §4). */
export const METADATA_MAX_BYTES = 8 * 1024;

export function metadataTooLarge(metadata: unknown): boolean {
  return metadata !== undefined && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES;
}

/** The invoice shape of DESIGN §4. */
export function invoiceView(invoice: IInvoice) {
  return {
    invoice_id: invoice.id,
    account_id: invoice.accountId,
    invoice_type: invoice.invoiceType,
    reference_type: invoice.referenceType ?? '',
    reference_id: invoice.referenceId ?? '',
    state: invoice.state,
    description: invoice.description ?? '',
    metadata: invoice.metadata,
    summary: { total_amount: invoice.totalAmount, currency: invoice.currency, display_amount: displayAmount(invoice.totalAmount, invoice.currency) },
    failure_reason: invoice.failureReason ?? '',
    created: invoice.createdAt.toISOString(),
    updated: invoice.updatedAt.toISOString(),
    payment_methods: Object.fromEntries(invoice.paymentMethods.map((c) => [c.payment_method_id, {
      payment_method_id: c.payment_method_id,
      authorized_amount: c.amount,
      currency: c.currency,
      display_amount: displayAmount(c.amount, c.currency),
      subitems: [],
    }])),
    line_items: Object.fromEntries(invoice.lineItems.map((l) => [l.line_item_id, {
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
    }])),
    subitems: [],
  };
}
