/**
 * `holdfast ledger verify`: the ledger's own invariants (ledger.service) and, on the same
 * snapshot, those that tie it to escrows and invoices — each integrator's escrow holding
 * balance equals the total of its ESCROWED escrows, and each escrow and standard invoice has
 * exactly the postings its state implies, as does each token exchange. Here because the
 * escrow module builds on the ledger and invoices, not the reverse. The tables of expected
 * phases below are passed to PostgreSQL, which compares and returns only the owners in
 * breach: memory does not grow with the data.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import {
  type InvoiceOutcome,
  invoicePhaseMismatches,
  overRefundedLines,
  overRefundedMethods,
  refundAmountMismatches,
} from '../invoices/invoice.repository.js';
import { type ProblemList, verifyLedgerWith, type VerifyReport } from '../ledger/ledger.service.js';
import { exchangePhaseMismatches } from '../tokens/conversion.repository.js';
import { escrowHoldingMismatches, escrowPhaseMismatches } from './escrow.repository.js';
import { payoutHoldingMismatches, payoutPhaseMismatches } from '../payouts/payout.repository.js';

export type { VerifyReport } from '../ledger/ledger.service.js';

/** The postings (by phase, sorted) a payout must have in each state. */
export const PAYOUT_PHASES: Record<string, string[]> = {
  'FUNDS-IN-ESCROW': ['hold'],
  FAILED: ['hold'],
  SUCCESS: ['execute', 'hold'],
  'USER-REVERSED': ['hold', 'reverse'],
  'SUPPORT-REVERSED': ['hold', 'reverse'],
};

/** The postings (by phase) an escrow must have in each state; `shares` is optional (no recipients). */
export const ESCROW_PHASES: Record<string, string[]> = {
  OPEN: [],
  'ESCROW-FAILED': [],
  ESCROWED: ['pay'],
  COMMITTED: ['pay', 'commit'],
  CANCELLED: ['pay', 'cancel'],
};

/** The postings (by phase, sorted) a token exchange must have in each status. */
export const EXCHANGE_PHASES: Record<string, string[]> = {
  OPEN: [],
  EXPIRED: [],
  EXECUTED: ['execute'],
  REVERSED: ['execute', 'reverse'],
};

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

/** Every ledger, escrow and invoice invariant, checked on one snapshot; at most `cap` problems reported (all counted). */
export function verifyLedger(em: EntityManager, cap?: number): Promise<VerifyReport> {
  return verifyLedgerWith(em, escrowProblems, cap);
}

/** The stored phases of a posting owner as the problem lines show them: named, sorted, those in `leave` left out. */
function shown(phases: string[] | null, leave: string[] = []): string[] {
  return (phases ?? []).filter((p) => p && !leave.includes(p)).sort();
}

/**
 * Each check compares in PostgreSQL and brings back only the owners in breach (at most the
 * cap): the tables above travel to it as parameters.
 */
async function escrowProblems(db: Db, found: ProblemList): Promise<void> {
  const cap = found.cap;
  found.add(
    await escrowHoldingMismatches(db, cap),
    (r) => `escrow holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its ESCROWED escrows total ${r.held}`,
  );
  found.add(await escrowPhaseMismatches(db, ESCROW_PHASES, cap), (r) => {
    const expected = ESCROW_PHASES[r.status] ?? [];
    return `escrow ${r.id} is ${r.status} but has postings [${shown(r.phases).join(', ')}] (expected [${expected.join(', ')}])`;
  });
  // Standard and token purchase invoices and refunds.
  found.add(await invoicePhaseMismatches(db, INVOICE_PHASES, INVOICE_OPTIONAL_PHASES, cap), (r) => {
    const actual = shown(r.phases, INVOICE_OPTIONAL_PHASES[r.outcome]);
    return `invoice ${r.id} is ${r.state} but has postings [${actual.join(', ')}] (expected [${INVOICE_PHASES[r.outcome].join(', ')}])`;
  });
  // Refunds: no payment method has had back more than it paid.
  found.add(
    await overRefundedMethods(db, cap),
    (r) => `invoice ${r.invoice_id}: payment method ${r.payment_method_id} paid ${r.paid} but had ${r.back} back in refunds`,
  );
  // Payouts: payout holding holds exactly the open payouts; each payout has the postings of its state.
  found.add(
    await payoutHoldingMismatches(db, cap),
    (r) => `payout holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its open payouts hold ${r.held}`,
  );
  found.add(await payoutPhaseMismatches(db, PAYOUT_PHASES, cap), (r) =>
    r.status === null
      ? `postings [${(r.phases ?? []).join(', ')}] name payout ${r.id}, which does not exist`
      : `payout ${r.id} is ${r.status} but has postings [${shown(r.phases).join(', ')}] (expected [${(PAYOUT_PHASES[r.status] ?? []).join(', ')}])`,
  );
  // Refunds: each refund posting moved exactly the parts of its refund that went through.
  found.add(
    await refundAmountMismatches(db, cap),
    (r) => `refund invoice ${r.id}: its parts that went through total ${r.succeeded} but its posting moved ${r.moved}`,
  );
  // Refunds: no line item has had back more than it cost.
  found.add(
    await overRefundedLines(db, cap),
    (r) => `invoice ${r.invoice_id}: line item ${r.line_item_id} cost ${r.paid} but had ${r.back} back in refunds`,
  );
  // Token exchanges: an EXECUTED one has its execution posting, a REVERSED one that and its
  // reversal, any other none; no such posting names a missing exchange.
  found.add(await exchangePhaseMismatches(db, EXCHANGE_PHASES, cap), (r) =>
    r.status === null
      ? `postings [${shown(r.phases).join(', ')}] name token exchange ${r.id}, which does not exist`
      : `token exchange ${r.id} is ${r.status} but has postings [${shown(r.phases).join(', ')}] (expected [${(EXCHANGE_PHASES[r.status] ?? []).join(', ')}])`,
  );
}
