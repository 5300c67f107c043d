/**
 * Holdfast on the two Redis topologies beyond one server, each started here from `redis-server`:
 * a Cluster of three masters (`redis+cluster://`) and a primary with a replica watched by three
 * sentinels (`redis+sentinel://`, with a failover in the middle of a run). An app and its workers
 * (every connection made from that one REDIS_URL) run an escrow create → pay → commit and deliver
 * its webhooks. They use a scratch database of their own, so that the suite's workers (on the
 * suite's Redis) can neither run these commands nor send these deliveries.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { createClient, TokenSigner } from '../../src/auth/auth.service.js';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { buildApp } from '../../src/http/app.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { closeRedis, createRedis } from '../../src/queues/connection.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import {
  call,
  dropDatabase,
  h,
  scratchDatabase,
  TEST_QUEUE_PREFIX,
  TEST_WEBHOOK_POLICY,
  unique,
  withDatabase,
} from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { missingRedisBinaries, RedisServers, redisCli, until } from '../support/redis-servers.js';

const CLUSTER_PORTS = [7400, 7401, 7402];
const PRIMARY = 7403;
const REPLICA = 7404;
const SENTINELS = [7405, 7406, 7407];
/** A hash-tagged prefix: in a cluster every key of a BullMQ queue must fall in one slot. */
const PREFIX = `{${TEST_QUEUE_PREFIX.replace(/[{}]/g, '')}-topo}`;

const cli = (port: number, ...args: string[]) => redisCli(port, args);

/** A running app + workers on one REDIS_URL, with a client of its own and a webhook receiver. */
interface Stack {
  baseUrl: string;
  workers: RunningWorkers;
  token: string;
  endpointId: string;
  receiver: Receiver;
  close(): Promise<void>;
}

async function startStack(orm: MikroORM, databaseUrl: string, redisUrl: string): Promise<Stack> {
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'holdfast-topology');
  const closers: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    const redis = createRedis(redisUrl, 'producer');
    closers.push(() => closeRedis(redis));
    const signer = await TokenSigner.load(orm.em.fork(), {
      connect: () => createRedis(redisUrl, 'worker'),
      publisher: redis,
      prefix: PREFIX,
    });
    closers.push(() => signer.close());
    const bus = new CommandBus(redisUrl, PREFIX, redis, logger);
    closers.push(() => bus.close());
    const workers = await startWorkers({
      orm,
      redisUrl,
      queuePrefix: PREFIX,
      logger,
      commandSweepAfterMs: 1500,
      deliverySweepAfterMs: 1500,
      sweepEveryMs: 500,
      lockMs: 2000,
      databaseUrl,
      webhooks: TEST_WEBHOOK_POLICY,
    });
    closers.push(() => workers.close());
    const app = await buildApp({
      config: { appEnv: 'staging', publicUrl: 'http://localhost:3000', syncWaitMs: 10_000, queuePrefix: PREFIX },
      orm,
      redis,
      signer,
      logger,
      bus,
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Pub/sub through the topology: the signer trusts its copy once subscribed.
    await signer.heardOthers();

    const created = await createClient(orm.em.fork(), { integrator: unique('int-topo-'), scopes: [...ALL_SCOPES], tosSigning: true });
    const tokenRes = await call('POST', '/token', {
      baseUrl,
      rawBody: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: created.client_id,
        client_secret: created.client_secret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(tokenRes.status, 200, tokenRes.text);
    const receiver = await startReceiver();
    closers.push(() => receiver.close());
    const endpoint = await call('POST', '/v2/webhooks', {
      baseUrl,
      token: tokenRes.body.access_token,
      body: { url: receiver.url, events: ['escrow-transaction-update'], description: 'topology test' },
    });
    assert.equal(endpoint.status, 201, endpoint.text);
    return { baseUrl, workers, token: tokenRes.body.access_token, endpointId: endpoint.body.payload.id, receiver, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A buyer with a card (the card add goes through the Redis rate limit) and an OPEN escrow of theirs. */
async function openEscrows(s: Stack, count: number): Promise<string[]> {
  const name = unique('topo');
  const registered = await call('POST', '/register', {
    baseUrl: s.baseUrl,
    token: s.token,
    body: { username: name, email: { address: `${name}@example.com` } },
  });
  assert.equal(registered.status, 200, registered.text);
  const accountId = registered.body.payload.account_id;
  const card = await call('POST', `/v1/${accountId}/payment_methods`, {
    baseUrl: s.baseUrl,
    token: s.token,
    body: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' } },
  });
  assert.equal(card.status, 201, card.text);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const created = await call('POST', '/v2/escrow', {
      baseUrl: s.baseUrl,
      token: s.token,
      body: {
        account_id: accountId,
        payment_methods: [{ payment_method_id: card.body.payload.id, amount: 0 }],
        line_items: [{ amount: 500 + i, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    ids.push(created.body.payload.id);
  }
  return ids;
}

async function lifecycle(s: Stack): Promise<string> {
  const ready = await call('GET', '/readyz', { baseUrl: s.baseUrl });
  assert.equal(ready.status, 200, ready.text);
  assert.equal(ready.body.payload.checks.redis, 'ok');
  const [id] = await openEscrows(s, 1);
  const paid = await call('POST', `/v2/escrow/${id}/pay`, { baseUrl: s.baseUrl, token: s.token });
  assert.equal(paid.status, 200, paid.text);
  assert.equal(paid.body.payload.status, 'ESCROWED');
  const committed = await call('POST', `/v2/escrow/${id}/commit`, { baseUrl: s.baseUrl, token: s.token });
  assert.equal(committed.status, 200, committed.text);
  assert.equal(committed.body.payload.status, 'COMMITTED');
  await s.receiver.until((got) => got.some((r) => r.json?.message?.id === id && r.json?.message?.status === 'COMMITTED'));
  return id;
}

/** Every escrow event of these escrows has a delivery to the endpoint, and every delivery is delivered. */
async function allDelivered(orm: MikroORM, s: Stack, escrowIds: string[]): Promise<void> {
  let seen: unknown;
  await until(
    'every delivery of these escrows to be delivered',
    async () => {
      const [row] = await orm.em.fork().execute<Array<{ events: number; deliveries: number; delivered: number }>>(
        `select (select count(*)::int from outbox where event_name = 'escrow-transaction-update' and message->>'id' in (?)) as events,
                count(d.id)::int as deliveries, count(d.id) filter (where d.state = 'delivered')::int as delivered
           from outbox o join webhook_delivery d on d.event_id = o.id and d.endpoint_id = ?
          where o.event_name = 'escrow-transaction-update' and o.message->>'id' in (?)`,
        [escrowIds, s.endpointId, escrowIds],
      );
      seen = row;
      return row.events > 0 && row.deliveries === row.events && row.delivered === row.events ? row : undefined;
    },
    30_000,
  ).catch((err) => {
    throw new Error(`${err.message}: ${JSON.stringify(seen)}`);
  });
}

describe('scale: Redis Sentinel and Redis Cluster (REDIS_URL forms)', function () {
  this.timeout(120_000);
  let servers: RedisServers | undefined;
  let orm: MikroORM | undefined;
  const database = scratchDatabase('topo');
  let databaseUrl = '';
  let replica: ChildProcess;

  before(async function () {
    if (missingRedisBinaries.length) {
      console.log(`    skipped: ${missingRedisBinaries.join(' and ')} not found on PATH (this file starts its own Redis servers)`);
      this.skip();
    }
    servers = new RedisServers();
    servers.server(PRIMARY);
    replica = servers.server(REPLICA, ['--replicaof', '127.0.0.1', String(PRIMARY)]);
    await servers.answering([PRIMARY, REPLICA]);
    for (const port of SENTINELS)
      servers.sentinel(port, [
        `sentinel monitor mymaster 127.0.0.1 ${PRIMARY} 2`,
        'sentinel down-after-milliseconds mymaster 1000',
        'sentinel failover-timeout mymaster 3000',
        'sentinel parallel-syncs mymaster 1',
      ]);
    await servers.cluster(CLUSTER_PORTS);

    databaseUrl = withDatabase(h().databaseUrl, database);
    await dropDatabase(database);
    await ensureDatabase(databaseUrl);
    orm = await openOrm(databaseUrl);
    await migrate(orm);
  });

  after(async function () {
    this.timeout(30_000);
    await orm?.close().catch(() => undefined);
    await servers?.stop();
    if (databaseUrl) await dropDatabase(database).catch(() => undefined);
  });

  it('redis+cluster:// (three masters): escrow create → pay → commit and its webhooks, every queue on one hash-tagged slot', async () => {
    const url = `redis+cluster://${CLUSTER_PORTS.map((p) => `127.0.0.1:${p}`).join(',')}`;
    const s = await startStack(orm!, databaseUrl, url);
    try {
      await allDelivered(orm!, s, [await lifecycle(s)]);
      // The queues' keys are all in the slot of the prefix's hash tag, on one of the three masters.
      const slot = Number((await cli(CLUSTER_PORTS[0], 'cluster', 'keyslot', `${PREFIX}:commands:id`)).trim());
      const holders = await Promise.all(
        CLUSTER_PORTS.map(async (p) => Number((await cli(p, 'cluster', 'countkeysinslot', String(slot))).trim())),
      );
      assert.equal(holders.filter((n) => n > 0).length, 1, `keys of slot ${slot} per node: ${holders}`);
    } finally {
      await s.close();
    }
  });

  /** Whether the sentinels see `port` as a healthy replica of mymaster. */
  const healthyReplica = async (port: number) => {
    const listed = await cli(SENTINELS[0], 'sentinel', 'replicas', 'mymaster');
    const info = await cli(port, 'info', 'replication');
    return listed.includes(`127.0.0.1:${port}`) && /\nflags\nslave\n/.test(listed) && info.includes('master_link_status:up')
      ? true
      : undefined;
  };
  const masterPort = async () => Number((await cli(SENTINELS[1], 'sentinel', 'get-master-addr-by-name', 'mymaster')).trim().split('\n')[1]);

  /**
   * Twelve pays accepted around a failover (`failover` starts it and returns the port to be
   * promoted): six wait in Redis (the workers paused) when it starts, six more are accepted
   * just after it. Then every pay finishes exactly once, every escrow commits on the new
   * primary, and every event of theirs is delivered.
   */
  async function payAcrossFailover(s: Stack, failover: () => Promise<number>): Promise<void> {
    const escrows = await openEscrows(s, 12);
    await Promise.all(s.workers.workers.map((w) => w.pause()));
    const pay = (id: string) =>
      call('POST', `/v2/escrow/${id}/pay`, { baseUrl: s.baseUrl, token: s.token, headers: { prefer: 'respond-async' } });
    const accepted = await Promise.all(escrows.slice(0, 6).map(pay));
    const promoted = await failover();
    accepted.push(...(await Promise.all(escrows.slice(6).map(pay))));
    const commands = accepted.map((res) => {
      assert.equal(res.status, 202, res.text);
      return String(res.headers.get('x-command-id'));
    });
    const pendingThen = await orm!.em.fork().execute(`select id from command where id in (?) and state = 'pending'`, [commands]);
    assert.equal(pendingThen.length, escrows.length, 'no pay ran before the failover');
    await until('the sentinels to promote the replica', async () => ((await masterPort()) === promoted ? true : undefined), 20_000);
    for (const w of s.workers.workers) w.resume();
    await until('the health check to find the new primary', async () =>
      (await call('GET', '/readyz', { baseUrl: s.baseUrl })).status === 200 ? true : undefined,
    );
    await until(
      'every pay to finish',
      async () => {
        const rows = await orm!.em.fork().execute<Array<{ status: string }>>(`select status from escrow where id in (?)`, [escrows]);
        return rows.length === escrows.length && rows.every((r) => r.status === 'ESCROWED') ? true : undefined;
      },
      30_000,
    );
    const pending = await orm!.em.fork().execute(`select id from command where id in (?) and state <> 'done'`, [commands]);
    assert.deepEqual(pending, [], 'every accepted command is done');
    const [charged] = await orm!.em
      .fork()
      .execute<Array<{ n: number }>>(`select count(*)::int as n from ledger_posting where reference in (?)`, [
        escrows.map((id) => `escrow:${id}:pay`),
      ]);
    assert.equal(charged.n, escrows.length, 'each escrow charged exactly once');
    // The new primary serves the rest of the run: commit them all, synchronously.
    for (const id of escrows) {
      const committed = await call('POST', `/v2/escrow/${id}/commit`, { baseUrl: s.baseUrl, token: s.token });
      assert.equal(committed.status, 200, committed.text);
    }
    await allDelivered(orm!, s, escrows);
    for (const id of escrows)
      for (const status of ['ESCROWED', 'COMMITTED'])
        assert.ok(
          s.receiver.received.some((r) => r.json?.message?.id === id && r.json?.message?.status === status),
          `the receiver got ${id} ${status}`,
        );
  }

  it('redis+sentinel:// (primary, replica, three sentinels): the lifecycle works; across a SENTINEL FAILOVER and then the new primary killed, no command and no event is lost', async () => {
    await until('the sentinels to know the replica', () => healthyReplica(REPLICA), 20_000);
    const url = `redis+sentinel://${SENTINELS.map((p) => `127.0.0.1:${p}`).join(',')}/mymaster`;
    const s = await startStack(orm!, databaseUrl, url);
    try {
      await allDelivered(orm!, s, [await lifecycle(s)]);
      // A planned switch: the old primary stays up and becomes a replica of the new one.
      await payAcrossFailover(s, async () => {
        assert.match(await cli(SENTINELS[0], 'sentinel', 'failover', 'mymaster'), /OK/);
        return REPLICA;
      });
      // A crash: the new primary dies; the old one, now its replica, is promoted back.
      await until('the old primary to be a healthy replica', () => healthyReplica(PRIMARY), 30_000);
      await payAcrossFailover(s, async () => {
        const killed = new Promise((r) => replica.once('exit', r));
        replica.kill('SIGKILL');
        await killed;
        return PRIMARY;
      });
    } finally {
      await s.close();
    }
  });
});
