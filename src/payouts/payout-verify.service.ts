/**
 * The payouts module's `ledger verify` checks: payout holding holds exactly the open payouts
 * (FUNDS-IN-ESCROW, PROCESSING, FAILED), and
 * each payout has the postings (`payout:<id>:<phase>`) of its state; no such posting names a
 * missing payout; every payout recorded as sent to PayPal matches the item stored for it.
 */
import type { Db } from '../db/sql.js';
import { type LedgerCheck, type ProblemList, shownPhases } from '../ledger/ledger-verify.service.js';
import { fromPaypalAmount } from '../rails/paypal-amount.rules.js';
import { providerObjectsByIds } from '../rails/provider-object.repository.js';
import { payoutHoldingMismatches, payoutPhaseMismatches, sentPayoutsPage } from './payout.repository.js';
import type { PayoutStatus } from './payout.rules.js';
import { sentPayoutMismatch } from './paypal-item.rules.js';

/** The states of a payout the rail has (or had) its item in: taken, paid, returned, or failed by the rail after taking it. */
const SENT: readonly PayoutStatus[] = ['PROCESSING', 'SUCCESS', 'RETURNED', 'FAILED'];
/** Payouts read per page: memory stays the same whatever the number of payouts. */
const PAGE = 500;

/**
 * Every payout in a SENT state whose attempt the rail named an item of (`provider_item_id`: the
 * sandbox rail names none) against the stored PayPal item (`sentPayoutMismatch`): stored, behind
 * the payout's attempt, of its amount and currency, and SUCCESS or RETURNED for a payout that is.
 */
async function sentPayoutChecks(db: Db, found: ProblemList): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  for (let after = ''; ; ) {
    const page = await sentPayoutsPage(db, SENT, after, PAGE);
    if (!page.length) break;
    const items = new Map(
      (
        await providerObjectsByIds(
          db,
          'paypal',
          page.map((p) => p.providerItemId),
        )
      )
        .filter((o) => o.objectType === 'payout_item')
        .map((o) => [o.objectId, o]),
    );
    for (const p of page) {
      const stored = items.get(p.providerItemId);
      const inner = (stored?.snapshot.payout_item ?? {}) as { amount?: { currency?: unknown; value?: unknown } };
      const currency = typeof inner.amount?.currency === 'string' ? inner.amount.currency : null;
      const value = typeof inner.amount?.value === 'string' ? inner.amount.value : null;
      const problem = sentPayoutMismatch({
        ...p,
        item: stored && {
          holdfastRef: stored.holdfastRef,
          status: typeof stored.snapshot.transaction_status === 'string' ? stored.snapshot.transaction_status : null,
          currency,
          amount: currency && value ? fromPaypalAmount({ currency, value }) : undefined,
        },
      });
      if (!problem) continue;
      total += 1;
      if (problems.length < found.cap) problems.push(problem);
    }
    after = page[page.length - 1]!.id;
  }
  found.add(
    problems.map((line) => ({ line, total: String(total) })),
    (r) => r.line,
  );
}

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
  await sentPayoutChecks(db, found);
};
