/**
 * `holdfast ledger verify`: the ledger's own invariants, and on the same snapshot the checks each
 * module contributes (a `LedgerCheck`: its rows against the postings they imply). Every check is
 * an aggregate in PostgreSQL that returns only the rows in breach, so memory does not grow with
 * the data.
 */
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { emDb, type Db } from '../db/sql.js';
import { ledgerProblems } from './ledger.repository.js';

/** One module's invariants over the ledger: adds what breaches them to `found` (at most `found.cap` rows per query). */
export type LedgerCheck = (db: Db, found: ProblemList) => Promise<void>;

/** The stored phases of a posting owner as problem lines show them: named, sorted, those in `leave` left out. */
export function shownPhases(phases: string[] | null, leave: string[] = []): string[] {
  return (phases ?? []).filter((p) => p && !leave.includes(p)).sort();
}

export interface VerifyReport {
  ok: boolean;
  checked: { accounts: number; postings: number; entries: number };
  /** The problems found, the first `VERIFY_PROBLEM_CAP` of them (a broken ledger may have millions). */
  problems: string[];
  /** How many problems were found in all (more than `problems` holds when it was capped). */
  problemCount: number;
}

/** How many problems `ledger verify` reports at most (and each check brings back at most): it counts the rest. */
export const VERIFY_PROBLEM_CAP = 1000;

/** The problems `ledger verify` has found: the first `cap` as lines, and how many in all. */
export class ProblemList {
  readonly lines: string[] = [];
  count = 0;
  constructor(readonly cap: number) {}

  /** Adds what one check found: its first rows (at most `cap`), each with the check's full count as `total`. */
  add<R extends { total: string }>(rows: R[], line: (row: R) => string): void {
    if (rows.length === 0) return;
    this.count += Number(rows[0].total);
    for (const row of rows) {
      if (this.lines.length >= this.cap) break;
      this.lines.push(line(row));
    }
  }
}

/**
 * Recomputes every balance from the entries and checks the ledger's own invariants: each posting
 * sums to zero per currency and has two or more entries, stored balances equal recomputed ones
 * (credits − debits, or debits − credits for clearing accounts), no account but token issuance
 * is below zero (an integrator's default wallet only by what dispute openings took from it), entries are in their account's currency. `checks` run on the same snapshot:
 * each module's own invariants over the ledger (escrows, invoices, refunds, payouts, token
 * exchanges: each module's `*-verify.service.ts`, put together by the `holdfast` command). Every check
 * is an aggregate in PostgreSQL that returns only the rows in breach, at most `cap` of them:
 * memory stays the same whatever the size of the ledger.
 */
export async function verifyLedger(em: EntityManager, checks: readonly LedgerCheck[], cap = VERIFY_PROBLEM_CAP): Promise<VerifyReport> {
  // One snapshot for every check, so a live service's commits cannot look like breaches.
  return em.transactional(
    async (tx) => {
      const db = emDb(tx);
      // The checks over JSON arrays (refund parts) get cost estimates far above PostgreSQL's JIT
      // threshold: compiling them took a second on a tiny database, running them a millisecond.
      await db.execute('set local jit = off');
      const found = new ProblemList(cap);
      const r = await ledgerProblems(db, cap);
      found.add(r.unbalanced, (p) => `posting ${p.posting_id} does not balance in ${p.currency}: entries sum to ${p.sum}`);
      found.add(r.thin, (p) => `posting ${p.id} has ${p.n} entr${p.n === '1' ? 'y' : 'ies'} (a posting needs two or more)`);
      found.add(r.drifted, (p) => `account ${p.id} stores balance ${p.balance} but its entries sum to ${p.recomputed}`);
      found.add(r.negative, (p) => `account ${p.id} (${p.kind}) is below zero: ${p.balance}`);
      found.add(r.mismatched, (p) => `entry ${p.id} is not in its account's currency`);
      found.add(r.lastApplied, (p) => `account ${p.id} stores balance ${p.balance} but its last entry records ${p.balance_after} after it`);
      found.add(
        r.broken,
        (p) => `entry ${p.id} records balance ${p.balance_after} after it, but the entry before it and its amount make ${p.expected}`,
      );
      for (const check of checks) await check(db, found);
      return { ok: found.count === 0, checked: r.counts, problems: found.lines, problemCount: found.count };
    },
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}
