/**
 * Refund rules, no I/O: what a purchase invoice may still have back (per payment method: what it
 * paid less what its successful refunds returned), the status a refund shows, and the refund
 * summary of `GET /v2/invoice/{invoice_id}/refunds`.
 */
import type { StoredCharge } from './invoice.entity.js';
import type { InvoiceRecord } from './invoice.rules.js';

/** Why a refund was rejected: the integrator's wallet could not cover it (REFUND-REJECTED). */
export const REFUND_REJECTED_REASON = 'integrator_insufficient_funds';

/** The reasons a refund may give. */
export const REFUND_REASONS = ['billing', 'fraud', 'product_related', 'other'] as const;

/** What a refund asks for, stored in its invoice's metadata. */
export interface RefundRequest {
  reason: (typeof REFUND_REASONS)[number];
  sub_reason?: string;
  note?: string;
}

export type RefundStatus = 'REFUND-SUCCESS' | 'REFUND-FAILED' | 'REFUND-REJECTED';

/** A refund invoice as these rules read it. */
export type RefundInvoice = Pick<
  InvoiceRecord,
  'id' | 'state' | 'failureReason' | 'currency' | 'totalAmount' | 'paymentMethods' | 'metadata' | 'createdAt'
>;

/** The status a refund shows: SUCCESS, or FAILED rejected (the integrator could not cover it) or failed. */
export function refundStatus(refund: Pick<RefundInvoice, 'state' | 'failureReason'>): RefundStatus {
  if (refund.state === 'SUCCESS') return 'REFUND-SUCCESS';
  return refund.failureReason === REFUND_REJECTED_REASON ? 'REFUND-REJECTED' : 'REFUND-FAILED';
}

/**
 * What each payment method of a purchase may still have back: what it paid less what the
 * successful refunds gave it (failed and rejected refunds moved nothing). Methods with nothing
 * left are left out; the order is the purchase's.
 */
export function refundableCharges(purchase: Pick<InvoiceRecord, 'paymentMethods'>, refunds: RefundInvoice[]): StoredCharge[] {
  const back = new Map<string, number>();
  for (const r of refunds) {
    if (r.state !== 'SUCCESS') continue;
    for (const c of r.paymentMethods) back.set(c.payment_method_id, (back.get(c.payment_method_id) ?? 0) + c.amount);
  }
  const paid = new Map<string, StoredCharge>();
  for (const c of purchase.paymentMethods) {
    const prev = paid.get(c.payment_method_id);
    paid.set(c.payment_method_id, prev ? { ...prev, amount: prev.amount + c.amount } : { ...c });
  }
  return [...paid.values()].map((c) => ({ ...c, amount: c.amount - (back.get(c.payment_method_id) ?? 0) })).filter((c) => c.amount > 0);
}

/** How far an escrow invoice's escrow got (read from its phase invoices); null for an invoice of no escrow. */
export type EscrowOutcome = 'committed' | 'cancelled' | 'neither' | null;

/**
 * Whether a purchase invoice can be refunded at all, and why not (the message of its 409):
 * a SUCCESS standard or authorized invoice can, and the escrow invoice of a COMMITTED escrow;
 * an ESCROWED escrow is cancelled instead, a cancelled one was refunded by its cancel.
 */
export function refundRefusal(invoice: Pick<InvoiceRecord, 'invoiceType' | 'state' | 'escrowId'>, escrow: EscrowOutcome): string | null {
  if (invoice.invoiceType === 'token_purchase') return 'Refunds of token purchases are not available yet.';
  const purchaseType = invoice.escrowId ? /^user_purchase_escrow(_virtual)?$/ : /^user_purchase(_virtual)?$/;
  if (!purchaseType.test(invoice.invoiceType)) return `An invoice of type ${invoice.invoiceType} cannot be refunded.`;
  if (invoice.state !== 'SUCCESS') return `Only a SUCCESS invoice can be refunded; this one is ${invoice.state}.`;
  if (invoice.escrowId && escrow === 'cancelled') return 'The escrow was cancelled: its cancel refunded the buyer.';
  if (invoice.escrowId && escrow !== 'committed')
    return 'An ESCROWED escrow is not refunded but cancelled (POST /v2/escrow/{escrow_id}/cancel); only a COMMITTED escrow can be refunded.';
  return null;
}

/** One refund as the summary lists it. */
export function refundView(refund: RefundInvoice) {
  const meta = refund.metadata as Partial<RefundRequest>;
  return {
    refund_invoice_id: refund.id,
    status: refundStatus(refund),
    line_item_id: null as string | null,
    amount: refund.totalAmount,
    currency: refund.currency,
    payment_methods: refund.paymentMethods.map((c) => ({ payment_method_id: c.payment_method_id, amount: c.amount })),
    reason: meta.reason ?? 'other',
    sub_reason: meta.sub_reason ?? '',
    note: meta.note ?? '',
    failure_reason: refund.failureReason ?? '',
    created: refund.createdAt.toISOString(),
  };
}

/** The refund summary of a purchase invoice; `status` filters the listed refunds (not the totals). */
export function refundSummary(
  purchase: Pick<InvoiceRecord, 'id' | 'currency' | 'paymentMethods'>,
  refunds: RefundInvoice[],
  status?: RefundStatus,
) {
  const refunded = refunds.filter((r) => r.state === 'SUCCESS').reduce((sum, r) => sum + r.totalAmount, 0);
  const refundable = refundableCharges(purchase, refunds).reduce((sum, c) => sum + c.amount, 0);
  return {
    invoice_id: purchase.id,
    is_fully_refunded: refundable === 0 && refunded > 0,
    refunded: { [purchase.currency]: refunded },
    refundable: { [purchase.currency]: refundable },
    refunds: refunds.filter((r) => !status || refundStatus(r) === status).map(refundView),
  };
}
