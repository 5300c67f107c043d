import type { Db } from '../../src/db/sql.js';
import { emDb } from '../../src/db/sql.js';
import { h } from './harness.js';

/** A node of `explain (format json)`. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Parent Relationship'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan. */
export function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)];
}

/**
 * The plans of the statements `work` runs, in order: each is EXPLAINed (not run) by the
 * repository's own code and parameters, with `settings` (by default sequential scans off: at
 * size a query must find its rows by an index, whatever small test tables would let PostgreSQL
 * do). Each statement is answered with `answer` (one empty row unless told).
 */
export async function plansOf(
  work: (db: Db) => Promise<unknown>,
  opts: { settings?: string[]; answer?: unknown[] } = {},
): Promise<PlanNode[]> {
  const settings = opts.settings ?? ['enable_seqscan = off'];
  const answer = opts.answer ?? [{}];
  return h()
    .orm.em.fork()
    .transactional(async (em) => {
      const tx = emDb(em);
      for (const setting of settings) await tx.execute(`set local ${setting}`);
      const plans: PlanNode[] = [];
      const explaining: Db = {
        async execute<T>(sql: string, params: readonly unknown[] = []): Promise<T> {
          const [row] = await tx.execute<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(`explain (format json) ${sql}`, params);
          plans.push(row['QUERY PLAN'][0].Plan);
          return answer as T;
        },
        transaction: (inner) => inner(explaining),
      };
      await work(explaining);
      return plans;
    });
}
