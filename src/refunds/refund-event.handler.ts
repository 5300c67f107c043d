/**
 * Stripe's events about a Refund, for the refunds module: the invoices module's handler keeps
 * the Refund's snapshot (forward only, `applyStripeRefundEvent`); then, when the Refund as now
 * stored has failed (or was canceled) and the card part it stands behind — of a refund invoice or
 * of an escrow cancel, `invoice:<invoice id>:refund:<payment method id>` — is recorded as having
 * gone through, the part is reversed (`reverseRefundPart`: one reversing posting, the part
 * `failed`, `refund-completed` again). A part still `processing` is left to its refund command,
 * which reads the stored Refund when it records the provider's answers. Duplicates and
 * out-of-order events change nothing: the snapshot never moves back, the part is checked under
 * its invoice's lock and the posting's reference is unique.
 */
import type { Db } from '../db/sql.js';
import { lockInvoice } from '../invoices/invoice.repository.js';
import { applyStripeRefundEvent, type StripeRefundEvent } from '../invoices/stripe-refund-event.handler.js';
import { findProviderObject } from '../rails/provider-object.repository.js';
import { reverseRefundPart } from './refund-reversal.service.js';
import { partStatus, REFUND_FAILED_LATER_REASON, type RefundCharge } from './refund.rules.js';

/** What a refund part's ref names: `invoice:<invoice id>:refund:<payment method id>`. */
const REF = /^invoice:([^:]+):refund:(.+)$/;

export async function applyRefundEvent(db: Db, event: StripeRefundEvent): Promise<'applied' | 'ignored'> {
  const kept = await applyStripeRefundEvent(db, event);
  const id = ((event.payload.data as { object?: { id?: unknown } } | undefined)?.object?.id ?? '') as string;
  const stored = await findProviderObject(db, 'stripe', id);
  const status = String(stored?.snapshot.status ?? '');
  if (stored?.objectType !== 'refund' || (status !== 'failed' && status !== 'canceled')) return kept;
  const [, invoiceId, paymentMethodId] = REF.exec(stored.holdfastRef) ?? [];
  if (!invoiceId || !paymentMethodId) return kept;
  const invoice = await lockInvoice(db, invoiceId);
  const part = (invoice?.paymentMethods as RefundCharge[] | undefined)?.find((p) => p.payment_method_id === paymentMethodId);
  if (!invoice || !part || partStatus(invoice, part) !== 'succeeded') return kept;
  const reason = typeof stored.snapshot.failure_reason === 'string' ? stored.snapshot.failure_reason : REFUND_FAILED_LATER_REASON;
  return (await reverseRefundPart(db, invoice, paymentMethodId, reason, { announce: true })) ? 'applied' : kept;
}
