/**
 * `holdfast ledger verify` keeps its memory whatever the size of the data: each check compares
 * in PostgreSQL and brings back only the rows in breach (at most the cap), never one row per
 * escrow, invoice, payout or exchange. Seeded by hand on a scratch database, triggers off, as a
 * superuser could: a few owners whose postings match their state, and a few that do not.
 */
import assert from 'node:assert/strict';
import pg from 'pg';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { emDb } from '../../src/db/sql.js';
import { escrowPhaseMismatches } from '../../src/escrow/escrow.repository.js';
import { ESCROW_PHASES } from '../../src/escrow/escrow-verify.service.js';
import { EXCHANGE_PHASES } from '../../src/tokens/conversion-verify.service.js';
import { INVOICE_OPTIONAL_PHASES, INVOICE_PHASES } from '../../src/invoices/invoice-verify.service.js';
import { PAYOUT_PHASES } from '../../src/payouts/payout-verify.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { invoicePhaseMismatches } from '../../src/invoices/invoice.repository.js';
import { payoutPhaseMismatches } from '../../src/payouts/payout.repository.js';
import { exchangePhaseMismatches } from '../../src/tokens/conversion.repository.js';
import { VERIFY_PROBLEM_CAP } from '../../src/ledger/ledger-verify.service.js';
import { dropDatabase, h, holdfastCli, scratchDatabase, withDatabase } from '../support/harness.js';

describe('ledger verify brings back only what is breached', () => {
  const name = scratchDatabase('verify_streams');
  const url = () => withDatabase(h().databaseUrl, name);
  let orm: Awaited<ReturnType<typeof openOrm>>;

  before(async function () {
    this.timeout(60_000);
    await dropDatabase(name);
    await ensureDatabase(url());
    orm = await openOrm(url(), 2);
    await migrate(orm);
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    try {
      await admin.query(`set session_replication_role = replica`);
      await admin.query(`insert into integrator (id, name) values ('int_v', 'verify-streams')`);
      await admin.query(`insert into account (id, integrator_id, username) values ('acc_v', 'int_v', 'v')`);
      const escrow = (id: string, status: string) =>
        admin.query(
          `insert into escrow (id, integrator_id, account_id, status, currency, total_amount, escrow_invoice_id, commit_invoice_id, cancel_invoice_id)
           values ($1, 'int_v', 'acc_v', $2, 'USD', 100, $3, $4, $5)`,
          [id, status, `inv_${id}`, status === 'COMMITTED' ? `inv_${id}_c` : null, status === 'CANCELLED' ? `inv_${id}_x` : null],
        );
      const invoice = (id: string, type: string, state: string, extra: { refunded?: string; parts?: unknown[] } = {}) =>
        admin.query(
          `insert into invoice (id, integrator_id, account_id, invoice_type, state, currency, total_amount, refunded_invoice_id, payment_methods)
           values ($1, 'int_v', 'acc_v', $2, $3, 'USD', 100, $4, $5::jsonb)`,
          [id, type, state, extra.refunded ?? null, JSON.stringify(extra.parts ?? [])],
        );
      const posting = (reference: string) =>
        admin.query(`insert into ledger_posting (id, integrator_id, reference, description) values ($1, 'int_v', $2, 'seeded')`, [
          `pst_${reference.replaceAll(':', '_')}`,
          reference,
        ]);
      // Escrows: three as their state says, two not.
      await escrow('esc_open', 'OPEN');
      await escrow('esc_held', 'ESCROWED');
      await posting('escrow:esc_held:pay');
      await escrow('esc_done', 'COMMITTED');
      await posting('escrow:esc_done:pay');
      await posting('escrow:esc_done:commit');
      await posting('escrow:esc_done:commit:shares');
      await escrow('esc_bad_unpaid', 'ESCROWED');
      await escrow('esc_bad_extra', 'CANCELLED');
      await posting('escrow:esc_bad_extra:pay');
      await posting('escrow:esc_bad_extra:cancel');
      await posting('escrow:esc_bad_extra:commit');
      // Invoices without escrow: a paid and an open purchase, a refund that moved (with tokens back), all right; a paid purchase without its posting.
      await invoice('inv_paid', 'user_purchase', 'SUCCESS');
      await posting('invoice:inv_paid:pay');
      await invoice('inv_open', 'user_purchase', 'OPEN');
      await invoice('inv_refund', 'user_refund', 'SUCCESS', {
        refunded: 'inv_paid',
        parts: [{ payment_method_id: 'pm_x', amount: 100, status: 'succeeded' }],
      });
      await posting('invoice:inv_refund:refund');
      await posting('invoice:inv_refund:tokens');
      await invoice('inv_bad', 'user_purchase', 'SUCCESS');
      // A payout posting and an exchange posting naming nothing.
      await posting('payout:po_missing:hold');
      await posting('exchange:tx_missing:execute');
    } finally {
      await admin.end();
    }
  });

  after(async () => {
    await orm?.close();
    await dropDatabase(name);
  });

  const inSnapshot = <T>(work: (db: ReturnType<typeof emDb>) => Promise<T>) => orm.em.fork().transactional((tx) => work(emDb(tx)));

  it('the escrow check returns only the escrows whose postings differ from their state, with the count of all', async () => {
    const rows = await inSnapshot((db) => escrowPhaseMismatches(db, ESCROW_PHASES, 100));
    assert.deepEqual(
      rows.map((r) => [r.id, r.status, [...(r.phases ?? [])].sort(), Number(r.total)]),
      [
        ['esc_bad_extra', 'CANCELLED', ['cancel', 'commit', 'pay'], 2],
        ['esc_bad_unpaid', 'ESCROWED', [], 2],
      ],
    );
    const first = await inSnapshot((db) => escrowPhaseMismatches(db, ESCROW_PHASES, 1));
    assert.deepEqual(
      first.map((r) => [r.id, Number(r.total)]),
      [['esc_bad_extra', 2]],
      'at most the limit comes back, and the total counts the rest',
    );
  });

  it('the invoice check returns only the invoice in breach (a moved refund may also take tokens back)', async () => {
    const rows = await inSnapshot((db) => invoicePhaseMismatches(db, INVOICE_PHASES, INVOICE_OPTIONAL_PHASES, 100));
    assert.deepEqual(
      rows.map((r) => [r.id, r.outcome, Number(r.total)]),
      [['inv_bad', 'paid', 1]],
    );
  });

  it('the payout and exchange checks return the postings naming no owner', async () => {
    const payouts = await inSnapshot((db) => payoutPhaseMismatches(db, PAYOUT_PHASES, 100));
    assert.deepEqual(
      payouts.map((r) => [r.id, r.status, r.phases]),
      [['po_missing', null, ['hold']]],
    );
    const exchanges = await inSnapshot((db) => exchangePhaseMismatches(db, EXCHANGE_PHASES, 100));
    assert.deepEqual(
      exchanges.map((r) => [r.id, r.status, r.phases]),
      [['tx_missing', null, ['execute']]],
    );
  });

  it('the report keeps the first problems up to its cap and counts them all', async () => {
    const all = await verifyAll(orm.em.fork());
    assert.equal(all.ok, false);
    assert.equal(all.problemCount, all.problems.length);
    assert.ok(all.problems.includes('escrow esc_bad_unpaid is ESCROWED but has postings [] (expected [pay])'), all.problems.join('\n'));
    assert.ok(
      all.problems.includes('escrow esc_bad_extra is CANCELLED but has postings [cancel, commit, pay] (expected [pay, cancel])'),
      all.problems.join('\n'),
    );
    assert.ok(all.problems.includes('invoice inv_bad is SUCCESS but has postings [] (expected [pay])'), all.problems.join('\n'));
    assert.ok(all.problems.includes('postings [hold] name payout po_missing, which does not exist'), all.problems.join('\n'));
    assert.ok(all.problems.includes('postings [execute] name token exchange tx_missing, which does not exist'), all.problems.join('\n'));
    assert.ok(
      !all.problems.some((p) => /^(escrow|invoice) (esc_open|esc_held|esc_done|inv_paid|inv_open|inv_refund) is /.test(p)),
      all.problems.join('\n'),
    );

    const capped = await verifyAll(orm.em.fork(), 2);
    assert.equal(capped.ok, false);
    assert.deepEqual(capped.problems, all.problems.slice(0, 2));
    assert.equal(capped.problemCount, all.problemCount);
  });

  it('the CLI prints the first problems and how many more there are (last: it adds a thousand breaches)', async function () {
    this.timeout(60_000);
    const admin = new pg.Client({ connectionString: url() });
    await admin.connect();
    try {
      await admin.query(`set session_replication_role = replica`);
      await admin.query(
        `insert into ledger_posting (id, integrator_id, reference, description)
         select 'pst_empty' || g, 'int_v', 'empty:' || g, 'seeded' from generate_series(1, ${VERIFY_PROBLEM_CAP}) g`,
      );
    } finally {
      await admin.end();
    }
    const json = await holdfastCli(['ledger', 'verify', '--json'], { DATABASE_URL: url() });
    assert.equal(json.status, 1, json.stderr);
    const report = JSON.parse(json.stdout);
    assert.equal(report.problems.length, VERIFY_PROBLEM_CAP);
    assert.ok(report.problemCount > VERIFY_PROBLEM_CAP, String(report.problemCount));
    const text = await holdfastCli(['ledger', 'verify'], { DATABASE_URL: url() });
    assert.equal(text.status, 1, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(
        `^ledger BREACHED \\(${report.problemCount} problems; .*\\n(  - .*\\n){${VERIFY_PROBLEM_CAP}}  … and ${report.problemCount - VERIFY_PROBLEM_CAP} more \\(the first ${VERIFY_PROBLEM_CAP} are shown\\)\\n$`,
      ),
    );
  });
});
