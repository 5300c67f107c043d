/**
 * The invoices module's `ledger verify` check: each invoice without escrow (standard and token
 * purchases, refunds) has exactly the postings (references `invoice:<id>:<phase>`) what became
 * of it implies.
 */
import { type LedgerCheck, shownPhases } from '../ledger/ledger-verify.service.js';
import { type InvoiceOutcome, invoicePhaseMismatches } from './invoice.repository.js';

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
};
