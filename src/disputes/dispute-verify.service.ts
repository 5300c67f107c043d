/**
 * The disputes module's `ledger verify` checks: each integrator's dispute holding equals the
 * amounts of its disputes whose money is withdrawn, dispute fees the fees of those whose money
 * moved, dispute losses the lost ones; each dispute has the postings where its money is implies.
 * (That a default wallet is below zero by no more than dispute openings took from it is the
 * ledger's own check: the exception is its rule.)
 */
import type { LedgerCheck } from '../ledger/ledger-verify.service.js';
import { disputeAccountMismatches, disputePostingMismatches } from './dispute.repository.js';

export const disputeLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(
    await disputeAccountMismatches(db, found.cap),
    (r) => `integrator ${r.integrator_id}: ${r.kind} in ${r.currency} holds ${r.balance} but its disputes make ${r.expected}`,
  );
  found.add(
    await disputePostingMismatches(db, found.cap),
    (r) => `dispute ${r.id} (funds ${r.funds}) has postings [${(r.phases ?? []).join(', ')}]`,
  );
};
