/**
 * Redis connections for BullMQ. Workers (and subscribers) block on Redis, so their
 * connections must retry forever (`maxRetriesPerRequest: null`); producers fail fast instead,
 * so an HTTP request does not hang long on a Redis outage. Redis must run with
 * `maxmemory-policy noeviction`: an evicted queue key is a lost job.
 */
import { Redis, type RedisOptions } from 'ioredis';

export type RedisRole = 'worker' | 'producer';

/** A new ioredis connection for the given role. */
export function createRedis(url: string, role: RedisRole, extra: RedisOptions = {}): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: role === 'worker' ? null : 2,
    connectTimeout: 5000,
    lazyConnect: false,
    ...extra,
  });
}
