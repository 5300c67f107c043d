import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers } from '../../workers/index.js';
import { dropDatabase, h, scratchDatabase, TEST_QUEUE_PREFIX, unique, withDatabase } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * Crashes and lost Redis state, each against a scratch database of its own (so the suite's own
 * relay cannot take the events) with its own queue prefix.
 */
describe('fault: webhook deliveries survive crashes and a Redis flush', function () {
  this.timeout(90_000);
  const name = scratchDatabase('hooks');
  const url = () => withDatabase(h().databaseUrl, name);
  let orm: MikroORM;
  let receiver: Receiver;

  before(async () => {
    await dropDatabase(name);
    await ensureDatabase(url());
    orm = await openOrm(url(), 4);
    await migrate(orm);
  });
  after(async () => {
    await orm.close();
    await dropDatabase(name);
  });
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  /** An integrator with an endpoint at the receiver; returns a function that records events. */
  async function subscribed() {
    const db = orm.em.fork();
    const integrator = unique('int_');
    const endpoint = unique('whe_');
    await db.execute(`insert into integrator (id, name) values (?, ?)`, [integrator, integrator]);
    await db.execute(
      `insert into webhook_endpoint (id, integrator_id, url, events, secret, status) values (?, ?, ?, '{invoice-completed}', 'whsec_c2VjcmV0', 'enabled')`,
      [endpoint, integrator, receiver.url],
    );
    return async (n = 1) => {
      const ids = Array.from({ length: n }, () => unique('evt_'));
      // One statement: the events commit (and notify the relay) together.
      await orm.em.fork().execute(
        `insert into outbox (id, integrator_id, event_name, message) values ${ids.map(() => `(?, ?, 'invoice-completed', ?::jsonb)`).join(', ')}`,
        ids.flatMap((id) => [id, integrator, JSON.stringify({ invoice_id: id })]),
      );
      return ids;
    };
  }

  async function deliveries(eventIds: string[]) {
    return orm.em
      .fork()
      .execute<Array<{ event_id: string; state: string }>>(
        `select event_id, state from webhook_delivery where event_id in (${eventIds.map(() => '?').join(', ')}) order by event_id`,
        eventIds,
      );
  }

  function worker(
    prefix: string,
    env: Record<string, string> = {},
  ): { child: ChildProcess; output: () => string; exited: Promise<NodeJS.Signals | null> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/index.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: url(),
        REDIS_URL: h().redisUrl,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'info',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        COMMAND_SWEEP_AFTER_MS: '1000',
        COMMAND_SWEEP_EVERY_MS: '300',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    return { child, output: () => out, exited: new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal))) };
  }

  it('a relay killed between marking the events relayed and enqueuing their jobs loses nothing', async () => {
    const record = await subscribed();
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('relay')}`;
    const first = worker(prefix, { HOLDFAST_FAILPOINTS: 'webhooks.relay.after-commit' });
    await new Promise((resolve) => setTimeout(resolve, 3000)); // let it boot and LISTEN
    const events = await record(3);
    assert.equal(await first.exited, 'SIGKILL', first.output());
    // The rows committed: every delivery is pending, no job was enqueued, nothing was sent.
    assert.deepEqual(
      (await deliveries(events)).map((d) => d.state),
      ['pending', 'pending', 'pending'],
    );
    assert.equal(receiver.received.length, 0);

    const second = worker(prefix);
    try {
      await receiver.until((got) => new Set(got.map((x) => x.headers['webhook-id'])).size === 3, 30_000);
      assert.deepEqual(new Set(receiver.received.map((x) => x.headers['webhook-id'])), new Set(events));
      for (let i = 0; i < 50 && (await deliveries(events)).some((d) => d.state !== 'delivered'); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        (await deliveries(events)).map((d) => d.state),
        ['delivered', 'delivered', 'delivered'],
      );
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  });

  it('a Redis flush in the middle of retries loses nothing: the sweeper re-enqueues from the delivery rows', async () => {
    const record = await subscribed();
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('flush')}`;
    receiver.respond = () => 503;
    const workers = await startWorkers({
      orm,
      redisUrl: h().redisUrl,
      queuePrefix: prefix,
      logger: createLogger('silent', 'flush-test'),
      databaseUrl: url(),
      commandSweepAfterMs: 500,
      sweepEveryMs: 200,
      webhooks: { allowPrivateTargets: true, maxAttempts: 50, retryBaseMs: 1500, disableAfterMs: 1e9 },
    });
    try {
      const events = await record(2);
      await receiver.until((got) => new Set(got.map((x) => x.headers['webhook-id'])).size === 2);
      // Every retry now waits in Redis as a delayed job: flush this prefix's keys.
      const keys = await h().redis.keys(`${prefix}*`);
      assert.ok(keys.length > 0);
      await h().redis.del(...keys);
      const flushedAt = Date.now();
      receiver.respond = () => 200;
      const later = await record(1);
      const all = [...events, ...later];
      await receiver.until((got) => all.every((id) => got.some((x) => x.at >= flushedAt && x.headers['webhook-id'] === id)), 20_000);
      for (let i = 0; i < 80 && (await deliveries(all)).some((d) => d.state !== 'delivered'); i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        (await deliveries(all)).map((d) => d.state),
        ['delivered', 'delivered', 'delivered'],
      );
    } finally {
      await workers.close();
    }
  });
});
