/**
 * The disputes module's `ledger verify` checks: each integrator's dispute holding equals the
 * amounts of its disputes whose money is withdrawn, dispute fees the fees of those whose money
 * moved, dispute losses the lost ones; each dispute has the postings where its money is implies;
 * and each Stripe dispute agrees with Stripe's last word on it (the dispute object stored behind
 * its charge: amount, currency, charge, status, withdrawal — `stripeDisputeMismatches`).
 * (That a default wallet is below zero by no more than dispute openings took from it is the
 * ledger's own check: the exception is its rule.)
 */
import type { Db } from '../db/sql.js';
import type { LedgerCheck, ProblemList } from '../ledger/ledger-verify.service.js';
import { chargeRef, disputeRef } from '../rails/card-processor.port.js';
import { providerObjectsOfRefs, type ProviderObjectRecord } from '../rails/provider-object.repository.js';
import { disputeAccountMismatches, disputePostingMismatches, holdMismatches, stripeDisputesPage } from './dispute.repository.js';
import { stripeDisputeMismatches } from './stripe-dispute.rules.js';

/** Disputes read per page: memory stays the same whatever the number of disputes. */
const PAGE = 500;

/** Every Stripe dispute against the Stripe objects stored behind its charge (its dispute objects, its PaymentIntent). */
async function stripeDisputeChecks(db: Db, found: ProblemList): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  for (let after = ''; ; ) {
    const { disputes, last } = await stripeDisputesPage(db, after, PAGE);
    if (last === null) break;
    const refs = disputes.flatMap((d) => [disputeRef(d.invoiceId, d.paymentMethodId), chargeRef(d.invoiceId, d.paymentMethodId)]);
    const byRef = new Map<string, ProviderObjectRecord[]>();
    for (const o of await providerObjectsOfRefs(db, 'stripe', [...new Set(refs)]))
      byRef.set(o.holdfastRef, [...(byRef.get(o.holdfastRef) ?? []), o]);
    for (const d of disputes) {
      const intent = byRef.get(chargeRef(d.invoiceId, d.paymentMethodId))?.find((o) => o.objectType === 'payment_intent');
      for (const problem of stripeDisputeMismatches(d, byRef.get(disputeRef(d.invoiceId, d.paymentMethodId)) ?? [], intent)) {
        total += 1;
        if (problems.length < found.cap) problems.push(problem);
      }
    }
    after = last;
  }
  found.add(
    problems.map((line) => ({ line, total: String(total) })),
    (r) => r.line,
  );
}

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
  await stripeDisputeChecks(db, found);
};
