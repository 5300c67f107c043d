/**
 * The invoices module's `ledger verify` check: each invoice without escrow (standard and token
 * purchases, refunds) has exactly the postings (references `invoice:<id>:<phase>`) what became
 * of it implies; and each card charge and refund recorded on a Stripe card matches the one
 * PaymentIntent or Refund stored behind it.
 */
import type { Db } from '../db/sql.js';
import { type LedgerCheck, type ProblemList, shownPhases } from '../ledger/ledger-verify.service.js';
import { chargeRef, refundRef } from '../rails/card-processor.port.js';
import { type ProviderObjectRecord, providerObjectsOfRefs } from '../rails/provider-object.repository.js';
import { type InvoiceOutcome, invoicePhaseMismatches, stripeCardMovesPage } from './invoice.repository.js';
import { stripeCardMoveMismatch } from './stripe-card-check.rules.js';

/** Invoices read per page: memory stays the same whatever the number of invoices. */
const PAGE = 500;

/**
 * Every card charge of a paid purchase and every refund part that went through, on a Stripe
 * card, against the objects stored behind its ref (`stripeCardMoveMismatch`). Sandbox cards
 * have no provider object and are not checked.
 */
async function stripeCardChecks(db: Db, found: ProblemList): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  for (let after = ''; ; ) {
    const { moves, last } = await stripeCardMovesPage(db, after, PAGE);
    if (last === null) break;
    const refOf = (m: (typeof moves)[number]) =>
      m.kind === 'charge' ? chargeRef(m.invoiceId, m.paymentMethodId) : refundRef(m.invoiceId, m.paymentMethodId);
    const paidRefs = moves.filter((m) => m.kind === 'refund' && m.paidInvoiceId).map((m) => chargeRef(m.paidInvoiceId!, m.paymentMethodId));
    const byRef = new Map<string, ProviderObjectRecord[]>();
    for (const o of await providerObjectsOfRefs(db, 'stripe', [...new Set([...moves.map(refOf), ...paidRefs])]))
      byRef.set(o.holdfastRef, [...(byRef.get(o.holdfastRef) ?? []), o]);
    for (const m of moves) {
      const paid = m.paidInvoiceId
        ? byRef.get(chargeRef(m.paidInvoiceId, m.paymentMethodId))?.find((o) => o.objectType === 'payment_intent')
        : undefined;
      const problem = stripeCardMoveMismatch(m, byRef.get(refOf(m)) ?? [], paid);
      if (!problem) continue;
      total += 1;
      if (problems.length < found.cap) problems.push(problem);
    }
    after = last;
  }
  found.add(
    problems.map((line) => ({ line, total: String(total) })),
    (r) => r.line,
  );
}

/**
 * The postings (by phase, sorted) an invoice without escrow must have, by what became of it:
 * paid purchases have their postings, others none; a refund has its posting when a part of it
 * went through, whatever its state.
 */
export const INVOICE_PHASES: Record<InvoiceOutcome, string[]> = {
  unpaid: [],
  paid: ['pay'],
  'paid-token-purchase': ['issue', 'pay'],
  'refund-not-moved': [],
  'refund-moved': ['refund'],
};

/** Postings an invoice may have beside those above: a token purchase's refund may also take tokens back. */
export const INVOICE_OPTIONAL_PHASES: Partial<Record<InvoiceOutcome, string[]>> = { 'refund-moved': ['tokens'] };

export const invoiceLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(await invoicePhaseMismatches(db, INVOICE_PHASES, INVOICE_OPTIONAL_PHASES, found.cap), (r) => {
    const actual = shownPhases(r.phases, INVOICE_OPTIONAL_PHASES[r.outcome]);
    return `invoice ${r.id} is ${r.state} but has postings [${actual.join(', ')}] (expected [${INVOICE_PHASES[r.outcome].join(', ')}])`;
  });
  await stripeCardChecks(db, found);
};
