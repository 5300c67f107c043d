/**
 * The disputes module's `ledger verify` checks: each integrator's dispute holding equals the
 * amounts of its disputes whose money is withdrawn, dispute fees the fees of those whose money
 * moved, dispute losses the lost ones; each dispute has the postings where its money is implies;
 * an integrator's default wallet is below zero by no more than the dispute openings that took it
 * there (the one posting allowed to).
 */
import type { LedgerCheck } from '../ledger/ledger-verify.service.js';
import { disputeAccountMismatches, disputePostingMismatches, unexplainedNegativeWallets } from './dispute.repository.js';

export const disputeLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(
    await disputeAccountMismatches(db, found.cap),
    (r) => `integrator ${r.integrator_id}: ${r.kind} in ${r.currency} holds ${r.balance} but its disputes make ${r.expected}`,
  );
  found.add(
    await disputePostingMismatches(db, found.cap),
    (r) => `dispute ${r.id} (funds ${r.funds}) has postings [${(r.phases ?? []).join(', ')}]`,
  );
  found.add(
    await unexplainedNegativeWallets(db, found.cap),
    (r) => `default wallet ${r.id} is below zero (${r.balance}) by more than dispute openings took from it (${r.opened})`,
  );
};
