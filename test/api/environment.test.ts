/**
 * The environment is a fact of the database: a process configured for the other environment
 * refuses it in one line naming both, production refuses the sandbox money rails, and a database
 * migrated before the environment was recorded is staging when it holds staging artefacts.
 */
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { ensureDatabase, migrate, openOrm, pendingMigrations } from '../../src/db/orm.js';
import { db as pooled } from '../../src/db/sql.js';
import { recordedEnvironment, recordEnvironment } from '../../src/environment/environment.repository.js';
import { environmentMismatch } from '../../src/environment/environment.rules.js';
import { migrations } from '../../src/migrations/index.js';
import { dropDatabase, h, holdfastCli, scratchDatabase, withDatabase } from '../support/harness.js';
import { removeFolders, startHoldfast } from '../support/holdfast-process.js';

const SANDBOX_RAILS = 'set CARD_PROCESSOR, IDENTITY_VERIFIER, PAYOUT_RAIL to a real adapter';

/** A new database migrated as the harness migrates its own, its environment left to `record`. */
async function scratch(purpose: string, record?: 'staging' | 'production'): Promise<{ name: string; url: string }> {
  const name = scratchDatabase(purpose);
  const url = withDatabase(h().databaseUrl, name);
  await ensureDatabase(url);
  const orm = await openOrm(url, 2);
  try {
    await migrate(orm);
    if (record) await recordEnvironment(pooled(orm.em.fork()), record, 'environment test');
  } finally {
    await orm.close();
  }
  return { name, url };
}

async function environmentOf(url: string): Promise<string | undefined> {
  const orm = await openOrm(url, 1);
  try {
    return await recordedEnvironment(pooled(orm.em.fork()));
  } finally {
    await orm.close();
  }
}

describe('the environment of a database', function () {
  this.timeout(120_000);
  after(removeFolders);

  describe('configured', () => {
    it('is production under NODE_ENV=production when APP_ENV is unset, and APP_ENV wins when set', () => {
      assert.deepEqual((({ appEnv, appEnvFrom }) => ({ appEnv, appEnvFrom }))(loadConfig({ NODE_ENV: 'production' })), {
        appEnv: 'production',
        appEnvFrom: 'NODE_ENV',
      });
      assert.equal(loadConfig({ NODE_ENV: 'production', APP_ENV: 'staging' }).appEnv, 'staging');
      assert.equal(loadConfig({ NODE_ENV: 'development' }).appEnv, 'staging');
      assert.equal(loadConfig({}).appEnvFrom, 'default');
    });

    it('puts every money rail on its sandbox adapter by default, and refuses an unknown adapter naming the variable', () => {
      assert.deepEqual(loadConfig({}).rails, { cards: 'sandbox', identity: 'sandbox', payouts: 'sandbox' });
      assert.throws(() => loadConfig({ PAYOUT_RAIL: 'wire' }), /PAYOUT_RAIL must be one of sandbox\b.*\(got "wire"\)/);
    });

    it('names both environments and why this process has its own when they differ', () => {
      assert.equal(environmentMismatch('staging', { appEnv: 'staging', appEnvFrom: 'default' }, 'db'), null);
      assert.equal(
        environmentMismatch('staging', { appEnv: 'production', appEnvFrom: 'NODE_ENV' }, 'shop'),
        'database "shop" is a staging database, but this process is configured for production (NODE_ENV=production, APP_ENV unset): set APP_ENV=staging to serve it, or point DATABASE_URL at a production database',
      );
    });
  });

  describe('production on the sandbox rails', () => {
    for (const [label, env, why] of [
      ['APP_ENV=production', { APP_ENV: 'production' }, 'APP_ENV=production'],
      ['NODE_ENV=production with APP_ENV unset', { NODE_ENV: 'production', APP_ENV: '' }, 'NODE_ENV=production, APP_ENV unset'],
    ] as const) {
      it(`refuses to start under ${label} (web and worker), one line naming the variables`, async () => {
        for (const role of ['all', 'worker']) {
          const run = startHoldfast({ ROLE: role, ...env, DATABASE_URL: h().databaseUrl, REDIS_URL: h().redisUrl });
          assert.equal(await run.exited, 1, run.stdout());
          assert.equal(run.stderr().trim().split('\n').length, 1, run.stderr());
          assert.ok(
            run.stderr().startsWith(`holdfast: production (${why}) refuses the sandbox money rails: ${SANDBOX_RAILS}`),
            run.stderr(),
          );
          assert.equal(run.stdout(), '', 'no banner');
        }
      });
    }

    it('refuses the CLI too, before it opens the database (exit 2)', async () => {
      const res = await holdfastCli(['integrator', 'list'], { APP_ENV: 'production' });
      assert.equal(res.status, 2);
      assert.match(
        res.stderr,
        new RegExp(`^holdfast: production \\(APP_ENV=production\\) refuses the sandbox money rails: ${SANDBOX_RAILS}`),
      );
      assert.equal(res.stderr.trim().split('\n').length, 1);
    });
  });

  describe('recorded', () => {
    it('is recorded by the first process that migrates a new database: `holdfast migrate` in staging', async () => {
      const name = scratchDatabase('env_new');
      try {
        const res = await holdfastCli(['migrate'], { DATABASE_URL: withDatabase(h().databaseUrl, name), APP_ENV: 'staging' });
        assert.equal(res.status, 0, res.stderr);
        assert.equal(await environmentOf(withDatabase(h().databaseUrl, name)), 'staging');
      } finally {
        await dropDatabase(name);
      }
    });

    it('refuses a staging process on a production database: npm start, a worker and the CLI, nothing done', async () => {
      const db = await scratch('env_prod', 'production');
      try {
        const refusal = `database "${db.name}" is a production database, but this process is configured for staging (the default: APP_ENV unset, NODE_ENV not production): set APP_ENV=production to serve it, or point DATABASE_URL at a staging database`;
        for (const role of ['all', 'worker']) {
          const run = startHoldfast({ ROLE: role, APP_ENV: '', NODE_ENV: '', DATABASE_URL: db.url, REDIS_URL: h().redisUrl });
          assert.equal(await run.exited, 1);
          assert.equal(run.stderr(), `holdfast: ${refusal}\n`);
        }
        // The CLI that thinks it is staging funds nothing and decides nothing there.
        for (const args of [
          ['integrator', 'fund', 'acme', '--currency', 'USD', '--amount', '100', '--reason', 'test'],
          ['kyc', 'decide', 'acc_x', '--state', 'ACCEPT', '--reason', 'test'],
          ['migrate'],
        ]) {
          const res = await holdfastCli(args, { DATABASE_URL: db.url, APP_ENV: '', NODE_ENV: '' });
          assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
          assert.equal(res.stderr, `holdfast: ${refusal}\n`);
        }
        assert.equal(await environmentOf(db.url), 'production');
      } finally {
        await dropDatabase(db.name);
      }
    });

    it('refuses before migrating: a staging process applies none of its migrations to a production database', async () => {
      const name = scratchDatabase('env_prod_behind');
      const url = withDatabase(h().databaseUrl, name);
      await ensureDatabase(url);
      const orm = await openOrm(url, 2);
      try {
        // A production database one migration behind this checkout.
        await orm.getMigrator().up({ to: migrations[migrations.length - 2].name });
        await recordEnvironment(pooled(orm.em.fork()), 'production', 'environment test');
        const run = startHoldfast({ ROLE: 'web', APP_ENV: 'staging', DATABASE_URL: url, REDIS_URL: h().redisUrl });
        assert.equal(await run.exited, 1);
        assert.match(run.stderr(), /is a production database, but this process is configured for staging/);
        const cli = await holdfastCli(['migrate'], { DATABASE_URL: url, APP_ENV: 'staging' });
        assert.equal(cli.status, 2, cli.stderr);
        assert.deepEqual(await pendingMigrations(url), [migrations[migrations.length - 1].name], 'nothing applied');
      } finally {
        await orm.close();
        await dropDatabase(name);
      }
    });

    it('is staging for a database migrated before it was recorded that holds a staging artefact', async () => {
      const before = migrations[migrations.findIndex((m) => m.name.endsWith('EnvironmentAndProviderObjects')) - 1].name;
      for (const [purpose, artefact] of [
        [
          'env_demo',
          `insert into integrator (id, name) values ('int_old', 'demo'); insert into client (id, integrator_id, secret_hash) values ('cli_old', 'int_old', 'x')`,
        ],
        [
          'env_fund',
          `insert into integrator (id, name) values ('int_x', 'acme'); insert into ledger_account (id, integrator_id, kind, currency, normal_side) values ('led_old', 'int_x', 'sandbox_funding', 'USD', 'debit')`,
        ],
        ['env_none', ''],
      ] as const) {
        const name = scratchDatabase(purpose);
        const url = withDatabase(h().databaseUrl, name);
        await ensureDatabase(url);
        const orm = await openOrm(url, 2);
        try {
          await orm.getMigrator().up({ to: before });
          if (artefact) await orm.em.getConnection().execute(artefact);
          await orm.getMigrator().up();
          const recorded = await recordedEnvironment(pooled(orm.em.fork()));
          assert.equal(recorded, artefact ? 'staging' : undefined, purpose);
        } finally {
          await orm.close();
          await dropDatabase(name);
        }
      }
    });
  });
});
