/** Shared by the benchmarks: the services they run on, their child processes, percentiles, CPU per operation, the result file. */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { type Better, judgeRounds } from './compare.rules.js';
import { type BenchResult, type CpuPerOp, RESULT_FORMAT } from './result.js';

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
export function benchChild(
  script: string,
  args: string[],
  flags: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ child: ChildProcess; line: any }> {
  return new Promise((resolve, reject) => {
    // tsx first: a flag may `--import` a TypeScript file (the tracing hook).
    const c = spawn(process.execPath, ['--import', 'tsx', ...flags, script, '--serve', ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env,
    });
    let buffer = '';
    c.stdout!.on('data', (chunk) => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child: c, line: JSON.parse(line) });
    });
    c.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/** The next JSON line a bench child prints after this call. */
export function nextLine(c: ChildProcess): Promise<any> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: Buffer) => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{') && l.endsWith('}'));
      if (!line) return;
      c.stdout!.off('data', onData);
      c.off('exit', onExit);
      resolve(JSON.parse(line));
    };
    const onExit = (code: number | null) => reject(new Error(`bench child exited with ${code}`));
    c.stdout!.on('data', onData);
    c.once('exit', onExit);
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

/** The process groups CPU is counted for, as in the result file. */
export type CpuGroup = keyof CpuPerOp;

/** Which processes a bench's CPU figures count. */
export interface CpuProcesses {
  /** Holdfast's processes (web, workers), by pid. */
  holdfast: Array<number | undefined>;
  /** The load generator's processes by pid: the bench's own unless given. */
  loadGenerator?: Array<number | undefined>;
  /**
   * A PostgreSQL backend counts only when it serves one of these databases, so other work on
   * a shared server stays out; the server's own processes (postmaster, WAL writer,
   * checkpointer…) always count, as they work for every database.
   */
  databases: string[];
}

/** CPU time (user + system, ms) used so far, per pid, with the group it counts in. */
export type CpuSample = Map<number, { group: CpuGroup; ms: number }>;

/** `postgres: [cluster: ]user database host(port)|[local] state`: a backend's process title. */
const BACKEND_TITLE = /^postgres: (?:.*?: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])/;

/**
 * A CPU sample of the processes a benchmark spreads over, read from /proc (Linux): Holdfast
 * and the load generator by pid; PostgreSQL and Redis by command name (Redis whole: it cannot
 * tell one client's work from another's). Empty where there is no /proc.
 */
export async function cpuSample(processes: CpuProcesses): Promise<CpuSample> {
  const { readdir, readFile } = await import('node:fs/promises');
  const sample: CpuSample = new Map();
  const ticksMs = 10; // USER_HZ is 100 on Linux
  const byPid = new Map<number, CpuGroup>();
  for (const pid of processes.holdfast) if (pid) byPid.set(pid, 'holdfast');
  for (const pid of processes.loadGenerator ?? [process.pid]) if (pid) byPid.set(pid, 'loadGenerator');
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
        let group = byPid.get(Number(pid));
        if (!group && comm === 'postgres') {
          const title = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
          const database = BACKEND_TITLE.exec(title)?.[1];
          if (database === undefined || processes.databases.includes(database)) group = 'postgres';
        } else if (!group && comm === 'redis-server') group = 'redis';
        if (!group) return;
        const fields = stat.slice(close + 2).split(' ');
        sample.set(Number(pid), { group, ms: (Number(fields[11]) + Number(fields[12])) * ticksMs }); // utime, stime
      } catch {
        // The process ended meanwhile.
      }
    }),
  );
  return sample;
}

/**
 * CPU per operation of each process group over the windows `measure` ran: per pid, so a
 * process that starts inside a window counts whole and one that ends inside it counts only
 * until its last sample (never below zero).
 */
export class CpuTally {
  private readonly used: CpuPerOp = { holdfast: 0, postgres: 0, redis: 0, loadGenerator: 0 };
  private ops = 0;
  private available = true;

  constructor(private readonly processes: CpuProcesses) {}

  /** Runs `work`, counting the CPU used meanwhile and `ops` operations (a number, or read from work's result). */
  async measure<T>(work: () => Promise<T>, ops: number | ((result: T) => number)): Promise<T> {
    const before = await cpuSample(this.processes);
    const result = await work();
    const after = await cpuSample(this.processes);
    if (after.size === 0) this.available = false;
    for (const [pid, { group, ms }] of after) this.used[group] += ms - (before.get(pid)?.ms ?? 0);
    this.ops += typeof ops === 'number' ? ops : ops(result);
    return result;
  }

  /** CPU ms per operation of each group; null without /proc or before any operation. */
  perOp(): CpuPerOp | null {
    if (!this.available || this.ops === 0) return null;
    const per = (ms: number) => ms / this.ops;
    return {
      holdfast: per(this.used.holdfast),
      postgres: per(this.used.postgres),
      redis: per(this.used.redis),
      loadGenerator: per(this.used.loadGenerator),
    };
  }
}

/** The heading of the CPU columns every bench's table ends with; `cpuCells` fills them. */
export const CPU_HEAD = `${'CPU ms/op: Holdfast'.padStart(20)} ${'PostgreSQL'.padStart(10)} ${'Redis'.padStart(6)} ${'load gen'.padStart(8)}`;
/** What the CPU columns hold, printed under every table. */
export const CPU_NOTE =
  "CPU ms per operation from /proc: Holdfast (web + workers), PostgreSQL (the bench database's backends + the server's own processes), Redis (the whole server), load gen (this process)";

export function cpuCells(cpu: CpuPerOp | null | undefined): string {
  const cell = (ms: number | undefined, width: number) => (ms === undefined ? '–' : ms.toFixed(2)).padStart(width);
  return `${cell(cpu?.holdfast, 20)} ${cell(cpu?.postgres, 10)} ${cell(cpu?.redis, 6)} ${cell(cpu?.loadGenerator, 8)}`;
}

/** `BENCH_QUICK=1` (bench:compare --quick): smaller default sizes, to try the tooling, not to judge. */
export const QUICK = process.env.BENCH_QUICK === '1';

/** A numeric knob: the environment variable when set, else the full-size or the BENCH_QUICK default. */
export function knob(name: string, full: number, quick: number): number {
  const value = process.env[name];
  return value === undefined || value === '' ? (QUICK ? quick : full) : Number(value);
}

export function machine(): string {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`;
}

/**
 * Writes the run's figures to the file `BENCH_RESULT_FILE` names, when it does, for
 * `bench:compare` (the format: bench/result.ts).
 */
export async function writeBenchResult(result: Omit<BenchResult, 'format' | 'machine'>): Promise<void> {
  const file = process.env.BENCH_RESULT_FILE;
  if (!file) return;
  const { writeFile } = await import('node:fs/promises');
  const full: BenchResult = { format: RESULT_FORMAT, machine: machine(), ...result };
  await writeFile(file, `${JSON.stringify(full, null, 2)}\n`);
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

/**
 * `BENCH_TRACING=1`: Holdfast's processes in a bench start as `npm start` does with tracing on —
 * through the `--import` hook, with `OTEL_EXPORTER_OTLP_ENDPOINT` naming a local collector that
 * accepts every export and counts it (bench/otlp-sink.ts, a process of its own, whose CPU counts
 * in no group: a deployment's collector runs elsewhere). The other `OTEL_*` variables pass
 * through (`OTEL_TRACES_SAMPLER`, `OTEL_EXPORTER_OTLP_PROTOCOL`…); unset, the SDK's defaults
 * hold: every trace sampled, sent as `http/protobuf`.
 */
export interface BenchTracing {
  /** Node flags and environment for a Holdfast child. */
  flags: string[];
  env: NodeJS.ProcessEnv;
  /** For the result file's settings: `off`, or the sampler and protocol used. */
  setting: string;
  /** What the collector received so far (one line), or undefined when tracing is off. */
  received(): Promise<string | undefined>;
  stop(): void;
}

export async function benchTracing(): Promise<BenchTracing> {
  const off: BenchTracing = {
    flags: [],
    env: withoutOtlpEndpoint(process.env),
    setting: 'off',
    received: async () => undefined,
    stop: () => {},
  };
  if (process.env.BENCH_TRACING !== '1') return off;
  const sink = await benchChild(new URL('./otlp-sink.ts', import.meta.url).pathname, ['sink']);
  const protocol = process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf';
  const sampler = process.env.OTEL_TRACES_SAMPLER
    ? `${process.env.OTEL_TRACES_SAMPLER}${process.env.OTEL_TRACES_SAMPLER_ARG ? `:${process.env.OTEL_TRACES_SAMPLER_ARG}` : ''}`
    : 'parentbased_always_on';
  return {
    flags: ['--import', './src/runtime/tracing-register.ts'],
    env: {
      ...withoutOtlpEndpoint(process.env),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.line.port}`,
      OTEL_SERVICE_NAME: 'holdfast-bench',
    },
    setting: `on (${sampler}, ${protocol})`,
    received: async () => {
      const res = await fetch(`http://127.0.0.1:${sink.line.port}/received`);
      const r = (await res.json()) as { exports: number; bytes: number; spans: number | null; byName: Record<string, number> };
      const top = Object.entries(r.byName)
        .sort((x, y) => y[1] - x[1])
        .slice(0, 12)
        .map(([name, n]) => `\n  ${String(n).padStart(8)}  ${name}`)
        .join('');
      return `collector received ${r.exports} exports, ${(r.bytes / 1e6).toFixed(1)} MB${r.spans === null ? '' : `, ${r.spans} spans; the most frequent:${top}`}`;
    },
    stop: () => sink.child.kill(),
  };
}

/** The environment without an OTLP endpoint: a bench's tracing is only what BENCH_TRACING says. */
function withoutOtlpEndpoint(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _a, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: _b, ...rest } = env;
  return rest;
}

/**
 * A target judged on a run's rounds (`judgeRounds`: by their median, or too wide to tell when
 * the target lies in their middle half), with a line saying so: `what` names the figure.
 */
export function roundsVerdict(what: string, values: number[], show: (value: number) => string, target: number, better: Better) {
  const j = judgeRounds(values, target, better);
  const targetText = `${better === 'higher' ? '≥' : '≤'} ${show(target)}`;
  const line =
    j.verdict === 'too wide'
      ? `${what}: SPREAD TOO WIDE TO JUDGE against the target ${targetText}: the rounds' middle half, ${show(j.q1)}–${show(j.q3)}, holds it (median ${show(j.median)}); run again with the machine quieter, or more rounds`
      : `${what}: median ${show(j.median)} of the rounds (${show(j.min)}–${show(j.max)}), target ${targetText}: ${j.verdict === 'met' ? 'met' : 'MISSED'}`;
  return { ...j, line };
}

/**
 * `BENCH_PG_STATEMENTS=1`: PostgreSQL's own account of a bench's measured window, from
 * `pg_stat_statements` (the server must preload it: `shared_preload_libraries =
 * 'pg_stat_statements'` and a restart). `reset` before the window, `report` after it prints the
 * statements of the bench's database by total execution time, per operation measured.
 */
export async function pgStatements(databaseUrl: string, exclude: string[] = []) {
  if (process.env.BENCH_PG_STATEMENTS !== '1') return undefined;
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_stat_statements');
    await client.query('select 1 from pg_stat_statements limit 1');
  } catch (e) {
    await client.end();
    console.log(
      `BENCH_PG_STATEMENTS: pg_stat_statements is not loaded by this PostgreSQL (${(e as Error).message}); set shared_preload_libraries = 'pg_stat_statements' and restart it`,
    );
    return undefined;
  }
  return {
    reset: async () => {
      await client.query('select pg_stat_statements_reset()');
    },
    /**
     * Prints the top `n` statements of the bench's database, leaving out those containing one of
     * `exclude` (a baseline's own); `ops` operations ran in the window.
     */
    report: async (ops: number, n = 12) => {
      const ours = `dbid = (select oid from pg_database where datname = current_database())
          and not (query like any ($1::text[])) and query not like '%pg_stat_statements%'`;
      const patterns = exclude.map((e) => `%${e}%`);
      const { rows } = await client.query(
        `select calls, total_exec_time, rows, regexp_replace(query, '\\s+', ' ', 'g') as query
           from pg_stat_statements where ${ours} order by total_exec_time desc limit $2`,
        [patterns, n],
      );
      const total = (
        await client.query(`select sum(total_exec_time) as ms, sum(calls) as calls from pg_stat_statements where ${ours}`, [patterns])
      ).rows[0];
      console.log(
        `\npg_stat_statements: ${(Number(total.calls) / ops).toFixed(1)} statements and ${(Number(total.ms) / ops).toFixed(3)} ms of execution per operation; the top ${n} by total time:`,
      );
      console.log(`${'calls/op'.padStart(9)} ${'ms/op'.padStart(7)} ${'ms/call'.padStart(8)} ${'rows/call'.padStart(9)}  statement`);
      for (const r of rows)
        console.log(
          `${(r.calls / ops).toFixed(2).padStart(9)} ${(r.total_exec_time / ops).toFixed(3).padStart(7)} ${(r.total_exec_time / r.calls).toFixed(3).padStart(8)} ${(r.rows / r.calls).toFixed(1).padStart(9)}  ${String(r.query).slice(0, 160)}`,
        );
    },
    close: () => client.end(),
  };
}
