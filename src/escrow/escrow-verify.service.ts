/**
 * The escrow module's `ledger verify` checks: each integrator's escrow holding balance equals the
 * total of its ESCROWED escrows, and each escrow has exactly the postings its state implies.
 */
import { type LedgerCheck, shownPhases } from '../ledger/ledger-verify.service.js';
import { escrowHoldingMismatches, escrowPhaseMismatches } from './escrow.repository.js';

/** The postings (by phase) an escrow must have in each state; `shares` is optional (no recipients). */
export const ESCROW_PHASES: Record<string, string[]> = {
  OPEN: [],
  'ESCROW-FAILED': [],
  ESCROWED: ['pay'],
  COMMITTED: ['pay', 'commit'],
  CANCELLED: ['pay', 'cancel'],
};

export const escrowLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(
    await escrowHoldingMismatches(db, found.cap),
    (r) => `escrow holding of integrator ${r.integrator_id} in ${r.currency} is ${r.balance} but its ESCROWED escrows total ${r.held}`,
  );
  found.add(await escrowPhaseMismatches(db, ESCROW_PHASES, found.cap), (r) => {
    const expected = ESCROW_PHASES[r.status] ?? [];
    return `escrow ${r.id} is ${r.status} but has postings [${shownPhases(r.phases).join(', ')}] (expected [${expected.join(', ')}])`;
  });
};
