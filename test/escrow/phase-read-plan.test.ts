import assert from 'node:assert/strict';
import { readPhaseCommands } from '../../src/escrow/escrow-phase.flow.js';
import { unfinishedEscrowsNaming } from '../../src/escrow/escrow.repository.js';
import { nodes, type PlanNode, plansOf } from '../support/plans.js';

/**
 * How a worker reads a batch of escrow commands: each command's escrow and escrow invoice by a
 * key lookup. With a plain join PostgreSQL may instead merge the whole escrow key index with the
 * commands (it guesses the ids spread evenly; the newest escrows' time-ordered ids all sit at
 * the end): measured at a million escrows, 16–24 ms per read against 3 ms, growing with the
 * table. Nested loops are disabled here, so a query that leaves PostgreSQL any other way to join
 * takes it, and the test sees it.
 */
describe('escrow phase read: key lookups at any size (plan)', () => {
  const settings = ['enable_seqscan = off', 'enable_nestloop = off'];
  const summary = (all: PlanNode[]) => all.map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name'] ?? ''}`).join(', ');

  it('finds each escrow and invoice by its key from the command row', async () => {
    const [plan] = await plansOf((db) => readPhaseCommands(db, ['cmd_a', 'cmd_b']), { settings, answer: [] });
    const all = nodes(plan);
    const escrows = all.filter((n) => n['Relation Name'] === 'escrow');
    const invoices = all.filter((n) => n['Relation Name'] === 'invoice');
    assert.ok(escrows.length > 0 && invoices.length > 0, summary(all));
    for (const n of escrows) assert.match(n['Index Cond'] ?? '', /target_id/, `escrow by the command's target: ${summary(all)}`);
    for (const n of invoices) assert.match(n['Index Cond'] ?? '', /escrow_invoice_id/, `invoice by the escrow's: ${summary(all)}`);
  });

  it('the dispute checks of a commit and a cancel read only the escrowed holds, by their partial index', async () => {
    const [plan] = await plansOf((db) => readPhaseCommands(db, ['cmd_a', 'cmd_b']), { settings, answer: [] });
    const all = nodes(plan);
    const holds = all.filter((n) => n['Relation Name'] === 'dispute_hold');
    assert.ok(holds.length >= 2, `the commit's and the cancel's checks: ${summary(all)}`);
    for (const n of holds) assert.equal(n['Index Name'], 'dispute_hold_escrowed_idx', summary(all));
  });

  it("the merge check reads each open escrow's invoice by its key", async () => {
    const [plan] = await plansOf((db) => unfinishedEscrowsNaming(db, 'int_x', 'acc_x', ['wal_x']), { settings, answer: [{}] });
    const all = nodes(plan);
    for (const n of all.filter((x) => x['Relation Name'] === 'invoice'))
      assert.match(n['Index Cond'] ?? '', /escrow_invoice_id/, summary(all));
  });
});
