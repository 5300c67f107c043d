import assert from 'node:assert/strict';
import pg from 'pg';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { db as pooled } from '../../src/db/sql.js';
import { post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, dropDatabase, h, newClient, scratchDatabase, unique, withDatabase, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

interface EntryRow {
  id: string;
  amount: string;
  balance_after: string | null;
  applied_seq: string | null;
}

/** A wallet's entries in the order they were applied. */
async function appliedEntries(wallet: string): Promise<EntryRow[]> {
  return h()
    .orm.em.fork()
    .execute<EntryRow[]>(
      `select e.id::text as id, e.amount::text as amount, e.balance_after::text as balance_after, e.applied_seq::text as applied_seq
         from ledger_entry e where e.ledger_account_id = ? order by e.applied_seq, e.id`,
      [wallet],
    );
}

/** Waits (polling, no deadline of its own) until a statement of this database waits on a lock. */
async function untilSomeoneWaitsOnALock(): Promise<void> {
  for (;;) {
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>(
        `select count(*)::text as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query ilike '%ledger_entry%'`,
      );
    if (row.n !== '0') return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('ledger: the balance right after each entry', () => {
  let integratorId: string;
  let first: Party;
  let second: Party;
  let clearing: string;
  let client: TestClient;
  before(async () => {
    client = await newClient();
    first = await party(client);
    second = await party(client);
    integratorId = first.integrator_id;
    clearing = await systemAccount(h().orm.em.fork(), integratorId, 'card_clearing', 'USD');
  });

  const transfer = (from: string, to: string, amount: number) => ({
    integratorId,
    reference: unique('move-'),
    description: 'test',
    entries: [
      { account: from, currency: 'USD', amount: -amount },
      { account: to, currency: 'USD', amount },
    ],
  });

  it('records it in application order, which is not the order of entry ids', async () => {
    const x = first.wallets['USD:fiat'].wallet;
    const w = second.wallets['USD:fiat'].wallet;
    assert.ok(x < w, 'the first party’s wallet is applied first in a statement that touches both');
    await fund(first, 'USD:fiat', 1000);
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => {
      locked = r;
    });
    // Holds X's balance row until released: as an update of its balance would (entries may still name it).
    const holder = pooled(h().orm.em.fork()).transaction(async (tx) => {
      await tx.execute('select id from ledger_account where id = ? for no key update', [x]);
      locked();
      await released;
    });
    await isLocked;
    // Inserts its entries on X and W (taking entry ids), then waits for X before applying W.
    const early = pooled(h().orm.em.fork()).transaction((tx) => post(tx, transfer(x, w, 100)));
    await untilSomeoneWaitsOnALock();
    // Takes later entry ids but is applied to W first.
    await pooled(h().orm.em.fork()).transaction((tx) => post(tx, transfer(clearing, w, 50)));
    release();
    await holder;
    await early;

    const entries = await appliedEntries(w);
    assert.deepEqual(
      entries.map((e) => [e.amount, e.balance_after]),
      [
        ['50', '50'],
        ['100', '150'],
      ],
    );
    assert.ok(Number(entries[0].id) > Number(entries[1].id), 'the entry applied first was inserted second');
    assert.equal(await balance(w), 150);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    // The account's statement follows the same order.
    const statement = await call('GET', `/v1/${second.account_id}/statement?sort=asc`, { token: client.token });
    assert.deepEqual(
      statement.body.payload.entries.map((e: any) => [e.entry_id, e.amount, e.balance_after]),
      entries.map((e) => [e.id, Number(e.amount), Number(e.balance_after)]),
    );
  });

  it('runs through a statement that moves one account several times, in entry id order, ending at its balance', async () => {
    const w = second.wallets['USD:fiat'].wallet;
    const x = first.wallets['USD:fiat'].wallet;
    await fund(second, 'USD:fiat', 100);
    const start = await balance(w);
    await h()
      .orm.em.fork()
      .transactional((tx) => post(tx, transfer(clearing, w, 7), transfer(w, x, 30), transfer(clearing, w, 11)));
    const last = (await appliedEntries(w)).slice(-3);
    assert.equal(new Set(last.map((e) => e.applied_seq)).size, 1, 'one statement applies them together');
    assert.deepEqual(
      last.map((e) => Number(e.amount)).sort((a, b) => a - b),
      [-30, 7, 11],
    );
    let running = start;
    for (const e of last) {
      running += Number(e.amount);
      assert.equal(Number(e.balance_after), running, `entry ${e.id}`);
    }
    assert.equal(await balance(w), start - 12);
  });

  it('keeps entries append-only: only the applying trigger sets the balance, once', async () => {
    const w = second.wallets['USD:fiat'].wallet;
    await assert.rejects(
      h().orm.em.fork().execute('update ledger_entry set balance_after = 0 where ledger_account_id = ?', [w]),
      /append-only/,
    );
    await assert.rejects(
      h().orm.em.fork().execute('update ledger_entry set applied_seq = null, balance_after = null where ledger_account_id = ?', [w]),
      /append-only/,
    );
  });
});

describe('ledger verify on a broken balance_after', () => {
  const name = scratchDatabase('balance-after');
  const url = () => withDatabase(h().databaseUrl, name);
  before(() => dropDatabase(name));
  after(() => dropDatabase(name));

  it('reports an entry whose recorded balance breaks the running balance, and an account it does not end at', async () => {
    await ensureDatabase(url());
    const orm = await openOrm(url(), 2);
    try {
      await migrate(orm);
      const integrator = await createIntegrator(orm.em.fork(), { name: 'broken-balance-after' });
      const clearing = await systemAccount(orm.em.fork(), integrator.id, 'card_clearing', 'USD');
      const publisher = await systemAccount(orm.em.fork(), integrator.id, 'publisher_wallet', 'USD');
      for (const amount of [100, 50])
        await orm.em.fork().transactional((tx) =>
          post(tx, {
            integratorId: integrator.id,
            reference: unique('in-'),
            description: 'in',
            entries: [
              { account: clearing, currency: 'USD', amount: -amount },
              { account: publisher, currency: 'USD', amount },
            ],
          }),
        );
      assert.deepEqual((await verifyAll(orm.em.fork())).problems, []);
      const [last] = await orm.em
        .fork()
        .execute<Array<{ id: string }>>('select id::text as id from ledger_entry where ledger_account_id = ? order by id desc limit 1', [
          publisher,
        ]);
      // Only with the triggers switched off, as a superuser could.
      const admin = new pg.Client({ connectionString: url() });
      admin.on('error', () => {});
      await admin.connect();
      try {
        await admin.query('set session_replication_role = replica');
        await admin.query('update ledger_entry set balance_after = 999 where id = $1', [last.id]);
      } finally {
        await admin.end();
      }
      const { problems } = await verifyAll(orm.em.fork());
      assert.ok(problems.includes(`account ${publisher} stores balance 150 but its last entry records 999 after it`), problems.join('\n'));
      assert.ok(
        problems.includes(`entry ${last.id} records balance 999 after it, but the entry before it and its amount make 150`),
        problems.join('\n'),
      );
    } finally {
      await orm.close();
    }
  });
});
