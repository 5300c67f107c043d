/**
 * The passwords and ACL user of `redis+cluster://` and `redis+sentinel://` reach every connection
 * Holdfast makes (createRedis), on servers started here from `redis-server` that ask for them: a
 * Cluster of three masters (`requirepass`, and an ACL user) given by one seed node, so two of its
 * masters are found through CLUSTER SLOTS; a primary and a replica with the same password,
 * watched by three sentinels asking for a password of their own. Each topology takes a BullMQ
 * job and a pub/sub message with the right credentials; with a wrong one, the connection's
 * errors, its outage log line and `/readyz` say so without repeating the password.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue, Worker } from 'bullmq';
import express from 'express';
import type { Cluster, Redis } from 'ioredis';
import { healthRoutes } from '../../src/http/health.js';
import { closeRedis, createRedis, reportOutages, type RedisConnection } from '../../src/queues/connection.js';
import { createLogger } from '../../src/runtime/logger.js';
import { call, h, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';
import { missingRedisBinaries, RedisServers, redisCli, until } from '../support/redis-servers.js';

const CLUSTER_PORTS = [7410, 7411, 7412];
const PRIMARY = 7413;
const REPLICA = 7414;
const SENTINELS = [7415, 7416, 7417];
/** A hash-tagged prefix: in a cluster every key of a BullMQ queue must fall in one slot. */
const PREFIX = `{${TEST_QUEUE_PREFIX.replace(/[{}]/g, '')}-auth}`;

const secret = (what: string) => `${what}-${randomBytes(9).toString('base64url')}`;
/** The data servers' `requirepass` (the default user's password). */
const DATA_PASSWORD = secret('data');
/** An ACL user of the data servers, with a password of its own. */
const APP_USER = 'holdfast-app';
const APP_PASSWORD = secret('app');
/** The sentinels' own `requirepass`. */
const SENTINEL_PASSWORD = secret('sentinel');
const WRONG = secret('wrong');
const PASSWORDS = [DATA_PASSWORD, APP_PASSWORD, SENTINEL_PASSWORD, WRONG];

/** Data-server options: the default user's password, the one replicas use, and the ACL user. */
const AUTH = [
  '--requirepass',
  DATA_PASSWORD,
  '--masterauth',
  DATA_PASSWORD,
  '--user',
  APP_USER,
  'on',
  `>${APP_PASSWORD}`,
  '~*',
  '&*',
  '+@all',
];

function assertNoPassword(text: string, where: string): void {
  for (const password of PASSWORDS) assert.ok(!text.includes(password), `${where} repeats a password: ${text}`);
}

/** The user each master's connection is logged in as (ACL WHOAMI on each). */
async function whoOnEachMaster(redis: RedisConnection): Promise<Array<[string, string]>> {
  const nodes: Redis[] = 'nodes' in redis ? (redis as Cluster).nodes('master') : [redis as Redis];
  return Promise.all(nodes.map(async (node) => [`${node.options.port}`, String(await node.call('acl', 'whoami'))] as [string, string]));
}

/**
 * Holdfast's connections for each role on `url` carry a BullMQ job from a producer to a worker,
 * and a message from a publisher to a subscriber.
 */
async function roundTrip(url: string): Promise<void> {
  const producer = createRedis(url, 'producer');
  const workerConnection = createRedis(url, 'worker');
  const subscriber = createRedis(url, 'worker');
  const name = unique('auth');
  const queue = new Queue(name, { connection: producer, prefix: PREFIX });
  const worker = new Worker(name, async (job) => ({ doubled: job.data.n * 2 }), { connection: workerConnection, prefix: PREFIX });
  try {
    const finished = new Promise<unknown>((resolve, reject) => {
      worker.on('completed', (_job, result) => resolve(result));
      worker.on('failed', (_job, err) => reject(err));
    });
    await queue.add('double', { n: 21 });
    assert.deepEqual(await finished, { doubled: 42 });

    const channel = `${PREFIX}:${name}:said`;
    const heard = new Promise<string>((resolve) =>
      subscriber.on('message', (ch: string, message: string) => ch === channel && resolve(message)),
    );
    await subscriber.subscribe(channel);
    const said = await until('the subscriber to hear the message', async () => {
      await producer.publish(channel, 'hello');
      return Promise.race([heard, new Promise<undefined>((r) => setTimeout(r, 200))]);
    });
    assert.equal(said, 'hello');
  } finally {
    await worker.close();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close();
    for (const c of [producer, workerConnection, subscriber]) await closeRedis(c);
  }
}

/**
 * What a process on `url` with a wrong credential shows: its connection's errors (one matches
 * `errorSays`), the outage line `reportOutages` logs (its error matches `logSays`), `/readyz`
 * (503, redis down). None of it repeats a password.
 */
async function refused(url: string, errorSays: RegExp, logSays = errorSays): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'hf-auth-log-'));
  const file = path.join(dir, 'out.log');
  const logger = createLogger('info', 'holdfast-test', file);
  const redis = createRedis(url, 'producer');
  const errors: string[] = [];
  redis.on('error', (err: Error) => errors.push(`${err.name}: ${err.message}`));
  reportOutages(redis, logger, 'web');
  const app = express().use(healthRoutes(h().orm, redis));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  try {
    await until('the connection to report an error', async () => (errors.length ? true : undefined));
    const ready = await call('GET', '/readyz', { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    assert.equal(ready.status, 503, ready.text);
    assert.deepEqual(ready.body.payload.checks, { postgresql: 'ok', redis: 'down' });
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    const log = readFileSync(file, 'utf8');
    const outage = log
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .find((line) => line.msg === 'redis unavailable; reconnecting');
    assert.match(outage?.err?.message ?? '', logSays, log);
    assert.ok(
      errors.some((e) => errorSays.test(e)),
      `an error says why: ${errors.join(' | ')}`,
    );
    assertNoPassword(errors.join('\n'), 'an error');
    assertNoPassword(log, 'the log');
    assertNoPassword(ready.text, '/readyz');
  } finally {
    redis.disconnect();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('scale: Redis Sentinel and Redis Cluster that ask for passwords (REDIS_URL credentials)', function () {
  this.timeout(60_000);
  let servers: RedisServers | undefined;

  before(async function () {
    if (missingRedisBinaries.length) {
      console.log(`    skipped: ${missingRedisBinaries.join(' and ')} not found on PATH (this file starts its own Redis servers)`);
      this.skip();
    }
    servers = new RedisServers();
    servers.server(PRIMARY, AUTH);
    servers.server(REPLICA, [...AUTH, '--replicaof', '127.0.0.1', String(PRIMARY)]);
    await servers.answering([PRIMARY, REPLICA], DATA_PASSWORD);
    for (const port of SENTINELS)
      servers.sentinel(port, [
        `requirepass "${SENTINEL_PASSWORD}"`,
        `sentinel sentinel-pass "${SENTINEL_PASSWORD}"`,
        `sentinel monitor mymaster 127.0.0.1 ${PRIMARY} 2`,
        `sentinel auth-pass mymaster "${DATA_PASSWORD}"`,
        'sentinel down-after-milliseconds mymaster 1000',
        'sentinel failover-timeout mymaster 3000',
      ]);
    await servers.cluster(CLUSTER_PORTS, AUTH, DATA_PASSWORD);
  });

  after(async function () {
    this.timeout(30_000);
    await servers?.stop();
  });

  describe('redis+cluster:// (one seed node of three masters)', () => {
    const seed = `127.0.0.1:${CLUSTER_PORTS[0]}`;

    for (const [who, credentials, user] of [
      ['the password', `:${DATA_PASSWORD}`, 'default'],
      ['an ACL user and its password', `${APP_USER}:${APP_PASSWORD}`, APP_USER],
    ]) {
      it(`with ${who}: every master, the two found through CLUSTER SLOTS too, logs in as ${user}; a job and a message go through`, async () => {
        const url = `redis+cluster://${encodeURIComponent(credentials.split(':')[0])}:${encodeURIComponent(credentials.split(':')[1])}@${seed}`;
        const redis = createRedis(url, 'producer') as Cluster;
        try {
          await until('the cluster connection', async () => (redis.status === 'ready' ? true : undefined));
          // Keys in slots of each master make the connection reach all three.
          for (const key of ['a', 'b', 'c', 'd', 'e', 'f']) await redis.set(`${PREFIX}-${key}`, '1', 'EX', 60);
          assert.deepEqual(
            (await whoOnEachMaster(redis)).sort(),
            CLUSTER_PORTS.map((p) => [String(p), user]),
          );
        } finally {
          await closeRedis(redis);
        }
        await roundTrip(url);
      });
    }

    it('with a wrong password: the errors, the outage log and /readyz say so, and never repeat it', async () => {
      await refused(
        `redis+cluster://:${WRONG}@${seed}`,
        /Failed to refresh slots cache/,
        /Failed to refresh slots cache. Last node error: WRONGPASS/,
      );
    });
  });

  describe('redis+sentinel:// (a primary and a replica, three sentinels with a password of their own)', () => {
    const sentinels = SENTINELS.map((p) => `127.0.0.1:${p}`).join(',');
    const withSentinelPassword = `sentinel_password=${encodeURIComponent(SENTINEL_PASSWORD)}`;

    it('with the password and an ACL user: the primary the sentinels name logs them in, before and after a failover; a job and a message go through', async () => {
      for (const [credentials, user] of [
        [`:${encodeURIComponent(DATA_PASSWORD)}`, 'default'],
        [`${APP_USER}:${encodeURIComponent(APP_PASSWORD)}`, APP_USER],
      ]) {
        const url = `redis+sentinel://${credentials}@${sentinels}/mymaster?${withSentinelPassword}`;
        const redis = createRedis(url, 'worker');
        try {
          assert.equal(String(await redis.call('acl', 'whoami')), user);
          assert.deepEqual(await redis.call('config', 'get', 'port'), ['port', String(PRIMARY)]);
        } finally {
          await closeRedis(redis);
        }
        await roundTrip(url);
      }
      // A failover: the replica, found by the sentinels, is promoted; the connection follows it
      // and logs in there with the same credentials.
      const url = `redis+sentinel://${APP_USER}:${encodeURIComponent(APP_PASSWORD)}@${sentinels}/mymaster?${withSentinelPassword}`;
      const redis = createRedis(url, 'worker') as Redis;
      try {
        await until('the sentinels to know the replica', async () => {
          const listed = await redisCli(SENTINELS[0], ['sentinel', 'replicas', 'mymaster'], SENTINEL_PASSWORD);
          return listed.includes(`127.0.0.1:${REPLICA}`) && /\nflags\nslave\n/.test(listed) ? true : undefined;
        });
        await redis.set(`${PREFIX}-before`, '1');
        assert.match(await redisCli(SENTINELS[0], ['sentinel', 'failover', 'mymaster'], SENTINEL_PASSWORD), /OK/);
        await until('the connection to write on the promoted replica', async () => {
          await redis.set(`${PREFIX}-after`, '1');
          const role = String(await redisCli(REPLICA, ['role'], DATA_PASSWORD));
          return role.startsWith('master') && (await redisCli(REPLICA, ['get', `${PREFIX}-after`], DATA_PASSWORD)).trim() === '1'
            ? true
            : undefined;
        });
        assert.equal(String(await redis.call('acl', 'whoami')), APP_USER);
      } finally {
        await closeRedis(redis);
      }
      await roundTrip(url);
    });

    it('with a wrong data password, a wrong sentinel password, or none for the sentinels: the errors, the outage log and /readyz say so, and never repeat one', async () => {
      await Promise.all([
        refused(`redis+sentinel://:${WRONG}@${sentinels}/mymaster?${withSentinelPassword}`, /WRONGPASS invalid username-password pair/),
        refused(
          `redis+sentinel://:${DATA_PASSWORD}@${sentinels}/mymaster?sentinel_password=${WRONG}`,
          /All sentinels are unreachable.*Last error: WRONGPASS/,
        ),
        refused(`redis+sentinel://:${DATA_PASSWORD}@${sentinels}/mymaster`, /All sentinels are unreachable.*Last error: NOAUTH/),
      ]);
    });
  });
});
