import assert from 'node:assert/strict';
import { db as pooled, emDb } from '../../src/db/sql.js';
import { ensureDemoClient } from '../../src/runtime/demo-client.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { h } from '../support/harness.js';

describe('plain SQL on pooled connections', () => {
  it('keeps working when a migration adds a column under a running process (`*` results are never prepared)', async () => {
    const db = pooled(h().orm.em.fork());
    await db.execute('create table if not exists sql_test_shape (id int primary key)');
    await db.execute('insert into sql_test_shape values (1) on conflict do nothing');
    // Run on every pooled connection, so each one has seen the statement before the change.
    const readAll = () =>
      Promise.all(
        Array.from({ length: 12 }, () => db.execute<Array<Record<string, unknown>>>('select * from sql_test_shape where id = ?', [1])),
      );
    const named = () =>
      Promise.all(Array.from({ length: 12 }, () => db.execute<Array<{ id: number }>>('select id from sql_test_shape where id = ?', [1])));
    await readAll();
    await named();
    await db.execute('alter table sql_test_shape add column extra text');
    const after = await readAll();
    assert.ok(
      after.every(([row]) => 'extra' in row),
      'the new column is read',
    );
    assert.ok(
      (await named()).every(([row]) => row.id === 1),
      'a statement naming its columns keeps its prepared plan',
    );
    await db.execute('drop table sql_test_shape');
  });
});

describe('Db', () => {
  it('rolls a transaction back on error, and a nested transaction joins the outer one', async () => {
    const db = pooled(h().orm.em.fork());
    await db.execute('create table if not exists sql_test_tx (id int primary key)');
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.execute('insert into sql_test_tx values (?)', [1]);
        await tx.transaction((inner) => inner.execute('insert into sql_test_tx values (?)', [2]));
        throw new Error('stop');
      }),
      /stop/,
    );
    assert.deepEqual(await db.execute('select id from sql_test_tx'), [], 'both inserts rolled back');
    await db.transaction((tx) => tx.transaction((inner) => inner.execute('insert into sql_test_tx values (?)', [3])));
    assert.deepEqual(await db.execute('select id from sql_test_tx'), [{ id: 3 }]);
    await db.execute('drop table sql_test_tx');
  });

  it('passes an array parameter as one array on either Db (quotes, backslashes and nulls included)', async () => {
    const values = ['a', 'with "quote"', 'back\\slash', null, 'comma,brace}'];
    for (const db of [pooled(h().orm.em.fork()), emDb(h().orm.em.fork())]) {
      const [row] = await db.execute<Array<{ v: Array<string | null> }>>('select ?::varchar[] as v', [values]);
      assert.deepEqual(row.v, values);
    }
  });
});

describe('demo client', () => {
  it('gives the demo integrator GEM tokens (the README walk-throughs buy and merge them), once', async () => {
    const em = h().orm.em.fork();
    await em.execute(
      `delete from integrator where name = 'demo' and not exists (select 1 from client c where c.integrator_id = integrator.id)`,
    );
    // One made by an earlier version without a token currency gets it.
    await em.execute(
      `insert into integrator (id, name) values ('int_demo_old', 'demo') on conflict (name) do update set token_currency = null, tokens_per_usd = null`,
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'demo-'));
    const demo = await ensureDemoClient(em, dir);
    const again = await ensureDemoClient(h().orm.em.fork(), dir);
    assert.equal(again.client_id, demo.client_id, 'kept in the data folder and reused');
    assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'demo-client.json'), 'utf8')).client_id, demo.client_id);
    const [row] = await em.execute<Array<{ token_currency: string; tokens_per_usd: string }>>(
      `select token_currency, tokens_per_usd from integrator where name = 'demo'`,
    );
    assert.deepEqual([row.token_currency, Number(row.tokens_per_usd)], ['GEM', 100]);
  });

  it('is replaced when it lacks a scope added since it was made (the walk-throughs use every scope)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'demo-'));
    const demo = await ensureDemoClient(h().orm.em.fork(), dir);
    await h().orm.em.fork().execute(`update client set scopes = array_remove(scopes, 'write_sandbox') where id = ?`, [demo.client_id]);
    const again = await ensureDemoClient(h().orm.em.fork(), dir);
    assert.notEqual(again.client_id, demo.client_id);
    assert.ok(again.scopes.includes('write_sandbox'));
    assert.equal(JSON.parse(readFileSync(path.join(dir, 'demo-client.json'), 'utf8')).client_id, again.client_id);
  });
});
