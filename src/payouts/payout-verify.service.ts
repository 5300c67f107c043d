/**
 * The payouts module's `ledger verify` checks: payout holding holds exactly the open payouts
 * (FUNDS-IN-ESCROW, PROCESSING, FAILED), and
 * each payout has the postings (`payout:<id>:<phase>`) of its state; no such posting names a
 * missing payout.
 */
import { type LedgerCheck, shownPhases } from '../ledger/ledger-verify.service.js';
import { payoutHoldingMismatches, payoutPhaseMismatches } from './payout.repository.js';

/** The postings (by phase, sorted) a payout must have in each state. */
export const PAYOUT_PHASES: Record<string, string[]> = {
  'FUNDS-IN-ESCROW': ['hold'],
  PROCESSING: ['hold'],
  FAILED: ['hold'],
  SUCCESS: ['execute', 'hold'],
  RETURNED: ['hold', 'return'],
  'USER-REVERSED': ['hold', 'reverse'],
  'SUPPORT-REVERSED': ['hold', 'reverse'],
};

export const payoutLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(
    await payoutHoldingMismatches(db, found.cap),
    (r) => `payout holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its open payouts hold ${r.held}`,
  );
  found.add(await payoutPhaseMismatches(db, PAYOUT_PHASES, found.cap), (r) =>
    r.status === null
      ? `postings [${(r.phases ?? []).join(', ')}] name payout ${r.id}, which does not exist`
      : `payout ${r.id} is ${r.status} but has postings [${shownPhases(r.phases).join(', ')}] (expected [${(PAYOUT_PHASES[r.status] ?? []).join(', ')}])`,
  );
};
