/**
 * `npm start` as a newcomer meets it: a PostgreSQL it cannot use is one line naming the cause and
 * the variable, a Redis that is down still gets the banner, and ROLE=web serves the demo shop.
 * Each server runs in a folder of its own (its .data/ stays there) and is killed if it overstays.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import pg from 'pg';
import { ensureDatabase } from '../../src/db/orm.js';
import { call, dropDatabase, h, holdfastCli, scratchDatabase, withDatabase } from '../support/harness.js';
import { removeFolders, startHoldfast, until } from '../support/holdfast-process.js';
import { freePort } from '../support/receiver.js';

/** The harness's PostgreSQL as another user (who does not exist). */
function asUser(url: string, user: string): string {
  const u = new URL(url);
  u.username = user;
  return u.toString();
}

async function databaseExists(name: string): Promise<boolean> {
  const admin = new pg.Client({ connectionString: withDatabase(h().databaseUrl, 'postgres') });
  await admin.connect();
  try {
    return (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
  } finally {
    await admin.end();
  }
}

/**
 * A server speaking just enough of the PostgreSQL protocol to refuse a password: this suite's
 * PostgreSQL trusts every local connection, so it never asks for one.
 */
function refusingPostgres(): Promise<{ port: number; server: Server }> {
  const field = (type: string, value: string) => Buffer.concat([Buffer.from(type), Buffer.from(value), Buffer.from([0])]);
  const body = Buffer.concat([
    field('S', 'FATAL'),
    field('V', 'FATAL'),
    field('C', '28P01'),
    field('M', 'password authentication failed for user "postgres"'),
    Buffer.from([0]),
  ]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  const error = Buffer.concat([Buffer.from('E'), length, body]);
  const server = createServer((socket) => socket.once('data', () => socket.end(error)));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ port: (server.address() as { port: number }).port, server })),
  );
}

describe('starting Holdfast', function () {
  this.timeout(180_000);
  after(removeFolders);

  describe('a PostgreSQL it cannot use is one line on stderr naming the cause and DATABASE_URL', () => {
    for (const role of ['all', 'web', 'worker']) {
      it(`ROLE=${role}: nothing listening on the port`, async () => {
        const port = await freePort();
        const run = startHoldfast({ ROLE: role, DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/holdfast`, REDIS_URL: h().redisUrl });
        assert.equal(await run.exited, 1);
        assert.equal(run.stderr(), `holdfast: cannot reach PostgreSQL at 127.0.0.1:${port} (DATABASE_URL): connection refused\n`);
      });
    }

    it('a role that does not exist (npm start and the CLI alike)', async () => {
      const url = asUser(h().databaseUrl, 'nobody');
      const run = startHoldfast({ DATABASE_URL: url, REDIS_URL: h().redisUrl });
      assert.equal(await run.exited, 1);
      assert.equal(run.stderr(), 'holdfast: PostgreSQL refused the connection (DATABASE_URL): role "nobody" does not exist\n');
      for (const args of [
        ['ledger', 'verify'],
        ['client', 'create', '--integrator', 'x'],
      ]) {
        const cli = await holdfastCli(args, { DATABASE_URL: url });
        assert.equal(cli.status, 1);
        assert.equal(cli.stderr, 'holdfast: PostgreSQL refused the connection (DATABASE_URL): role "nobody" does not exist\n');
      }
    });

    it('a wrong password', async () => {
      const { port, server } = await refusingPostgres();
      try {
        const run = startHoldfast({ DATABASE_URL: `postgres://postgres:wrong@127.0.0.1:${port}/holdfast`, REDIS_URL: h().redisUrl });
        assert.equal(await run.exited, 1);
        assert.equal(
          run.stderr(),
          'holdfast: PostgreSQL refused the connection (DATABASE_URL): password authentication failed for user "postgres"\n',
        );
      } finally {
        server.close();
      }
    });

    it('ROLE=worker on a database that does not exist: says so and leaves it uncreated', async () => {
      const name = scratchDatabase('worker_missing');
      const run = startHoldfast({ ROLE: 'worker', DATABASE_URL: withDatabase(h().databaseUrl, name), REDIS_URL: h().redisUrl });
      assert.equal(await run.exited, 1);
      assert.equal(run.stderr().trim().split('\n').length, 1, run.stderr());
      assert.match(
        run.stderr(),
        new RegExp(`^holdfast: database "${name}" does not exist on .* \\(DATABASE_URL\\): ROLE=worker never creates it`),
      );
      assert.equal(await databaseExists(name), false);
    });

    it('ROLE=worker on a database that exists but is not migrated: says what to run first, in one line', async () => {
      const name = scratchDatabase('worker_unmigrated');
      await ensureDatabase(withDatabase(h().databaseUrl, name));
      try {
        const run = startHoldfast({ ROLE: 'worker', DATABASE_URL: withDatabase(h().databaseUrl, name), REDIS_URL: h().redisUrl });
        assert.equal(await run.exited, 1);
        assert.equal(run.stderr().trim().split('\n').length, 1, run.stderr());
        assert.match(
          run.stderr(),
          /^holdfast: the database has \d+ migrations not applied \(Migration\w+, …\): ROLE=worker never migrates; start ROLE=web \(or run holdfast migrate\) first/,
        );
      } finally {
        await dropDatabase(name);
      }
    });
  });

  it('with Redis down, prints the banner saying Redis is unreachable; readyz says 503; SIGTERM ends it', async () => {
    const [httpPort, redisPort] = [await freePort(), await freePort()];
    const run = startHoldfast({
      ROLE: 'all',
      APP_ENV: 'staging',
      PORT: String(httpPort),
      DATABASE_URL: h().databaseUrl,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    });
    try {
      await until('the banner', () => (run.stdout().includes('Holdfast is up') ? true : undefined));
      const banner = run
        .stdout()
        .split('\n')
        .filter((l) => !l.startsWith('{'));
      const redisLine = banner.findIndex((l) => l.startsWith('  Redis '));
      assert.match(banner[redisLine], new RegExp(`redis://127.0.0.1:${redisPort}`));
      assert.match(banner[redisLine + 1], /UNREACHABLE \(REDIS_URL\): commands are accepted \(202\) and wait/);
      assert.match(banner[redisLine + 2], /readyz says 503/);
      assert.equal((await call('GET', '/readyz', { baseUrl: `http://127.0.0.1:${httpPort}` })).status, 503);
      assert.equal((await call('GET', '/healthz', { baseUrl: `http://127.0.0.1:${httpPort}` })).status, 200);
    } finally {
      assert.equal(await run.stop(), 0, 'SIGTERM ends it at once, though the workers never started');
    }
    assert.equal(run.stderr(), '');
  });

  it('ROLE=web serves the demo shop in staging and says so in the banner', async () => {
    const httpPort = await freePort();
    const run = startHoldfast({
      ROLE: 'web',
      APP_ENV: 'staging',
      PORT: String(httpPort),
      DATABASE_URL: h().databaseUrl,
      REDIS_URL: h().redisUrl,
    });
    try {
      await until('the banner', () => (run.stdout().includes('Holdfast is up') ? true : undefined));
      await until('the demo client lines', () => (run.stdout().includes('CLIENT_SECRET=') ? true : undefined), 5_000);
      assert.match(run.stdout(), /Demo shop +http:\/\/localhost:\d+\/ui\/demo .*its payments run on the ROLE=worker process/);
      // The open staging dashboard says what its job views show.
      assert.match(
        run.stdout(),
        /\n {2}Queues +http:\/\/localhost:\d+\/admin\/queues \(open: no ADMIN_PASSWORD set\)\n {17}its job views show command results with every integrator's invoices, to anyone who reaches this port\n/,
      );
      assert.match(run.stdout(), /\n {2}Metrics +http:\/\/localhost:\d+\/metrics \(open: no ADMIN_PASSWORD or METRICS_TOKEN set\)\n/);
      const page = await fetch(`http://127.0.0.1:${httpPort}/ui/demo`);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
    } finally {
      assert.equal(await run.stop(), 0);
    }
  });
});
