/**
 * `holdfast ledger verify`: the ledger's own invariants (ledger.service) and, on the same
 * snapshot, those that tie it to escrows and invoices — each integrator's escrow holding
 * balance equals the total of its ESCROWED escrows, and each escrow and standard invoice has
 * exactly the postings its state implies, as does each token exchange. Here because the escrow module builds on the ledger
 * and invoices, not the reverse.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import { invoicePostingPhases, overRefundedLines, overRefundedMethods, refundAmountMismatches } from '../invoices/invoice.repository.js';
import { verifyLedgerWith, type VerifyReport } from '../ledger/ledger.service.js';
import { exchangePostingPhases } from '../tokens/conversion.repository.js';
import { escrowHoldingMismatches, escrowPostingPhases } from './escrow.repository.js';
import { payoutHoldingMismatches, payoutPostingPhases } from '../payouts/payout.repository.js';

export type { VerifyReport } from '../ledger/ledger.service.js';

/** The postings (by phase, sorted) a payout must have in each state. */
const PAYOUT_PHASES: Record<string, string[]> = {
  'FUNDS-IN-ESCROW': ['hold'],
  FAILED: ['hold'],
  SUCCESS: ['execute', 'hold'],
  'USER-REVERSED': ['hold', 'reverse'],
  'SUPPORT-REVERSED': ['hold', 'reverse'],
};

/** The postings (by phase) an escrow must have in each state; `shares` is optional (no recipients). */
const ESCROW_PHASES: Record<string, string[]> = {
  OPEN: [],
  'ESCROW-FAILED': [],
  ESCROWED: ['pay'],
  COMMITTED: ['pay', 'commit'],
  CANCELLED: ['pay', 'cancel'],
};

/** The postings (by phase, sorted) a token exchange must have in each status. */
const EXCHANGE_PHASES: Record<string, string[]> = {
  OPEN: [],
  EXPIRED: [],
  EXECUTED: ['execute'],
  REVERSED: ['execute', 'reverse'],
};

/** Every ledger, escrow and invoice invariant, checked on one snapshot. */
export function verifyLedger(em: EntityManager): Promise<VerifyReport> {
  return verifyLedgerWith(em, escrowProblems);
}

async function escrowProblems(db: Db): Promise<string[]> {
  const problems: string[] = [];
  for (const r of await escrowHoldingMismatches(db)) {
    problems.push(
      `escrow holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its ESCROWED escrows total ${r.held}`,
    );
  }
  for (const r of await escrowPostingPhases(db)) {
    const expected = ESCROW_PHASES[r.status] ?? [];
    const actual = (r.phases ?? []).filter(Boolean).sort();
    if (actual.join(',') !== [...expected].sort().join(',')) {
      problems.push(`escrow ${r.id} is ${r.status} but has postings [${actual.join(', ')}] (expected [${expected.join(', ')}])`);
    }
  }
  // Standard and token purchase invoices and refunds: paid ones have their postings, others
  // none; a refund has its posting when a part of it went through (a token purchase's refund
  // may also take tokens back), whatever its state.
  for (const r of await invoicePostingPhases(db)) {
    const refund = r.invoice_type.startsWith('user_refund');
    const expected = refund
      ? r.refund_moved
        ? ['refund']
        : []
      : r.state !== 'SUCCESS'
        ? []
        : r.invoice_type === 'token_purchase'
          ? ['issue', 'pay']
          : ['pay'];
    const actual = (r.phases ?? []).filter((p) => p && !(refund && r.refund_moved && p === 'tokens')).sort();
    if (actual.join(',') !== expected.join(',')) {
      problems.push(`invoice ${r.id} is ${r.state} but has postings [${actual.join(', ')}] (expected [${expected.join(', ')}])`);
    }
  }
  // Refunds: no payment method has had back more than it paid.
  for (const r of await overRefundedMethods(db)) {
    problems.push(`invoice ${r.invoice_id}: payment method ${r.payment_method_id} paid ${r.paid} but had ${r.back} back in refunds`);
  }
  // Payouts: payout holding holds exactly the open payouts; each payout has the postings of its state.
  for (const r of await payoutHoldingMismatches(db)) {
    problems.push(`payout holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its open payouts hold ${r.held}`);
  }
  for (const r of await payoutPostingPhases(db)) {
    if (r.status === null) {
      problems.push(`postings [${(r.phases ?? []).join(', ')}] name payout ${r.id}, which does not exist`);
      continue;
    }
    const expected = PAYOUT_PHASES[r.status] ?? [];
    const actual = (r.phases ?? []).filter(Boolean).sort();
    if (actual.join(',') !== expected.join(',')) {
      problems.push(`payout ${r.id} is ${r.status} but has postings [${actual.join(', ')}] (expected [${expected.join(', ')}])`);
    }
  }
  // Refunds: each refund posting moved exactly the parts of its refund that went through.
  for (const r of await refundAmountMismatches(db)) {
    problems.push(`refund invoice ${r.id}: its parts that went through total ${r.succeeded} but its posting moved ${r.moved}`);
  }
  // Refunds: no line item has had back more than it cost.
  for (const r of await overRefundedLines(db)) {
    problems.push(`invoice ${r.invoice_id}: line item ${r.line_item_id} cost ${r.paid} but had ${r.back} back in refunds`);
  }
  // Token exchanges: an EXECUTED one has its execution posting, a REVERSED one that and its
  // reversal, any other none; no such posting names a missing exchange.
  for (const r of await exchangePostingPhases(db)) {
    const actual = (r.phases ?? []).filter(Boolean).sort();
    if (r.status === null) {
      problems.push(`postings [${actual.join(', ')}] name token exchange ${r.id}, which does not exist`);
      continue;
    }
    const expected = EXCHANGE_PHASES[r.status] ?? [];
    if (actual.join(',') !== expected.join(',')) {
      problems.push(`token exchange ${r.id} is ${r.status} but has postings [${actual.join(', ')}] (expected [${expected.join(', ')}])`);
    }
  }
  return problems;
}
