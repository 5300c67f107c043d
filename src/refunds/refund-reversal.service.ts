/**
 * A card part whose money Holdfast posted back to the card and which the card processor then did
 * not refund: refused when asked, an idempotency key the processor would not honour, or a Refund
 * that failed later (Stripe `refund.failed`). One reversing posting gives the money back —
 * `refund:<invoice id>:<payment method id>:reversed`, card clearing → the integrator's default
 * wallet (where a refund takes its money from; for an escrow cancel, the integrator now holds
 * what its buyer is owed) — and, for a token purchase's refund, the tokens that part took back
 * (`…:reversed-tokens`). The part is marked `failed` (`reversed`, with its reason), the refund's
 * state follows its parts, and `refund-completed` tells the integrator. The references are
 * unique and the part's status is checked under the invoice's lock: a duplicate or late event
 * reverses nothing twice.
 */
import type { Db } from '../db/sql.js';
import { lockInvoice, readInvoice } from '../invoices/invoice.repository.js';
import { invoiceView, type InvoiceRecord } from '../invoices/invoice.rules.js';
import { lockForPosting, post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { escrowInvoiceIdOf, setRefundParts } from './refund.repository.js';
import { partStatus, refundStateOf, refundStatus, tokensTakenBack, type RefundCharge } from './refund.rules.js';
import { tokenHolderOf, tokenWalletOf } from './refund.service.js';

/** The reversing posting's reference of a part. */
export const reversalRef = (invoiceId: string, paymentMethodId: string) => `refund:${invoiceId}:${paymentMethodId}:reversed`;

/** The `refund-completed` message of a refund (or an escrow cancel's card refunds) as its parts stand. */
export function refundCompletedMessage(invoice: InvoiceRecord, paymentInvoiceId: string, status: string) {
  const parts = invoice.paymentMethods as RefundCharge[];
  const view = (p: RefundCharge) => ({
    payment_method_id: p.payment_method_id,
    amount: p.amount,
    currency: invoice.currency,
    ...(p.failure_reason ? { failure_reason: p.failure_reason } : {}),
  });
  return {
    account_id: invoice.accountId,
    invoice_id: invoice.id,
    payment_invoice_id: paymentInvoiceId,
    status,
    successful_refunds: parts.filter((p) => partStatus(invoice, p) === 'succeeded').map(view),
    failed_refunds: parts.filter((p) => partStatus(invoice, p) === 'failed').map(view),
  };
}

/** Whether an invoice is an escrow cancel's (its parts are the escrow's card refunds; its state stays SUCCESS). */
const isEscrowCancel = (invoice: InvoiceRecord) => invoice.invoiceType.startsWith('user_purchase_refund_escrow');

/**
 * Reverses the part of `invoice` (a refund or an escrow cancel invoice, locked by the caller) to
 * `paymentMethodId`: nothing when it failed already (answers false). Mutates `invoice`. With
 * `announce`, emits `refund-completed` (and, for a refund, `invoice-completed`) as it now stands.
 */
export async function reverseRefundPart(
  db: Db,
  invoice: InvoiceRecord,
  paymentMethodId: string,
  reason: string,
  opts: { announce: boolean },
): Promise<boolean> {
  const parts = (invoice.paymentMethods as RefundCharge[]).map((p) => ({ ...p }));
  const part = parts.find((p) => p.payment_method_id === paymentMethodId);
  if (!part || partStatus(invoice, part) === 'failed') return false;
  const posted = parts.filter((p) => partStatus(invoice, p) !== 'failed').reduce((sum, p) => sum + p.amount, 0);
  const { integratorId, currency } = invoice;
  const meta = (invoice.metadata ?? {}) as { refunded_invoice_id?: string; refunded_before?: number };
  const purchase = meta.refunded_invoice_id && !isEscrowCancel(invoice) ? await readInvoice(db, meta.refunded_invoice_id) : undefined;
  const holder = purchase ? tokenHolderOf(purchase) : null;
  const publisher = await systemAccount(db, integratorId, 'publisher_wallet', currency);
  const clearing = await systemAccount(db, integratorId, 'card_clearing', currency);
  const tokenWallet = purchase && holder ? await tokenWalletOf(db, purchase) : undefined;
  const tokenIssuance = holder ? await systemAccount(db, integratorId, 'token_issuance', holder.token_currency) : null;
  await lockForPosting(db, [publisher, clearing, tokenWallet, tokenIssuance]);
  const postings: Posting[] = [
    {
      integratorId,
      reference: reversalRef(invoice.id, paymentMethodId),
      description: `card refund of ${invoice.id} to ${paymentMethodId} reversed (${reason})`,
      entries: [
        { account: clearing, currency, amount: -part.amount },
        { account: publisher, currency, amount: part.amount },
      ],
    },
  ];
  if (purchase && holder && tokenWallet && tokenIssuance) {
    // The tokens this part took back: what the refund's posted parts took less what they take without it.
    const before = Number(meta.refunded_before ?? 0);
    const tokens = tokensTakenBack(holder.tokens, purchase.totalAmount, before + posted - part.amount, part.amount);
    if (tokens > 0)
      postings.push({
        integratorId,
        reference: `${reversalRef(invoice.id, paymentMethodId)}-tokens`,
        description: `card refund of ${invoice.id} reversed: ${tokens} ${holder.token_currency} back`,
        entries: [
          { account: tokenIssuance, currency: holder.token_currency, amount: -tokens },
          { account: tokenWallet, currency: holder.token_currency, amount: tokens },
        ],
      });
  }
  if ((await post(db, ...postings)) !== postings.length)
    throw new Error(`${invoice.id}: the reversal of its part to ${paymentMethodId} was posted before`);
  part.status = 'failed';
  part.reversed = true;
  part.failure_reason = reason;
  invoice.paymentMethods = parts;
  if (!isEscrowCancel(invoice)) {
    invoice.state = refundStateOf(parts);
    if (invoice.state === 'FAILED') invoice.failureReason = invoice.failureReason ?? reason;
  }
  invoice.updatedAt = await setRefundParts(db, invoice.id, invoice.state, invoice.failureReason ?? null, parts);
  if (opts.announce) await announceRefund(db, invoice);
  return true;
}

/**
 * `refund-completed` (and for a refund invoice `invoice-completed`) as the invoice now stands.
 * `payment_invoice_id` is the refunded purchase, or for an escrow cancel its escrow invoice.
 */
export async function announceRefund(db: Db, invoice: InvoiceRecord): Promise<void> {
  const cancel = isEscrowCancel(invoice);
  const paymentInvoiceId = cancel
    ? ((invoice.escrowId && (await escrowInvoiceIdOf(db, invoice.escrowId))) ?? '')
    : String((invoice.metadata as { refunded_invoice_id?: string } | null)?.refunded_invoice_id ?? '');
  // An escrow cancel is recorded SUCCESS (the escrow's money left holding); its card parts say how the refunds went.
  const status = cancel
    ? refundStatus({ state: refundStateOf(invoice.paymentMethods as RefundCharge[]), failureReason: null })
    : refundStatus(invoice);
  await insertEvent(db, invoice.integratorId, 'refund-completed', refundCompletedMessage(invoice, paymentInvoiceId, status));
  if (!cancel) await insertEvent(db, invoice.integratorId, 'invoice-completed', invoiceView(invoice));
}

/**
 * Records how an escrow cancel's card refunds went (`outcomes` by payment method: null refunded,
 * else the reason it was not), in a transaction of its own under the cancel invoice's lock: a
 * refunded part `succeeded`, one the provider refused reversed (its money stays with the
 * integrator, the part `failed`), announced in `refund-completed`. A part recorded already is
 * left as it is.
 */
export async function recordCancelRefunds(db: Db, cancelInvoiceId: string, outcomes: Map<string, string | null>): Promise<void> {
  await db.transaction(async (tx) => {
    const invoice = await lockInvoice(tx, cancelInvoiceId);
    if (!invoice) throw new Error(`escrow cancel invoice ${cancelInvoiceId} is gone`);
    const parts = (invoice.paymentMethods as RefundCharge[]).map((p) => ({ ...p }));
    for (const p of parts) if (!p.status && outcomes.get(p.payment_method_id) === null) p.status = 'succeeded';
    invoice.paymentMethods = parts;
    invoice.updatedAt = await setRefundParts(tx, invoice.id, invoice.state, invoice.failureReason ?? null, parts);
    let failed = false;
    for (const [pm, reason] of outcomes)
      if (reason !== null && (await reverseRefundPart(tx, invoice, pm, reason, { announce: false }))) failed = true;
    if (failed) await announceRefund(tx, invoice);
  });
}

/** The payment methods whose part of an escrow cancel is recorded (its refund answered). */
export async function recordedCancelParts(db: Db, cancelInvoiceId: string): Promise<Set<string>> {
  const invoice = await readInvoice(db, cancelInvoiceId);
  return new Set(((invoice?.paymentMethods ?? []) as RefundCharge[]).filter((p) => p.status).map((p) => p.payment_method_id));
}
