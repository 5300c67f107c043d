/** `holdfast ledger verify`: every ledger invariant, checked on one snapshot. */
import { verifyAll } from './ledger-checks.js';
import { VERIFY_PROBLEM_CAP } from '../ledger/ledger-verify.service.js';
import { type Command, LedgerBreach, withOrm, stdout } from './cli-support.js';

export const ledgerCommands: Record<string, Command> = {
  'ledger verify': {
    summary: 'recompute balances and check every ledger invariant',
    usage: `holdfast ledger verify [--json]

Recomputes every ledger balance from the entries and checks every invariant: each posting
sums to zero per currency, stored balances equal recomputed ones, no wallet is below zero,
entries are in their account's currency, each integrator's escrow holding equals the total of
its ESCROWED escrows, each escrow has exactly the postings its state implies, and every card
charge, refund and payout sent to Stripe or PayPal matches the one provider object stored
behind it (amount, currency, status). Exits 1 with
a report when anything is breached: the first ${VERIFY_PROBLEM_CAP} problems, and how many in all.
Reads one snapshot; each check runs in PostgreSQL and returns only what is breached, so its
memory does not grow with the ledger. Only reads: a missing or unmigrated database is an error.

  --json   print {"ok","checked","problems","problemCount"}`,
    options: { json: { type: 'boolean' } },
    async run(v) {
      const report = await withOrm({ read: 'ledger verify' }, (orm) => verifyAll(orm.em.fork()));
      const summary = `${report.checked.accounts} accounts, ${report.checked.postings} postings, ${report.checked.entries} entries`;
      if (v.json === true) stdout().write(`${JSON.stringify(report)}\n`);
      else if (report.ok) stdout().write(`ledger ok: ${summary}\n`);
      else {
        const n = report.problemCount;
        const more =
          n > report.problems.length ? `  … and ${n - report.problems.length} more (the first ${report.problems.length} are shown)\n` : '';
        stdout().write(
          `ledger BREACHED (${n} problem${n === 1 ? '' : 's'}; ${summary}):\n${report.problems.map((p) => `  - ${p}`).join('\n')}\n${more}`,
        );
      }
      if (!report.ok) throw new LedgerBreach(`the ledger breaks ${report.problemCount} invariant${report.problemCount === 1 ? '' : 's'}`);
    },
  },
};
