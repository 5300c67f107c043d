import assert from 'node:assert/strict';
import { db, emDb } from '../../src/db/sql.js';
import { statementSql } from '../../src/ledger/ledger.repository.js';
import { h, newClient } from '../support/harness.js';
import { fund, party } from '../support/money.js';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

/** Every node of a plan, with the node types above it. */
function nodes(plan: PlanNode, above: string[] = []): Array<{ node: PlanNode; above: string[] }> {
  return [{ node: plan, above }, ...(plan.Plans ?? []).flatMap((child) => nodes(child, [...above, plan['Node Type']]))];
}

/**
 * The statement's plan at any size: small test tables are scanned whole anyway, so the plan is
 * read with sequential scans disabled — what PostgreSQL does once a wallet has a year of entries.
 */
async function plan(sql: string, params: unknown[]): Promise<PlanNode> {
  const em = h().orm.em.fork();
  return em.transactional(async (tx) => {
    const db = emDb(tx);
    await db.execute('set local enable_seqscan = off');
    const [row] = await db.execute<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(`explain (format json) ${sql}`, params);
    return row['QUERY PLAN'][0].Plan;
  });
}

describe("an account's statement keeps its cost as the ledger grows (plans)", () => {
  it('counts the entries without reading postings, and reads postings only for the page taken by the index', async () => {
    const client = await newClient();
    const p = await party(client);
    for (let i = 0; i < 3; i++) await fund(p, 'USD:fiat', 100);
    const wallet = p.wallets['USD:fiat'].wallet;
    const sql = statementSql([wallet], { sort: 'desc', limit: 20, offset: 0 });

    const count = nodes(await plan(sql.count, sql.countParams));
    assert.ok(!count.some((n) => n.node['Relation Name'] === 'ledger_posting'), 'the count reads no posting');
    assert.ok(
      // By the account's index (a bitmap scan counts: it reads only the account's entries).
      count.some((n) => n.node['Relation Name'] === 'ledger_entry' && /Index|Bitmap/.test(n.node['Node Type'])),
      'entries by index',
    );

    const page = nodes(await plan(sql.page, sql.pageParams));
    const postings = page.filter((n) => n.node['Relation Name'] === 'ledger_posting');
    assert.ok(postings.length > 0);
    for (const n of postings)
      assert.ok(!n.above.includes('Limit'), `postings are read after the page is taken, not under its limit (${n.above.join(' > ')})`);
    const entries = page.find((n) => n.node['Relation Name'] === 'ledger_entry');
    assert.ok(entries && /Index|Bitmap/.test(entries.node['Node Type']), `entries by index: ${entries?.node['Node Type']}`);
    assert.ok(entries.above.includes('Limit'), 'the page is taken from the entries');

    // And the answer is the statement: newest first.
    const rows = await db(h().orm.em).execute<Array<{ amount: string }>>(sql.page, sql.pageParams);
    assert.deepEqual(
      rows.map((r) => r.amount),
      ['100', '100', '100'],
    );
  });
});
