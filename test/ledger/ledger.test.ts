import assert from 'node:assert/strict';
import pg from 'pg';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { balances, isOverdraft, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { db } from '../../src/db/sql.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { dropDatabase, h, newClient, register, scratchDatabase, unique, withDatabase } from '../support/harness.js';

async function walletOf(accountId: string, currency = 'USD'): Promise<string> {
  const [row] = await h()
    .orm.em.fork()
    .execute<Array<{ id: string }>>(
      `select la.id from ledger_account la join payment_method pm on pm.id = la.payment_method_id where pm.account_id = ? and la.currency = ?`,
      [accountId, currency],
    );
  return row.id;
}

describe('ledger', () => {
  let integratorId: string;
  let wallet: string;
  let clearing: string;
  before(async () => {
    const client = await newClient();
    const account = await register(client);
    wallet = await walletOf(account.account_id);
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [account.account_id]);
    integratorId = row.integrator_id;
    clearing = await systemAccount(h().orm.em.fork(), integratorId, 'card_clearing', 'USD');
  });

  const move = (reference: string, amount: number, from = clearing, to = wallet) => ({
    integratorId,
    reference,
    description: 'test',
    entries: [
      { account: from, currency: 'USD', amount: -amount },
      { account: to, currency: 'USD', amount },
    ],
  });

  it('gives every registered wallet a ledger account at zero', async () => {
    const client = await newClient();
    const account = await register(client);
    const id = await walletOf(account.account_id);
    assert.match(id, /^wal_/);
    assert.equal((await balances(h().orm.em.fork(), [id])).get(id), 0);
  });

  it('keeps one system account per integrator, kind and currency', async () => {
    assert.equal(await systemAccount(h().orm.em.fork(), integratorId, 'card_clearing', 'USD'), clearing);
  });

  it("makes a missing system account in the caller's transaction, and forgets it when that rolls back (even asked twice)", async () => {
    const integrator = await createIntegrator(h().orm.em.fork(), { name: unique('sysacct-') });
    const rows = async () =>
      Number(
        (
          await h()
            .orm.em.fork()
            .execute<Array<{ n: string }>>(`select count(*) as n from ledger_account where integrator_id = ? and kind = 'card_clearing'`, [
              integrator.id,
            ])
        )[0].n,
      );
    const made: string[] = [];
    await assert.rejects(
      db(h().orm.em).transaction(async (tx) => {
        made.push(await systemAccount(tx, integrator.id, 'card_clearing', 'USD'));
        // Asked again in the same transaction: the row is there, but not committed.
        made.push(await systemAccount(tx, integrator.id, 'card_clearing', 'USD'));
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    assert.equal(made[0], made[1]);
    assert.equal(await rows(), 0, 'the rollback took the account with it');
    const again = await systemAccount(h().orm.em.fork(), integrator.id, 'card_clearing', 'USD');
    assert.notEqual(again, made[0], 'the id of the rolled-back row was not remembered');
    assert.equal(await rows(), 1);
  });

  it('writes no posting whose entries cancel out, and counts it as done', async () => {
    const reference = unique('test:nothing');
    assert.equal(
      await post(db(h().orm.em), {
        integratorId,
        reference,
        description: 'moves nothing',
        entries: [
          { account: wallet, currency: 'USD', amount: 5 },
          { account: wallet, currency: 'USD', amount: -5 },
        ],
      }),
      1,
    );
    const [{ n }] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>('select count(*) as n from ledger_posting where reference = ?', [reference]);
    assert.equal(Number(n), 0);
  });

  it('posts a balanced movement and updates both balances', async () => {
    const before = await balances(h().orm.em.fork(), [wallet]);
    const em = h().orm.em.fork();
    await em.transactional((tx) => post(tx, move(unique('ref-'), 1234)));
    const after = await balances(h().orm.em.fork(), [wallet]);
    assert.equal(after.get(wallet)! - before.get(wallet)!, 1234);
  });

  it('moves nothing when the same reference is posted again', async () => {
    const reference = unique('ref-');
    const first = await h()
      .orm.em.fork()
      .transactional((tx) => post(tx, move(reference, 100)));
    const before = await balances(h().orm.em.fork(), [wallet]);
    const second = await h()
      .orm.em.fork()
      .transactional((tx) => post(tx, move(reference, 100)));
    assert.equal(first, 1);
    assert.equal(second, 0);
    assert.deepEqual(await balances(h().orm.em.fork(), [wallet]), before);
  });

  it('posts a reference exactly once when ten transactions race with it', async () => {
    const reference = unique('race-');
    const before = await balances(h().orm.em.fork(), [wallet]);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        h()
          .orm.em.fork()
          .transactional((tx) => post(tx, move(reference, 7))),
      ),
    );
    assert.equal(results.filter((n) => n === 1).length, 1);
    assert.equal((await balances(h().orm.em.fork(), [wallet])).get(wallet)! - before.get(wallet)!, 7);
  });

  it('the database refuses to take a wallet below zero (the statement writing the entries fails) and posts nothing', async () => {
    const before = await balances(h().orm.em.fork(), [wallet]);
    const reference = unique('over-');
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional((tx) => post(tx, move(reference, before.get(wallet)! + 1, wallet, clearing))),
      (err: unknown) => isOverdraft(err),
    );
    assert.deepEqual(await balances(h().orm.em.fork(), [wallet]), before);
    const [posting] = await h().orm.em.fork().execute('select 1 from ledger_posting where reference = ?', [reference]);
    assert.equal(posting, undefined);
  });

  it('several postings in one statement change a balance by their sum, and are refused together when the sum overdraws', async () => {
    const start = (await balances(h().orm.em.fork(), [wallet])).get(wallet)!;
    // In, out, in again — one statement: the wallet moves by the sum.
    await h()
      .orm.em.fork()
      .transactional((tx) => post(tx, move(unique('sum-'), 500), move(unique('sum-'), 300, wallet, clearing), move(unique('sum-'), 20)));
    assert.equal((await balances(h().orm.em.fork(), [wallet])).get(wallet)! - start, 220);
    // Two spends that fit one at a time but not together.
    const now = start + 220;
    const refs = [unique('both-'), unique('both-')];
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional((tx) => post(tx, move(refs[0], now - 1, wallet, clearing), move(refs[1], 2, wallet, clearing))),
      (err: unknown) => isOverdraft(err),
    );
    assert.equal((await balances(h().orm.em.fork(), [wallet])).get(wallet)!, now);
    assert.deepEqual(await h().orm.em.fork().execute('select 1 from ledger_posting where reference in (?, ?)', refs), []);
  });

  it('lets only the token issuance account go below zero', async () => {
    const name = unique('tok-');
    const integrator = await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 });
    const issuance = await systemAccount(h().orm.em.fork(), integrator.id, 'token_issuance', 'VCD');
    const holding = await systemAccount(h().orm.em.fork(), integrator.id, 'publisher_wallet', 'VCD');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: integrator.id,
          reference: unique('iss-'),
          description: 'issue',
          entries: [
            { account: issuance, currency: 'VCD', amount: -500 },
            { account: holding, currency: 'VCD', amount: 500 },
          ],
        }),
      );
    const b = await balances(h().orm.em.fork(), [issuance, holding]);
    assert.equal(b.get(issuance), -500);
    assert.equal(b.get(holding), 500);
  });

  it('the database itself refuses an unbalanced posting, even past the service', async () => {
    const em = h().orm.em.fork();
    await assert.rejects(
      em.transactional(async (tx) => {
        await tx.execute(`insert into ledger_posting (id, integrator_id, reference, description) values ('pst_raw1', ?, ?, 'raw')`, [
          integratorId,
          unique('raw-'),
        ]);
        await tx.execute(`insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_raw1', ?, 'USD', 5)`, [
          wallet,
        ]);
      }),
      /does not balance/,
    );
    const [row] = await h().orm.em.fork().execute(`select 1 from ledger_posting where id = 'pst_raw1'`);
    assert.equal(row, undefined);
  });

  it('the database refuses a posting whose entries balance only across statements: each statement must balance its own', async () => {
    const reference = unique('split-');
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional(async (tx) => {
          await tx.execute(`insert into ledger_posting (id, integrator_id, reference, description) values ('pst_split', ?, ?, 'raw')`, [
            integratorId,
            reference,
          ]);
          await tx.execute(`insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_split', ?, 'USD', 5)`, [
            wallet,
          ]);
          await tx.execute(
            `insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_split', ?, 'USD', -5)`,
            [clearing],
          );
        }),
      /ledger posting pst_split does not balance in USD/,
    );
    const [row] = await h().orm.em.fork().execute(`select 1 from ledger_posting where reference = ?`, [reference]);
    assert.equal(row, undefined);
  });

  it('one unbalanced posting refuses the whole statement: no posting, entry or balance of it is written', async () => {
    const before = await balances(h().orm.em.fork(), [wallet, clearing]);
    const good = unique('good-');
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional(async (tx) => {
          await tx.execute(
            `insert into ledger_posting (id, integrator_id, reference, description) values ('pst_good', ?, ?, 'raw'), ('pst_bad1', ?, ?, 'raw')`,
            [integratorId, good, integratorId, unique('bad-')],
          );
          await tx.execute(
            `insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_good', ?, 'USD', 7), ('pst_good', ?, 'USD', -7), ('pst_bad1', ?, 'USD', 3)`,
            [wallet, clearing, wallet],
          );
        }),
      /ledger posting pst_bad1 does not balance in USD/,
    );
    assert.deepEqual(await balances(h().orm.em.fork(), [wallet, clearing]), before);
    const [row] = await h().orm.em.fork().execute(`select 1 from ledger_posting where reference = ?`, [good]);
    assert.equal(row, undefined);
  });

  it('the database refuses an entry in another currency than its account', async () => {
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional(async (tx) => {
          await tx.execute(`insert into ledger_posting (id, integrator_id, reference, description) values ('pst_raw2', ?, ?, 'raw')`, [
            integratorId,
            unique('raw-'),
          ]);
          await tx.execute(
            `insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_raw2', ?, 'EUR', 5), ('pst_raw2', ?, 'EUR', -5)`,
            [wallet, clearing],
          );
        }),
    );
  });

  it('entries and postings are append-only', async () => {
    await assert.rejects(
      h().orm.em.fork().execute('update ledger_entry set amount = amount + 1 where ledger_account_id = ?', [wallet]),
      /append-only/,
    );
    await assert.rejects(h().orm.em.fork().execute('delete from ledger_posting where integrator_id = ?', [integratorId]), /append-only/);
  });

  it("applies a statement's balances in account-id order, whatever order its entries come in (shared rows lock in one order)", async () => {
    const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
    const accounts = [wallet, clearing, publisher].sort();
    const db = h().orm.em.fork().getConnection();
    await db.execute('create table test_balance_updates (n serial, account varchar(36))');
    await db.execute(`create function test_log_balance_update() returns trigger language plpgsql as $$
      begin insert into test_balance_updates (account) values (new.id); return null; end $$`);
    await db.execute(
      'create trigger test_log_balance_update after update on ledger_account for each row execute function test_log_balance_update()',
    );
    try {
      await h()
        .orm.em.fork()
        .transactional(async (tx) => {
          const posting = unique('pst_order');
          await tx.execute(`insert into ledger_posting (id, integrator_id, reference, description) values (?, ?, ?, 'order')`, [
            posting,
            integratorId,
            unique('order-'),
          ]);
          // Entries in descending account order, in one statement.
          // Money paid in through the clearing account (a debit, which it can always take) to the wallet and the publisher.
          const amounts = new Map([
            [clearing, -7],
            [wallet, 3],
            [publisher, 4],
          ]);
          const descending = [...accounts].reverse();
          await tx.execute(
            `insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ${descending.map(() => `(?, ?, 'USD', ?)`).join(', ')}`,
            descending.flatMap((account) => [posting, account, amounts.get(account)!]),
          );
        });
      const logged = await db.execute<Array<{ account: string }>>('select account from test_balance_updates order by n');
      assert.deepEqual(
        logged.map((r) => r.account),
        accounts,
      );
    } finally {
      await db.execute('drop trigger test_log_balance_update on ledger_account');
      await db.execute('drop function test_log_balance_update()');
      await db.execute('drop table test_balance_updates');
    }
  });

  it('keeps balances exact under concurrent postings in both directions (no deadlock)', async () => {
    const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
    await h()
      .orm.em.fork()
      .transactional((tx) => post(tx, move(unique('seed-'), 10_000)));
    const before = await balances(h().orm.em.fork(), [wallet, clearing, publisher]);
    // Odd: wallet → publisher (10). Even: a card charge straight to the publisher (5).
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        h()
          .orm.em.fork()
          .transactional((tx) =>
            post(tx, i % 2 ? move(unique('conc-'), 10, wallet, publisher) : move(unique('conc-'), 5, clearing, publisher)),
          ),
      ),
    );
    const after = await balances(h().orm.em.fork(), [wallet, clearing, publisher]);
    assert.equal(after.get(wallet)! - before.get(wallet)!, -150);
    assert.equal(after.get(publisher)! - before.get(publisher)!, 150 + 75);
    assert.equal(after.get(clearing)! - before.get(clearing)!, 75, 'a debit-normal clearing account grows with money paid in');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('verify finds the shared test ledger clean', async () => {
    const report = await verifyAll(h().orm.em.fork());
    assert.equal(report.ok, true, report.problems.join('\n'));
    assert.ok(report.checked.postings > 0);
  });
});

describe('holdfast ledger verify on a breached ledger', () => {
  const name = scratchDatabase('breach');
  const url = () => withDatabase(h().databaseUrl, name);
  before(() => dropDatabase(name));
  after(() => dropDatabase(name));

  it('reports each breach and exits 1; a clean ledger exits 0', async function () {
    this.timeout(60_000);
    await ensureDatabase(url());
    const orm = await openOrm(url(), 2);
    try {
      await migrate(orm);
      const { spawn } = await import('node:child_process');
      const verify = () =>
        new Promise<{ code: number | null; out: string }>((resolve) => {
          const child = spawn(process.execPath, ['bin/holdfast.js', 'ledger', 'verify'], { env: { ...process.env, DATABASE_URL: url() } });
          let out = '';
          child.stdout.on('data', (d) => {
            out += d;
          });
          child.stderr.on('data', (d) => {
            out += d;
          });
          child.on('close', (code) => resolve({ code, out }));
        });
      const clean = await verify();
      assert.equal(clean.code, 0, clean.out);
      assert.match(clean.out, /ledger ok/);
      // Break it the only way possible: with the triggers switched off, as a superuser could.
      const integrator = await createIntegrator(orm.em.fork(), { name: 'breach' });
      const a = await systemAccount(orm.em.fork(), integrator.id, 'card_clearing', 'USD');
      const b = await systemAccount(orm.em.fork(), integrator.id, 'publisher_wallet', 'USD');
      const admin = new pg.Client({ connectionString: url() });
      admin.on('error', () => {});
      await admin.connect();
      try {
        await admin.query(`set session_replication_role = replica`);
        await admin.query(`alter table ledger_account drop constraint ledger_account_no_overdraft`);
        await admin.query(`insert into ledger_posting (id, integrator_id, reference, description) values ('pst_bad', $1, 'bad', 'bad')`, [
          integrator.id,
        ]);
        await admin.query(
          `insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_bad', $1, 'USD', -900), ('pst_bad', $2, 'USD', 100)`,
          [a, b],
        );
        await admin.query(`update ledger_account set balance = -100 where id = $1`, [b]);
      } finally {
        await admin.end();
      }
      const breached = await verify();
      assert.equal(breached.code, 1, breached.out);
      assert.match(breached.out, /posting pst_bad does not balance in USD: entries sum to -800/);
      assert.match(breached.out, new RegExp(`account ${a} stores balance 0 but its entries sum to 900`));
      assert.match(breached.out, new RegExp(`account ${b} stores balance -100 but its entries sum to 100`));
      assert.match(breached.out, new RegExp(`account ${b} \\(publisher_wallet\\) is below zero: -100`));
      // An escrow whose state and postings disagree, and a holding account that holds too much.
      const holding = await systemAccount(orm.em.fork(), integrator.id, 'escrow_holding', 'USD');
      const breach2 = new pg.Client({ connectionString: url() });
      breach2.on('error', () => {});
      await breach2.connect();
      try {
        await breach2.query(`insert into account (id, integrator_id, username) values ('acct_b', $1, 'b')`, [integrator.id]);
        await breach2.query(`begin`);
        await breach2.query(
          `insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, currency, total_amount) values ('inv_b', $1, 'acct_b', 'esc_b', 'user_purchase_escrow', 'SUCCESS', 'USD', 700)`,
          [integrator.id],
        );
        await breach2.query(
          `insert into escrow (id, integrator_id, account_id, status, currency, total_amount, escrow_invoice_id) values ('esc_b', $1, 'acct_b', 'ESCROWED', 'USD', 700, 'inv_b')`,
          [integrator.id],
        );
        await breach2.query(`commit`);
        await breach2.query(
          `insert into ledger_posting (id, integrator_id, reference, description) values ('pst_hold', $1, 'stray', 'stray')`,
          [integrator.id],
        );
        await breach2.query(
          `insert into ledger_entry (posting_id, ledger_account_id, currency, amount) values ('pst_hold', $1, 'USD', 300), ('pst_hold', $2, 'USD', -300)`,
          [holding, a],
        );
      } finally {
        await breach2.end();
      }
      const escrows = await verify();
      assert.equal(escrows.code, 1);
      assert.match(escrows.out, /escrow holding of integrator \S+ in USD is 300 but its ESCROWED escrows total 700/);
      assert.match(escrows.out, /escrow esc_b is ESCROWED but has postings \[\] \(expected \[pay\]\)/);
    } finally {
      await orm.close();
    }
  });
});
