/** Shared by the benchmarks: the services they run on, their child processes, percentiles. */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';

/** PostgreSQL and Redis found as `npm start` finds them, on the benchmark's own database. */
export async function benchServices(databaseName: string) {
  const { loadConfig } = await import('../config/index.js');
  const { resolveServices } = await import('../src/runtime/services.js');
  const config = loadConfig();
  return resolveServices({ databaseUrl: undefined, redisUrl: config.redisUrl, databaseName, allowPrivate: true });
}

/**
 * Drops the benchmark's database so each run starts from the same empty state (repeatable
 * figures; and PostgreSQL here may run without autovacuum, where the dead rows of earlier runs
 * would slow later ones). The children create and migrate it again.
 */
export async function freshBenchDatabase(databaseName: string): Promise<void> {
  const pg = (await import('pg')).default;
  const s = await benchServices(databaseName);
  const url = new URL(s.databaseUrl);
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${databaseName}" with (force)`);
  } finally {
    await admin.end();
  }
}

/**
 * Empties the benchmark's queues (jobs, finished jobs, event streams of earlier runs), so each
 * run also starts from the same Redis state.
 */
export async function freshBenchQueues(databaseName: string, prefix: string): Promise<void> {
  const { Queue } = await import('bullmq');
  const { createRedis } = await import('../src/queues/connection.js');
  const { QueueName } = await import('../src/queues/names.js');
  const s = await benchServices(databaseName);
  const connection = createRedis(s.redisUrl, 'producer');
  try {
    for (const name of Object.values(QueueName)) {
      const queue = new Queue(name, { connection, prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
  } finally {
    await connection.quit().catch(() => connection.disconnect());
  }
}

/**
 * ANALYZE on a bench database, standing in for autovacuum (this machine's PostgreSQL runs
 * without it): a deployment's tables have statistics, and a plan PostgreSQL made while they
 * were empty (a seq scan) is made again once they do. `vacuum`: VACUUM (ANALYZE), which also
 * removes dead rows.
 */
export async function analyze(databaseUrl: string, vacuum = false): Promise<void> {
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(vacuum ? 'vacuum (analyze)' : 'analyze');
  } finally {
    await client.end();
  }
}

/**
 * Starts `script --serve ...args` as a child process and resolves with the first JSON line it
 * prints (its address, credentials or result). `flags` go to node before the script.
 */
export function benchChild(script: string, args: string[], flags: string[] = []): Promise<{ child: ChildProcess; line: any }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [...flags, '--import', 'tsx', script, '--serve', ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buffer = '';
    c.stdout!.on('data', (chunk) => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child: c, line: JSON.parse(line) });
    });
    c.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/**
 * Child mode: Holdfast's workers as `ROLE=worker` runs them (relay included), on the bench
 * database and queue prefix; prints `{"ready":true}` once started.
 */
export async function runBenchWorkers(
  databaseName: string,
  prefix: string,
  options: { logLevel: 'info' | 'warn'; webhooks?: Record<string, unknown> },
): Promise<void> {
  const { openOrm } = await import('../src/db/orm.js');
  const { createLogger } = await import('../src/runtime/logger.js');
  const { startWorkers } = await import('../workers/index.js');
  const s = await benchServices(databaseName);
  const orm = await openOrm(s.databaseUrl, 20);
  await startWorkers({
    orm,
    redisUrl: s.redisUrl,
    queuePrefix: prefix,
    logger: createLogger(options.logLevel, 'holdfast-bench-worker', '/dev/null'),
    databaseUrl: s.databaseUrl,
    commandSweepAfterMs: 30_000,
    webhooks: options.webhooks,
  });
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  process.on('SIGINT', () => process.exit(0));
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** CPU time (user + system, ms) used so far by each group of processes, read from /proc (Linux). */
export type CpuSample = Map<string, number>;

/**
 * A CPU sample of the processes a benchmark spreads over: `groups` names processes by pid
 * (the service under test, the load generator); PostgreSQL and Redis processes are found by
 * their command name. Empty where there is no /proc.
 */
export async function cpuSample(groups: Record<string, number | undefined>): Promise<CpuSample> {
  const { readdir, readFile } = await import('node:fs/promises');
  const sample: CpuSample = new Map();
  const ticksMs = 10; // USER_HZ is 100 on Linux
  const byPid = new Map(Object.entries(groups).flatMap(([name, pid]) => (pid ? [[pid, name] as const] : [])));
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((p) => /^\d+$/.test(p));
  } catch {
    return sample;
  }
  await Promise.all(
    pids.map(async (pid) => {
      try {
        const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
        const close = stat.lastIndexOf(')');
        const comm = stat.slice(stat.indexOf('(') + 1, close);
        const name = byPid.get(Number(pid)) ?? (comm === 'postgres' ? 'PostgreSQL' : comm === 'redis-server' ? 'Redis' : undefined);
        if (!name) return;
        const fields = stat.slice(close + 2).split(' ');
        const used = (Number(fields[11]) + Number(fields[12])) * ticksMs; // utime, stime
        sample.set(name, (sample.get(name) ?? 0) + used);
      } catch {
        // The process ended meanwhile.
      }
    }),
  );
  return sample;
}

/** CPU ms per unit of work between two samples, per group (processes that ended in between are not counted). */
export function cpuPerUnit(before: CpuSample, after: CpuSample, units: number): Array<[string, number]> {
  return [...after].map(([name, ms]) => [name, (ms - (before.get(name) ?? 0)) / units] as [string, number]);
}

/**
 * A JSON client for a bench's Holdfast. The load generator shares the machine: plain
 * http.request on kept-alive sockets costs it a fraction of what fetch does, leaving the CPU to
 * the service under test. Answers of 400 and up count in `failures` (the first three printed
 * when `report`).
 */
export class BenchApi {
  failures = 0;
  readonly agent: http.Agent;

  constructor(
    private readonly base: string,
    maxSockets: number,
    private readonly report = false,
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  readonly call = (method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = http.request(
        `${this.base}${path}`,
        {
          method,
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(payload ? { 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => {
            text += d;
          });
          res.on('end', () => {
            if ((res.statusCode ?? 500) >= 400) {
              this.failures++;
              if (this.report && this.failures <= 3) console.error(`${method} ${path} → ${res.statusCode} ${text.slice(0, 300)}`);
            }
            resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
}
