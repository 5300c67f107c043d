import assert from 'node:assert/strict';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { migrations } from '../../src/migrations/index.js';
import { dropDatabase, h, scratchDatabase, withDatabase } from '../support/harness.js';

describe('migrations', () => {
  const name = scratchDatabase('migrate');
  const url = () => withDatabase(h().databaseUrl, name);

  before(() => dropDatabase(name));
  after(() => dropDatabase(name));

  it('creates a missing database and lets processes booting together migrate it once', async function () {
    this.timeout(60_000);
    await Promise.all([ensureDatabase(url()), ensureDatabase(url()), ensureDatabase(url())]);
    const orms = await Promise.all([openOrm(url(), 2), openOrm(url(), 2), openOrm(url(), 2)]);
    try {
      const applied = await Promise.all(orms.map((orm) => migrate(orm)));
      assert.deepEqual(applied.flat().sort(), migrations.map((m) => m.name).sort(), 'each migration ran exactly once');
      const [tos] = await orms[0].em.fork().getConnection().execute<Array<{ n: string }>>('select count(*) as n from tos_version');
      assert.equal(Number(tos.n), 1, 'the default ToS is seeded once');
      assert.deepEqual(await migrate(orms[1]), []);
    } finally {
      await Promise.all(orms.map((orm) => orm.close()));
    }
  });
});
