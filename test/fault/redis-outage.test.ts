import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { addCard, call, h, newClient, register, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A private redis-server on `port` (nothing kept on disk), answering PING. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await until('the private Redis to answer', async () => {
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    probe.on('error', () => {});
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG' ? true : undefined;
    } finally {
      probe.disconnect();
    }
  });
  return child;
}

describe('fault: Redis goes away under a running Holdfast and comes back', function () {
  this.timeout(120_000);

  it('says so once in the log (no stack traces on stderr), answers 202 meanwhile, finishes the command when Redis is back, and stops without waiting for it', async () => {
    const redisPort = await freePort();
    const httpPort = await freePort();
    let redis = await startRedis(redisPort);
    const holdfast = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: {
        ...process.env,
        APP_ENV: 'staging',
        ROLE: 'all',
        PORT: String(httpPort),
        LOG_LEVEL: 'info',
        DATABASE_URL: h().databaseUrl,
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-${unique('outage')}`,
        COMMAND_SWEEP_AFTER_MS: '1000',
        COMMAND_SWEEP_EVERY_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    holdfast.stdout!.on('data', (d) => {
      stdout += d;
    });
    holdfast.stderr!.on('data', (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => holdfast.once('exit', (code) => resolve(code)));
    const logLines = () =>
      stdout
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
    try {
      await until('Holdfast to start', async () => (stdout.includes('Holdfast is up') ? true : undefined), 60_000);
      const baseUrl = `http://127.0.0.1:${httpPort}`;
      const client = await newClient();
      const token = (
        await call('POST', '/token', {
          baseUrl,
          body: { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
        })
      ).body.access_token;
      const buyer = await register(client);
      const card = await addCard(client, buyer.account_id);
      const created = await call('POST', '/v2/escrow', {
        baseUrl,
        token,
        body: {
          account_id: buyer.account_id,
          payment_methods: [{ payment_method_id: card, amount: 0 }],
          line_items: [{ amount: 990, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      });
      assert.equal(created.status, 201, created.text);
      const escrowId = created.body.payload.id;

      redis.kill('SIGKILL');
      await new Promise((r) => setTimeout(r, 2500));
      // The command row is written; its job cannot be: 202, and the sweeper enqueues it later.
      const accepted = await call('POST', `/v2/escrow/${escrowId}/pay`, { baseUrl, token, headers: { prefer: 'respond-async' } });
      assert.equal(accepted.status, 202, accepted.text);
      // What needs only PostgreSQL still answers.
      const meanwhile = await call('GET', `/v2/escrow/${escrowId}`, { baseUrl, token });
      assert.equal(meanwhile.status, 200, meanwhile.text);
      assert.equal(meanwhile.body.payload.status, 'OPEN');
      assert.equal((await call('GET', '/readyz', { baseUrl })).status, 503);
      await new Promise((r) => setTimeout(r, 2500));

      redis = await startRedis(redisPort);
      await until('the pay to finish once Redis is back', async () => {
        const escrow = await call('GET', `/v2/escrow/${escrowId}`, { baseUrl, token });
        return escrow.body.payload?.status === 'ESCROWED' ? true : undefined;
      });
      const committed = await call('POST', `/v2/escrow/${escrowId}/commit`, { baseUrl, token });
      assert.equal(committed.status, 200, committed.text);
      assert.equal(committed.body.payload.status, 'COMMITTED');
      await until('both connections to log their return', async () => {
        const back = logLines()
          .filter((l) => l.msg === 'redis available again')
          .map((l) => l.redis);
        return back.includes('web') && back.includes('workers') ? true : undefined;
      });
      const postings = await h()
        .orm.em.fork()
        .execute('select 1 from ledger_posting where reference = ?', [`escrow:${escrowId}:pay`]);
      assert.equal(postings.length, 1, 'charged exactly once');
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

      // Stopped while Redis is away again: it does not wait for Redis to come back.
      redis.kill('SIGKILL');
      await until('the connections to notice', async () =>
        logLines().filter((l) => l.msg === 'redis unavailable; reconnecting').length >= 4 ? true : undefined,
      );
      holdfast.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
      assert.equal(code, 0, 'a SIGTERM during an outage ends the process (exit 0) within 10 s');
    } finally {
      holdfast.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 15_000))]);
      if (code === 'hung') holdfast.kill('SIGKILL');
      redis.kill('SIGKILL');
    }
    assert.equal(stderr, '', 'nothing on stderr: every failure goes through the logger');
    assert.doesNotMatch(stdout, /"stack"|\n\s+at /);
    const lines = logLines();
    for (const connection of ['web', 'workers']) {
      const down = lines.filter((l) => l.msg === 'redis unavailable; reconnecting' && l.redis === connection);
      assert.equal(down.length, 2, `one outage line per outage (two) for the ${connection} connection:\n${stdout}`);
    }
    // A job running when Redis lost everything may report its key missing; that is worth a line.
    // Failures to reach Redis are not: the connections' lines say it once.
    const unreachable = lines.filter(
      (l) =>
        (l.msg === 'queue error' || l.msg === 'worker error') && /ECONNREFUSED|Connection is closed|ECONNRESET/.test(JSON.stringify(l.err)),
    );
    assert.deepEqual(unreachable, [], 'the queues leave the outage to the connections');
  });
});
