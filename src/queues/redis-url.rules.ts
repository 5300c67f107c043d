/**
 * What `REDIS_URL` names: one Redis server (`redis://`, `rediss://`, read by ioredis itself), a
 * Sentinel set watching a primary, or a Redis Cluster given by some of its nodes:
 *   redis+sentinel://[[user]:password@]host1:port1,host2:port2,…/<master name>[?db=N&sentinel_password=…]
 *   redis+cluster://[[user]:password@]host1:port1,host2:port2,…
 * A port left out is 26379 for a sentinel and 6379 for a cluster node. The password is the
 * data servers' (`requirepass`); sentinels that want one of their own take `sentinel_password`.
 * A bad value is refused with a message naming REDIS_URL and never repeating a password.
 */

export interface RedisNode {
  host: string;
  port: number;
}

export type RedisTopology =
  | { kind: 'single'; url: string }
  | {
      kind: 'sentinel';
      sentinels: RedisNode[];
      /** The master name the sentinels monitor. */
      name: string;
      db: number;
      username?: string;
      password?: string;
      sentinelPassword?: string;
    }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string };

export class RedisUrlError extends Error {}

const SINGLE = /^rediss?:/i;
const MULTI = /^(redis\+sentinel|redis\+cluster):\/\/(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/i;
const DEFAULT_PORT = { sentinel: 26379, cluster: 6379 } as const;

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new RedisUrlError(`REDIS_URL has a badly escaped ${what}`);
  }
}

function nodes(list: string, kind: 'sentinel' | 'cluster'): RedisNode[] {
  if (!list) throw new RedisUrlError(`REDIS_URL (redis+${kind}://) must name at least one host:port`);
  return list.split(',').map((item, i) => {
    const m = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?$/i.exec(item.trim());
    const port = m?.[3] === undefined ? DEFAULT_PORT[kind] : Number(m[3]);
    if (!m || port < 1 || port > 65535)
      throw new RedisUrlError(`REDIS_URL (redis+${kind}://) has a bad host:port (entry ${i + 1} of the list)`);
    return { host: m[1] ?? m[2], port };
  });
}

function credentials(userinfo: string | undefined): { username?: string; password?: string } {
  if (userinfo === undefined || userinfo === '') return {};
  const colon = userinfo.indexOf(':');
  const username = decode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user name');
  const password = colon < 0 ? undefined : decode(userinfo.slice(colon + 1), 'password');
  return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

function query(search: string | undefined, allowed: string[], kind: string): Map<string, string> {
  const found = new Map<string, string>();
  if (!search || search === '?') return found;
  for (const pair of search.slice(1).split('&')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    const key = decode(eq < 0 ? pair : pair.slice(0, eq), 'parameter');
    if (!allowed.includes(key))
      throw new RedisUrlError(
        `REDIS_URL (redis+${kind}://) does not take "${key}"${allowed.length ? ` (only ${allowed.join(', ')})` : ' (no parameters)'}`,
      );
    found.set(key, decode(eq < 0 ? '' : pair.slice(eq + 1), key));
  }
  return found;
}

/** Reads `REDIS_URL`; throws RedisUrlError (naming REDIS_URL) when it is none of the three forms. */
export function parseRedisUrl(raw: string): RedisTopology {
  if (SINGLE.test(raw)) return { kind: 'single', url: raw };
  const m = MULTI.exec(raw);
  if (!m) {
    throw new RedisUrlError(
      'REDIS_URL must start with redis://, rediss://, redis+sentinel://host:port,…/<master name> or redis+cluster://host:port,…',
    );
  }
  const kind = m[1].toLowerCase() === 'redis+sentinel' ? 'sentinel' : 'cluster';
  const auth = credentials(m[2]);
  const hosts = nodes(m[3], kind);
  const path = m[4] ?? '';
  if (kind === 'cluster') {
    if (path !== '' && path !== '/') throw new RedisUrlError('REDIS_URL (redis+cluster://) takes no path: a cluster has only database 0');
    query(m[5], [], kind);
    return { kind, nodes: hosts, ...auth };
  }
  const name = decode(path.replace(/^\//, ''), 'master name');
  if (!name || name.includes('/'))
    throw new RedisUrlError('REDIS_URL (redis+sentinel://) must end with /<master name>, the name the sentinels monitor');
  const params = query(m[5], ['db', 'sentinel_password'], kind);
  const db = params.get('db') ?? '0';
  if (!/^\d{1,5}$/.test(db)) throw new RedisUrlError(`REDIS_URL (redis+sentinel://) db must be a whole number (got "${db}")`);
  const sentinelPassword = params.get('sentinel_password');
  return { kind, sentinels: hosts, name, db: Number(db), ...auth, ...(sentinelPassword ? { sentinelPassword } : {}) };
}

/**
 * `REDIS_URL` for people (the start banner): the value of every `password` or
 * `sentinel_password` parameter shown as `***` (up to the next `&`), and then everything from
 * `//` to the last `@` — a user name and password, even one pasted unescaped with a `/`, `?`
 * or `#` in it (such a URL reaches no server, and the banner then says so beside it).
 */
export function describeRedisUrl(raw: string): string {
  return raw.replace(/([?&](?:sentinel_)?password=)[^&]*/gi, '$1***').replace(/^([a-z+]+:\/\/).*@/i, '$1***@');
}
