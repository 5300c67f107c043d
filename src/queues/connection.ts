/**
 * Redis connections for BullMQ. Workers (and subscribers) block on Redis, so their
 * connections must retry forever (`maxRetriesPerRequest: null`); producers fail fast instead,
 * so an HTTP request does not hang long on a Redis outage. Redis must run with
 * `maxmemory-policy noeviction`: an evicted queue key is a lost job.
 */
import { isNotConnectionError } from 'bullmq';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { describeError } from '../runtime/describe-error.js';
import type { Logger } from '../runtime/logger.js';
import { parseRedisUrl } from './redis-url.rules.js';

export type RedisRole = 'worker' | 'producer';

/** A connection to one server or a Sentinel-watched primary (`Redis`), or to a Redis Cluster. */
export type RedisConnection = Redis | Cluster;

/**
 * A new ioredis connection for the given role, to whatever `REDIS_URL` names (one server, a
 * Sentinel set, a Cluster: src/queues/redis-url.rules.ts). Every connection Holdfast opens — queues,
 * workers, pub/sub subscribers, rate limits, the health check — is made here.
 * - Sentinel: ioredis asks the sentinels for the primary, and on a failover (its connections
 *   killed by the sentinels, or `+switch-master` heard) reconnects to the new one; a write
 *   answered READONLY (the old primary, now a replica) reconnects and is sent again.
 * - Cluster: the role's options apply to each node's connection; BullMQ needs every key of a
 *   queue in one slot, which the `{…}` hash tag of QUEUE_PREFIX gives.
 */
export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): RedisConnection {
  const options: RedisOptions = {
    maxRetriesPerRequest: role === 'worker' ? null : 2,
    connectTimeout: 5000,
    lazyConnect: false,
    ...extra,
  };
  const topology = parseRedisUrl(url);
  if (topology.kind === 'single') return new Redis(url, options);
  if (topology.kind === 'sentinel') {
    return new Redis({
      sentinels: topology.sentinels,
      name: topology.name,
      db: topology.db,
      username: topology.username,
      password: topology.password,
      sentinelPassword: topology.sentinelPassword,
      failoverDetector: true,
      reconnectOnError: (err) => (err.message.startsWith('READONLY') ? 2 : false),
      ...options,
    });
  }
  const { lazyConnect, retryStrategy, ...nodeOptions } = options;
  return new Cluster(topology.nodes, {
    lazyConnect,
    ...(retryStrategy ? { clusterRetryStrategy: retryStrategy } : {}),
    redisOptions: { ...nodeOptions, username: topology.username, password: topology.password },
  });
}

/**
 * Closes a connection: politely (QUIT, after what it has sent) when Redis answers, at once when
 * it does not — QUIT would wait for Redis to come back, for ever on a connection that retries
 * without end.
 */
export async function closeRedis(redis: RedisConnection): Promise<void> {
  if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

/**
 * What of a Redis error may be logged (describeError), with the cause a cluster keeps aside: a
 * cluster that reaches none of its nodes says only `Failed to refresh slots cache.`, and why
 * (refused, `WRONGPASS`, …) is in the last node's error.
 */
export function describeRedisError(err: unknown): ReturnType<typeof describeError> {
  const described = describeError(err);
  const cause = (err as { lastNodeError?: unknown } | undefined)?.lastNodeError;
  if (!(cause instanceof Error) || described.message === undefined) return described;
  return { ...described, message: `${described.message} Last node error: ${describeError(cause).message ?? cause.name}` };
}

/** While Redis stays down, how often the log says so again. */
const OUTAGE_REMINDER_MS = 60_000;

/**
 * Says in the log when a Redis connection is lost and when it is back: one warning at the first
 * failure, a reminder a minute while it lasts, one line when the connection is ready again.
 * ioredis reports every failed reconnect (several a second at first); the queues and workers on
 * the connection see the same failures and leave them to this (`queueErrors`).
 */
export function reportOutages(redis: RedisConnection, logger: Logger, connection: string): void {
  let downSince: number | undefined;
  let said = 0;
  redis.on('error', (err: Error) => {
    const now = Date.now();
    if (downSince === undefined) {
      downSince = said = now;
      logger.warn({ redis: connection, err: describeRedisError(err) }, 'redis unavailable; reconnecting');
    } else if (now - said >= OUTAGE_REMINDER_MS) {
      said = now;
      logger.warn(
        { redis: connection, down_s: Math.round((now - downSince) / 1000), err: describeRedisError(err) },
        'redis still unavailable; reconnecting',
      );
    }
  });
  redis.on('ready', () => {
    if (downSince === undefined) return;
    logger.info({ redis: connection, down_s: Math.round((Date.now() - downSince) / 1000) }, 'redis available again');
    downSince = undefined;
  });
}

/** Network error codes a lost or unreachable Redis shows up as. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Whether an error only says that Redis cannot be reached (BullMQ's own test, plus the other network codes). */
export function isConnectionFailure(err: Error & { code?: unknown }): boolean {
  return !isNotConnectionError(err) || NETWORK_CODES.has(String(err.code)) || err.name === 'MaxRetriesPerRequestError';
}

/**
 * The `error` listener for a BullMQ queue or worker. They re-emit their connection's failures
 * and, with no listener, BullMQ prints each one, stack and all, to stderr: connection failures
 * are left to `reportOutages`, anything else is logged (without its stack).
 */
export function queueErrors(logger: Logger | undefined, queue: string): (err: Error) => void {
  return (err) => {
    if (!isConnectionFailure(err)) logger?.error({ queue, err: describeError(err) }, 'queue error');
  };
}
