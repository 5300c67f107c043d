/**
 * The tokens module's `ledger verify` check: an EXECUTED token exchange has its execution
 * posting, a REVERSED one that and its reversal, any other none; no such posting names a missing
 * exchange.
 */
import { type LedgerCheck, shownPhases } from '../ledger/ledger-verify.service.js';
import { exchangePhaseMismatches } from './conversion.repository.js';

/** The postings (by phase, sorted) a token exchange must have in each status. */
export const EXCHANGE_PHASES: Record<string, string[]> = {
  OPEN: [],
  EXPIRED: [],
  EXECUTED: ['execute'],
  REVERSED: ['execute', 'reverse'],
};

export const exchangeLedgerChecks: LedgerCheck = async (db, found) => {
  found.add(await exchangePhaseMismatches(db, EXCHANGE_PHASES, found.cap), (r) =>
    r.status === null
      ? `postings [${shownPhases(r.phases).join(', ')}] name token exchange ${r.id}, which does not exist`
      : `token exchange ${r.id} is ${r.status} but has postings [${shownPhases(r.phases).join(', ')}] (expected [${(EXCHANGE_PHASES[r.status] ?? []).join(', ')}])`,
  );
};
