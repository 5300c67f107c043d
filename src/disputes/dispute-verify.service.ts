/**
 * The disputes module's `ledger verify` checks: each integrator's dispute holding equals the
 * amounts of its disputes whose money is withdrawn, dispute fees the fees of those whose money
 * moved, dispute losses the lost ones; each dispute has the postings where its money is implies.
 * (That a default wallet is below zero by no more than dispute openings took from it is the
 * ledger's own check: the exception is its rule.)
 */
import type { LedgerCheck } from '../ledger/ledger-verify.service.js';
import { disputeAccountMismatches, disputePostingMismatches, holdMismatches } from './dispute.repository.js';

export const disputeLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(
    await disputeAccountMismatches(db, found.cap),
    (r) => `integrator ${r.integrator_id}: ${r.kind} in ${r.currency} holds ${r.balance} but its disputes make ${r.expected}`,
  );
  found.add(
    await disputePostingMismatches(db, found.cap),
    (r) => `dispute ${r.id} (funds ${r.funds}) has postings [${(r.phases ?? []).join(', ')}]`,
  );
  found.add(await holdMismatches(db, found.cap), (r) =>
    r.problem === 'held'
      ? `ledger account ${r.id} holds ${r.actual} but disputes' holds on it make ${r.expected}`
      : r.problem === 'decided'
        ? `dispute hold ${r.id} still holds ${r.actual} though its dispute is decided`
        : `dispute hold ${r.id} clawed back ${r.expected} but its clawback posting moved ${r.actual}`,
  );
};
