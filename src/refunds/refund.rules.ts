/**
 * Refund rules, no I/O: what a purchase invoice may still have back, per payment method and
 * per line item; how a full or a line-item refund splits over them; how many tokens a token
 * purchase's refund takes back; the status a refund shows; the refund summary of
 * `GET /v2/invoice/{invoice_id}/refunds`.
 *
 * Splitting never rounds. A full refund fills the lines in the invoice's order from the
 * payment methods in the purchase's order (each cell the smaller of what the line and the
 * method have left), and a line-item refund takes from the given methods in the given order;
 * every part is a whole number of minor units and the parts add up to the refund.
 */
import type { StoredCharge, StoredLineItem } from '../invoices/invoice.entity.js';
import type { InvoiceRecord } from '../invoices/invoice.rules.js';

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

/** A line-item refund's request: `amount` of the line, from `payment_methods` in that order. */
export interface LineRefundRequest extends RefundRequest {
  line_item_id: string;
  amount: number;
  payment_methods: string[];
}

export type RefundStatus = 'REFUND-SUCCESS' | 'REFUND-PROCESSING' | 'REFUND-FAILED' | 'REFUND-REJECTED';

/** Why a card part failed after its money had moved: the provider failed the Refund later (Stripe `refund.failed`). */
export const REFUND_FAILED_LATER_REASON = 'refund_failed';

/**
 * How one payment method's part of a refund went: `processing` while a card processor has been
 * (or is about to be) asked and has not answered — its money is already posted, so it counts as
 * given back — then `succeeded` or `failed`.
 */
export type PartStatus = 'succeeded' | 'processing' | 'failed';

/** A payment method's part of a refund, as its invoice stores it (`payment_methods`). */
export interface RefundCharge extends StoredCharge {
  status?: PartStatus;
  /** A part that failed after its money was posted: a reversing posting (`refund:<invoice id>:<payment method id>:reversed`) gave it back. */
  reversed?: boolean;
  /** Why this part failed (the provider's reason). */
  failure_reason?: string;
}

/** One cell of a refund: `amount` of line `line_item_id` back to `payment_method_id`. */
export interface RefundCell {
  line_item_id: string;
  payment_method_id: string;
  amount: number;
}

/** A refund invoice's line: the purchase's line with the amount refunded from it and its cells. */
export type RefundLine = StoredLineItem & { parts?: Array<{ payment_method_id: string; amount: number }> };

/** A refund invoice as these rules read it. */
export type RefundInvoice = Pick<
  InvoiceRecord,
  'id' | 'state' | 'failureReason' | 'currency' | 'totalAmount' | 'paymentMethods' | 'lineItems' | 'metadata' | 'createdAt'
>;

/** The status a refund shows: SUCCESS, or FAILED rejected (the integrator could not cover it) or failed. */
export function refundStatus(refund: Pick<RefundInvoice, 'state' | 'failureReason'>): RefundStatus {
  if (refund.state === 'SUCCESS') return 'REFUND-SUCCESS';
  if (refund.state === 'PROCESSING') return 'REFUND-PROCESSING';
  return refund.failureReason === REFUND_REJECTED_REASON ? 'REFUND-REJECTED' : 'REFUND-FAILED';
}

/** A part's status (rows written before parts had a status: the refund's state says). */
export function partStatus(refund: Pick<RefundInvoice, 'state'>, part: RefundCharge): PartStatus {
  return part.status ?? (refund.state === 'SUCCESS' ? 'succeeded' : 'failed');
}

/** Whether a part of a refund gave its money back (or is giving it: `processing` parts are posted, and count until they fail). */
export function partSucceeded(refund: Pick<RefundInvoice, 'state'>, part: RefundCharge): boolean {
  return partStatus(refund, part) !== 'failed';
}

/**
 * A refund's state from its parts: PROCESSING while a part is, else SUCCESS when none failed,
 * else FAILED (a rejected refund stays as recorded).
 */
export function refundStateOf(parts: RefundCharge[]): 'PROCESSING' | 'SUCCESS' | 'FAILED' {
  if (parts.some((p) => p.status === 'processing')) return 'PROCESSING';
  return parts.some((p) => p.status === 'failed') ? 'FAILED' : 'SUCCESS';
}

/** What the successful parts of the refunds gave back, per payment method and per line item. */
function givenBack(refunds: RefundInvoice[]): { methods: Map<string, number>; lines: Map<string, number>; total: number } {
  const methods = new Map<string, number>();
  const lines = new Map<string, number>();
  let total = 0;
  for (const r of refunds) {
    const moved = new Set((r.paymentMethods as RefundCharge[]).filter((c) => partSucceeded(r, c)).map((c) => c.payment_method_id));
    for (const c of r.paymentMethods as RefundCharge[]) {
      if (!moved.has(c.payment_method_id)) continue;
      methods.set(c.payment_method_id, (methods.get(c.payment_method_id) ?? 0) + c.amount);
      total += c.amount;
    }
    for (const l of r.lineItems as RefundLine[]) {
      for (const p of l.parts ?? []) {
        if (moved.has(p.payment_method_id)) lines.set(l.line_item_id, (lines.get(l.line_item_id) ?? 0) + p.amount);
      }
    }
  }
  return { methods, lines, total };
}

/** What a purchase may still have back: per payment method (purchase order) and per line (invoice order). */
export interface Refundable {
  methods: StoredCharge[];
  lines: Array<{ line_item_id: string; amount: number }>;
  /** What was given back so far (successful parts only). */
  refunded: number;
}

/**
 * What each payment method and each line of a purchase may still have back: what it paid less
 * what the successful parts of its refunds gave back (failed and rejected parts moved nothing).
 * Entries with nothing left are kept, with 0.
 */
export function refundable(purchase: Pick<InvoiceRecord, 'paymentMethods' | 'lineItems'>, refunds: RefundInvoice[]): Refundable {
  const back = givenBack(refunds);
  const paid = new Map<string, StoredCharge>();
  for (const c of purchase.paymentMethods) {
    const prev = paid.get(c.payment_method_id);
    paid.set(c.payment_method_id, prev ? { ...prev, amount: prev.amount + c.amount } : { ...c });
  }
  return {
    methods: [...paid.values()].map((c) => ({ ...c, amount: Math.max(c.amount - (back.methods.get(c.payment_method_id) ?? 0), 0) })),
    lines: purchase.lineItems.map((l) => ({
      line_item_id: l.line_item_id,
      amount: Math.max(l.amount - (back.lines.get(l.line_item_id) ?? 0), 0),
    })),
    refunded: back.total,
  };
}

/** What the purchase may still have back in all: what its methods have left, within `cap` (a token purchase's unspent tokens). */
export function refundableTotal(left: Refundable, cap = Number.POSITIVE_INFINITY): number {
  const methods = left.methods.reduce((sum, c) => sum + c.amount, 0);
  const lines = left.lines.reduce((sum, l) => sum + l.amount, 0);
  return Math.max(Math.min(methods, lines, cap), 0);
}

/**
 * The cells of a full refund of `total` (everything left, or less within a cap): lines in
 * invoice order filled from methods in purchase order, each cell as much as both have left.
 */
export function fullRefundCells(left: Refundable, total: number): RefundCell[] {
  const methods = left.methods.map((c) => ({ ...c }));
  const cells: RefundCell[] = [];
  let rest = total;
  let m = 0;
  for (const line of left.lines) {
    let lineLeft = line.amount;
    while (lineLeft > 0 && rest > 0 && m < methods.length) {
      const method = methods[m]!;
      const amount = Math.min(lineLeft, method.amount, rest);
      if (amount > 0) {
        cells.push({ line_item_id: line.line_item_id, payment_method_id: method.payment_method_id, amount });
        method.amount -= amount;
        lineLeft -= amount;
        rest -= amount;
      }
      if (method.amount === 0) m++;
    }
  }
  return cells;
}

/** Why a line-item refund cannot run as asked: a 400 naming a field, or 409 NOTHING_TO_REFUND. */
export type LineRefundProblem =
  | { kind: 'field'; field: string; code: string; message: string }
  | { kind: 'nothing'; message: string }
  | { kind: 'no_line' };

/**
 * The cells of a line-item refund: `amount` of the line, from the given methods in order,
 * each taking at most what it paid and has not had back. Refused when the line is not on the
 * purchase, a method did not pay it (or is named twice), the line (or `cap`) has less left than
 * `amount`, or the named methods together have less left.
 */
export function lineRefundCells(
  left: Refundable,
  request: Pick<LineRefundRequest, 'line_item_id' | 'amount' | 'payment_methods'>,
  cap = Number.POSITIVE_INFINITY,
): { ok: true; cells: RefundCell[] } | { ok: false; problem: LineRefundProblem } {
  const line = left.lines.find((l) => l.line_item_id === request.line_item_id);
  if (!line) return { ok: false, problem: { kind: 'no_line' } };
  const seen = new Set<string>();
  for (const [i, id] of request.payment_methods.entries()) {
    const field = `payment_methods.${i}`;
    if (seen.has(id)) return { ok: false, problem: { kind: 'field', field, code: 'DUPLICATE', message: `${id} is named twice.` } };
    seen.add(id);
    if (!left.methods.some((c) => c.payment_method_id === id))
      return { ok: false, problem: { kind: 'field', field, code: 'NOT_CHARGED', message: `${id} did not pay this invoice.` } };
  }
  const lineLeft = Math.max(Math.min(line.amount, cap), 0);
  if (lineLeft === 0)
    return { ok: false, problem: { kind: 'nothing', message: 'Everything this line item charged has been refunded already.' } };
  if (request.amount > lineLeft)
    return {
      ok: false,
      problem: { kind: 'field', field: 'amount', code: 'EXCEEDS_REFUNDABLE', message: `This line item may have at most ${lineLeft} back.` },
    };
  const cells: RefundCell[] = [];
  let rest = request.amount;
  for (const id of request.payment_methods) {
    const method = left.methods.find((c) => c.payment_method_id === id)!;
    const amount = Math.min(method.amount, rest);
    if (amount > 0) cells.push({ line_item_id: line.line_item_id, payment_method_id: id, amount });
    rest -= amount;
  }
  if (rest > 0) {
    const can = request.amount - rest;
    return {
      ok: false,
      problem: {
        kind: 'field',
        field: 'payment_methods',
        code: 'EXCEEDS_REFUNDABLE',
        message: `The payment methods named may have at most ${can} back.`,
      },
    };
  }
  return { ok: true, cells };
}

/** A refund's cells gathered per payment method (first-seen order), each with how its part went. */
export function refundCharges(cells: RefundCell[], currency: string, failed: (paymentMethodId: string) => boolean): RefundCharge[] {
  const byMethod = new Map<string, RefundCharge>();
  for (const c of cells) {
    const prev = byMethod.get(c.payment_method_id);
    if (prev) prev.amount += c.amount;
    else
      byMethod.set(c.payment_method_id, {
        payment_method_id: c.payment_method_id,
        amount: c.amount,
        currency,
        status: failed(c.payment_method_id) ? 'failed' : 'succeeded',
      });
  }
  return [...byMethod.values()];
}

/** A refund's cells gathered per line: the purchase's line with the amount refunded from it and its parts. */
export function refundLines(cells: RefundCell[], purchaseLines: StoredLineItem[]): RefundLine[] {
  return purchaseLines.flatMap((l) => {
    const parts = cells.filter((c) => c.line_item_id === l.line_item_id);
    if (parts.length === 0) return [];
    return [
      {
        ...l,
        amount: parts.reduce((sum, p) => sum + p.amount, 0),
        recipients: [],
        parts: parts.map((p) => ({ payment_method_id: p.payment_method_id, amount: p.amount })),
      },
    ];
  });
}

/**
 * Tokens a token purchase's refund takes back: counted on the cents refunded in all, rounded
 * up (the integrator never refunds cents whose tokens stay with the buyer), so that a purchase
 * refunded in full takes back exactly the tokens it issued. `before` cents were refunded
 * already, `now` are refunded now; the purchase issued `tokens` for `cents`.
 */
export function tokensTakenBack(tokens: number, cents: number, before: number, now: number): number {
  return Number(tokensUpTo(tokens, cents, before + now) - tokensUpTo(tokens, cents, before));
}

/** The tokens `c` refunded cents take back in all: ceil(c × tokens / cents), exactly (the product may pass 2^53). */
function tokensUpTo(tokens: number, cents: number, c: number): bigint {
  if (c >= cents) return BigInt(tokens);
  const product = BigInt(c) * BigInt(tokens);
  const whole = BigInt(cents);
  return (product + whole - 1n) / whole;
}

/**
 * The most cents a token purchase may still have back when the buyer's wallet holds `unspent`
 * tokens: the cents those tokens (with the ones already taken back) cover.
 */
export function tokenRefundCap(tokens: number, cents: number, before: number, unspent: number): number {
  const reach = tokensUpTo(tokens, cents, before) + BigInt(unspent);
  if (reach >= BigInt(tokens)) return cents - before;
  // ceil(c × tokens / cents) ≤ reach  ⇔  c ≤ floor(reach × cents / tokens).
  const covered = Number((reach * BigInt(cents)) / BigInt(tokens));
  return Math.max(Math.min(cents - before, covered - before), 0);
}

/** How far an escrow invoice's escrow got (read from its phase invoices); null for an invoice of no escrow. */
export type EscrowOutcome = 'committed' | 'cancelled' | 'neither' | null;

/**
 * Whether a purchase invoice can be refunded at all, and why not (the message of its 409):
 * a SUCCESS standard, authorized or token purchase invoice can, and the escrow invoice of a
 * COMMITTED escrow; an ESCROWED escrow is cancelled instead, a cancelled one was refunded by
 * its cancel; money never lands in a merged account, so a merged buyer's purchases cannot.
 */
export function refundRefusal(
  invoice: Pick<InvoiceRecord, 'invoiceType' | 'state' | 'escrowId'>,
  escrow: EscrowOutcome,
  merged: boolean,
): string | null {
  const purchaseType = invoice.escrowId ? /^user_purchase_escrow(_virtual)?$/ : /^(user_purchase(_virtual)?|token_purchase)$/;
  if (!purchaseType.test(invoice.invoiceType)) return `An invoice of type ${invoice.invoiceType} cannot be refunded.`;
  if (invoice.state !== 'SUCCESS') return `Only a SUCCESS invoice can be refunded; this one is ${invoice.state}.`;
  if (invoice.escrowId && escrow === 'cancelled') return 'The escrow was cancelled: its cancel refunded the buyer.';
  if (invoice.escrowId && escrow !== 'committed')
    return 'An ESCROWED escrow is not refunded but cancelled (POST /v2/escrow/{escrow_id}/cancel); only a COMMITTED escrow can be refunded.';
  if (merged) return 'The buyer (or the account its tokens went to) was merged into another account; its purchases cannot be refunded.';
  return null;
}

/** One refund as the summary lists it. */
export function refundView(refund: RefundInvoice) {
  const meta = refund.metadata as Partial<RefundRequest> & { line_item_id?: string };
  return {
    refund_invoice_id: refund.id,
    status: refundStatus(refund),
    line_item_id: meta.line_item_id ?? null,
    amount: refund.totalAmount,
    currency: refund.currency,
    payment_methods: (refund.paymentMethods as RefundCharge[]).map((c) => ({
      payment_method_id: c.payment_method_id,
      amount: c.amount,
      status: partStatus(refund, c),
    })),
    reason: meta.reason ?? 'other',
    sub_reason: meta.sub_reason ?? '',
    note: meta.note ?? '',
    failure_reason: refund.failureReason ?? '',
    created: refund.createdAt.toISOString(),
  };
}

/**
 * The refund summary of a purchase invoice. `cap` bounds what is refundable (a token
 * purchase's unspent tokens; 0 for a purchase that cannot be refunded); `status` filters the
 * listed refunds (not the totals).
 */
export function refundSummary(
  purchase: Pick<InvoiceRecord, 'id' | 'currency' | 'paymentMethods' | 'lineItems'>,
  refunds: RefundInvoice[],
  opts: { cap?: number; status?: RefundStatus } = {},
) {
  const left = refundable(purchase, refunds);
  const still = refundableTotal(left, opts.cap);
  return {
    invoice_id: purchase.id,
    // Everything paid came back (not merely nothing left: a token purchase's spent tokens cap it).
    is_fully_refunded: left.refunded > 0 && left.methods.every((m) => m.amount === 0),
    refunded: { [purchase.currency]: left.refunded },
    refundable: { [purchase.currency]: still },
    refunds: refunds.filter((r) => !opts.status || refundStatus(r) === opts.status).map(refundView),
  };
}
