/**
 * Finds PostgreSQL and Redis, or starts private instances of them under `.data/`.
 * Order: an explicit DATABASE_URL / REDIS_URL wins; else whatever answers on the standard
 * port of 127.0.0.1; else a private server started from the binaries on PATH (or Debian's
 * /usr/lib/postgresql/<version>/bin); else one clear sentence on what to install.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, chownSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { ServiceUnavailableError } from '../db/postgres-failures.js';

export interface ResolvedServices {
  databaseUrl: string;
  redisUrl: string;
  /** Which services this process started (and so stops on shutdown). */
  started: Array<'postgresql' | 'redis'>;
  stop(): void;
}

const PRIVATE_PG_PORT = 54329;
const DEBIAN_SOCKET = '/var/run/postgresql/.s.PGSQL.5432';
const PRIVATE_REDIS_PORT = 63799;

/** True when something accepts a TCP connection on host:port within the timeout. */
export function portAnswers(port: number, host = '127.0.0.1', timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function findBinary(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), ...extraDirs];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

function debianPostgresBinDirs(): string[] {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => path.join(root, version, 'bin'));
}

async function waitForPort(port: number, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await portAnswers(port)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new ServiceUnavailableError(`the private ${what} did not start listening on port ${port} within ${timeoutMs / 1000} s`);
}

/** PostgreSQL refuses to run as root: run its tools as the `postgres` system user then. */
function asPostgresUser(bin: string, args: string[]): { cmd: string; args: string[] } {
  if (process.getuid?.() !== 0) return { cmd: bin, args };
  return { cmd: 'runuser', args: ['-u', 'postgres', '--', bin, ...args] };
}

/**
 * Where the private PostgreSQL keeps its files: `.data/`, unless we run as root and the
 * `postgres` user cannot reach that folder (a project under a private 0700 directory); then a
 * folder of its own under /var/tmp, named after the project path.
 */
function postgresDataRoot(dataRoot: string): string {
  if (process.getuid?.() !== 0) return dataRoot;
  mkdirSync(dataRoot, { recursive: true });
  const reachable = spawnSync('runuser', ['-u', 'postgres', '--', 'test', '-x', dataRoot]).status === 0;
  if (reachable) return dataRoot;
  const hash = createHash('sha256').update(path.resolve(dataRoot)).digest('hex').slice(0, 12);
  const root = path.join('/var/tmp', `holdfast-${hash}`);
  mkdirSync(root, { recursive: true, mode: 0o755 });
  return root;
}

async function startPrivatePostgres(dataRoot: string): Promise<() => void> {
  const extra = debianPostgresBinDirs();
  const initdb = findBinary('initdb', extra);
  const pgCtl = findBinary('pg_ctl', extra);
  if (!initdb || !pgCtl) {
    throw new ServiceUnavailableError(
      'PostgreSQL is not answering on 127.0.0.1:5432 and no PostgreSQL server binaries (initdb, pg_ctl) were found: ' +
        'install PostgreSQL 15 or newer (for example `apt-get install postgresql`) or set DATABASE_URL.',
    );
  }
  const pgRoot = postgresDataRoot(dataRoot);
  const dir = path.join(pgRoot, 'postgresql');
  const socketDir = path.join(pgRoot, 'postgresql-run');
  mkdirSync(dir, { recursive: true });
  mkdirSync(socketDir, { recursive: true });
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chownSync(socketDir, uid, gid);
  }
  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    const init = asPostgresUser(initdb, ['-D', dir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions']);
    const result = spawnSync(init.cmd, init.args, { stdio: 'pipe' });
    if (result.status !== 0) throw new ServiceUnavailableError(`initdb failed: ${result.stderr.toString().trim().split('\n').pop()}`);
  }
  const opts = `-p ${PRIVATE_PG_PORT} -k ${socketDir} -c listen_addresses=127.0.0.1`;
  const logFile = path.join(socketDir, 'postgresql.log');
  const start = asPostgresUser(pgCtl, ['-D', dir, '-o', opts, '-l', logFile, '-w', 'start']);
  const result = spawnSync(start.cmd, start.args, { stdio: 'pipe' });
  if (result.status !== 0) throw new ServiceUnavailableError(`pg_ctl could not start the private PostgreSQL (see ${logFile})`);
  await waitForPort(PRIVATE_PG_PORT, 'PostgreSQL');
  return () => {
    const stop = asPostgresUser(pgCtl, ['-D', dir, '-m', 'fast', '-w', 'stop']);
    spawnSync(stop.cmd, stop.args, { stdio: 'ignore' });
  };
}

async function startPrivateRedis(dataRoot: string): Promise<() => void> {
  const server = findBinary('redis-server');
  if (!server) {
    throw new ServiceUnavailableError(
      'Redis is not answering on 127.0.0.1:6379 and no redis-server binary was found: ' +
        'install Redis 6.2 or newer (for example `apt-get install redis-server`) or set REDIS_URL.',
    );
  }
  const dir = path.join(dataRoot, 'redis');
  mkdirSync(dir, { recursive: true });
  const pidFile = path.join(dir, 'redis.pid');
  // noeviction: BullMQ must never lose keys to memory pressure.
  const conf = [
    `port ${PRIVATE_REDIS_PORT}`,
    'bind 127.0.0.1',
    'daemonize yes',
    `pidfile ${pidFile}`,
    `dir ${dir}`,
    'save ""',
    'appendonly no',
    'maxmemory-policy noeviction',
    `logfile ${path.join(dataRoot, 'redis.log')}`,
  ].join('\n');
  const confFile = path.join(dir, 'redis.conf');
  writeFileSync(confFile, `${conf}\n`);
  const result = spawnSync(server, [confFile], { stdio: 'pipe' });
  if (result.status !== 0) throw new ServiceUnavailableError('redis-server could not start the private Redis');
  await waitForPort(PRIVATE_REDIS_PORT, 'Redis');
  return () => {
    const cli = findBinary('redis-cli');
    if (cli) spawnSync(cli, ['-p', String(PRIVATE_REDIS_PORT), 'shutdown', 'nosave'], { stdio: 'ignore' });
  };
}

/**
 * Resolves the PostgreSQL and Redis URLs for this process, starting private instances only
 * when allowed (ROLE=all and the test suite) and nothing else is available.
 */
export async function resolveServices(opts: {
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  databaseName: string;
  allowPrivate: boolean;
  dataRoot?: string;
}): Promise<ResolvedServices> {
  const dataRoot = opts.dataRoot ?? path.resolve('.data');
  const stops: Array<() => void> = [];
  const started: ResolvedServices['started'] = [];
  let databaseUrl = opts.databaseUrl;
  let redisUrl = opts.redisUrl;
  try {
    if (!databaseUrl) {
      if (await portAnswers(5432)) {
        // Same server: its Unix socket (when it has the standard one) is cheaper than TCP.
        databaseUrl = existsSync(DEBIAN_SOCKET)
          ? `postgres://postgres@${encodeURIComponent(path.dirname(DEBIAN_SOCKET))}:5432/${opts.databaseName}`
          : `postgres://postgres@127.0.0.1:5432/${opts.databaseName}`;
      } else if (await portAnswers(PRIVATE_PG_PORT)) {
        databaseUrl = `postgres://postgres@127.0.0.1:${PRIVATE_PG_PORT}/${opts.databaseName}`;
      } else if (opts.allowPrivate) {
        stops.push(await startPrivatePostgres(dataRoot));
        started.push('postgresql');
        databaseUrl = `postgres://postgres@127.0.0.1:${PRIVATE_PG_PORT}/${opts.databaseName}`;
      } else {
        throw new ServiceUnavailableError('DATABASE_URL is not set and nothing answers on 127.0.0.1:5432: set DATABASE_URL.');
      }
    }
    if (!redisUrl) {
      if (await portAnswers(6379)) {
        redisUrl = 'redis://127.0.0.1:6379';
      } else if (await portAnswers(PRIVATE_REDIS_PORT)) {
        redisUrl = `redis://127.0.0.1:${PRIVATE_REDIS_PORT}`;
      } else if (opts.allowPrivate) {
        stops.push(await startPrivateRedis(dataRoot));
        started.push('redis');
        redisUrl = `redis://127.0.0.1:${PRIVATE_REDIS_PORT}`;
      } else {
        throw new ServiceUnavailableError('REDIS_URL is not set and nothing answers on 127.0.0.1:6379: set REDIS_URL.');
      }
    }
  } catch (err) {
    for (const stop of stops.reverse()) stop();
    throw err;
  }
  return {
    databaseUrl,
    redisUrl,
    started,
    stop: () => {
      for (const stop of stops.reverse()) stop();
    },
  };
}
