/**
 * Read benchmark (`npm run bench:reads`): authenticated `GET /v1/user-info/{account_id}`
 * under load (autocannon, 32 connections, 10 s) against an Express hello-world JSON route
 * measured in the same run on the same machine. Each server runs in its own child process, both
 * up for the whole run; the load generator runs here. The two alternate in rounds (hello-world,
 * then the read, BENCH_ROUNDS times, each a share of the duration), so a machine whose speed
 * drifts during the run weighs on both alike: measured one after the other, the ratio of one
 * unchanged commit moved between 10% and 32% from run to run. Prints req/s, p50/p99, CPU per
 * request of each process, the ratio of the totals and of each round; exits 1 when a target
 * (≥ 40% of hello-world's req/s, p99 < 25 ms, no errors) is missed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import {
  CPU_HEAD,
  CPU_NOTE,
  CpuTally,
  cpuCells,
  freshBenchDatabase,
  freshBenchQueues,
  knob,
  machine,
  QUICK,
  writeBenchResult,
} from './support.js';

const CONNECTIONS = knob('BENCH_CONNECTIONS', 32, 32);
const DURATION_S = knob('BENCH_DURATION_S', 15, 3);
const WARMUP_S = knob('BENCH_WARMUP_S', 2, 1);
/** Rounds the duration is split into, the hello-world and the read alternating. */
const ROUNDS = Math.max(1, knob('BENCH_ROUNDS', 5, 3));
const BENCH_DB = 'holdfast_bench';
const PREFIX = '{holdfast-bench}';

async function serveHello(): Promise<void> {
  const app = express();
  app.disable('x-powered-by');
  app.get('/hello', (_req, res) => {
    res.json({ status: 'Success', message: [], codes: [], payload: { hello: 'world' } });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port, path: '/hello' })}\n`);
  });
}

async function serveHoldfast(): Promise<void> {
  const { loadConfig } = await import('../config/index.js');
  const { resolveServices } = await import('../src/runtime/services.js');
  const { ensureDatabase, migrate, openOrm } = await import('../src/db/orm.js');
  const { TokenSigner, createClient } = await import('../src/auth/auth.service.js');
  const { createRedis } = await import('../src/queues/connection.js');
  const { buildApp } = await import('../src/http/app.js');
  const { createLogger } = await import('../src/runtime/logger.js');
  const { CommandBus } = await import('../src/queues/command-bus.js');
  const config = loadConfig();
  const services = await resolveServices({ databaseUrl: undefined, redisUrl: config.redisUrl, databaseName: BENCH_DB, allowPrivate: true });
  await ensureDatabase(services.databaseUrl);
  const orm = await openOrm(services.databaseUrl);
  await migrate(orm);
  // Logging stays on at the default level, as in production, but goes nowhere.
  const logger = createLogger('info', 'holdfast-bench', '/dev/null');
  const redis = createRedis(services.redisUrl, 'producer');
  const signer = await TokenSigner.load(orm.em.fork(), {
    connect: () => createRedis(services.redisUrl, 'worker'),
    publisher: redis,
    prefix: PREFIX,
  });
  const bus = new CommandBus(services.redisUrl, PREFIX, redis);
  const app = await buildApp({ config, orm, redis, signer, logger, bus });
  const server = app.listen(0, '127.0.0.1', async () => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const creds = await createClient(orm.em.fork(), {
      integrator: `bench-${Date.now()}`,
      scopes: ['write_registrations', 'search_accounts'],
    });
    const token = (await (
      await fetch(`${base}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret }),
      })
    ).json()) as { access_token: string };
    const name = `bench${Date.now()}`;
    const reg = (await (
      await fetch(`${base}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token.access_token}` },
        body: JSON.stringify({ username: name, email: { address: `${name}@example.com` }, full_name: 'Bench User' }),
      })
    ).json()) as { payload: { account_id: string } };
    process.stdout.write(
      `${JSON.stringify({
        port: (server.address() as AddressInfo).port,
        path: `/v1/user-info/${reg.payload.account_id}`,
        headers: { authorization: `Bearer ${token.access_token}` },
      })}\n`,
    );
  });
}

interface Target {
  port: number;
  path: string;
  headers?: Record<string, string>;
}

function startChild(mode: string): Promise<{ child: ChildProcess; target: Target }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, '--serve', mode], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buffer = '';
    child.stdout!.on('data', (chunk) => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, target: JSON.parse(line) });
    });
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

/** What the rounds of one server add up to. */
interface Tally {
  requests: number;
  seconds: number;
  latencies: Array<{ p50: number; p99: number; requests: number }>;
  non2xx: number;
  errors: number;
  cpu: CpuTally;
}

/** One server's figures from its rounds: req/s over all of them; p50/p99 the request-weighted mean of the rounds'. */
function summary(t: Tally) {
  const weighted = (key: 'p50' | 'p99') => t.latencies.reduce((sum, l) => sum + l[key] * l.requests, 0) / t.requests;
  return {
    rps: t.requests / t.seconds,
    p50: Math.round(weighted('p50') * 10) / 10,
    p99: Math.round(weighted('p99') * 10) / 10,
    non2xx: t.non2xx,
    errors: t.errors,
    cpu: t.cpu.perOp(),
  };
}

function urlOf(target: Target): string {
  return `http://127.0.0.1:${target.port}${target.path}`;
}

/** Loads `target` for `seconds`, adding its requests, time, latency and CPU to `tally`. */
async function round(target: Target, seconds: number, tally: Tally): Promise<number> {
  const result = await tally.cpu.measure(
    () => autocannon({ url: urlOf(target), headers: target.headers, connections: CONNECTIONS, duration: seconds }),
    (r) => r.requests.total,
  );
  tally.requests += result.requests.total;
  tally.seconds += result.duration;
  tally.latencies.push({ p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total });
  tally.non2xx += result.non2xx;
  tally.errors += result.errors + result.timeouts;
  return result.requests.total / result.duration;
}

async function main(): Promise<void> {
  // A fresh database (and queues), as the other benches start from: the same state every run,
  // and a schema this commit's migrations make even when another commit's bench used it last.
  await freshBenchDatabase(BENCH_DB);
  await freshBenchQueues(BENCH_DB, PREFIX);
  const servers = { hello: await startChild('hello'), holdfast: await startChild('holdfast') };
  const perRound: number[] = [];
  let hello: ReturnType<typeof summary>;
  let read: ReturnType<typeof summary>;
  try {
    // Warm up both (JIT, connection pools) before measuring.
    for (const { target } of Object.values(servers)) {
      await autocannon({ url: urlOf(target), headers: target.headers, connections: CONNECTIONS, duration: WARMUP_S });
    }
    // The served process stands in the Holdfast column, the hello-world's too.
    const tally = (pid: number | undefined): Tally => ({
      requests: 0,
      seconds: 0,
      latencies: [],
      non2xx: 0,
      errors: 0,
      cpu: new CpuTally({ holdfast: [pid], databases: [BENCH_DB] }),
    });
    const tallies = { hello: tally(servers.hello.child.pid), holdfast: tally(servers.holdfast.child.pid) };
    const share = Math.max(1, Math.round(DURATION_S / ROUNDS));
    for (let r = 0; r < ROUNDS; r++) {
      const base = await round(servers.hello.target, share, tallies.hello);
      perRound.push((await round(servers.holdfast.target, share, tallies.holdfast)) / base);
    }
    hello = summary(tallies.hello);
    read = summary(tallies.holdfast);
  } finally {
    for (const { child } of Object.values(servers)) child.kill('SIGKILL');
  }
  const ratio = read.rps / hello.rps;
  const row = (name: string, r: typeof hello) =>
    `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx + r.errors).padStart(7)} ${cpuCells(r.cpu)}`;
  console.log(
    `\nmachine: ${machine()}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${Math.max(1, Math.round(DURATION_S / ROUNDS))} s each, alternating, after ${WARMUP_S} s untimed${QUICK ? '; BENCH_QUICK sizes' : ''}\n`,
  );
  console.log(
    `${'route'.padEnd(36)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${CPU_HEAD}`,
  );
  console.log(row('Express hello-world (baseline)', hello));
  console.log(row('GET /v1/user-info/{account_id}', read));
  console.log(`${CPU_NOTE}; on the hello-world's row the Holdfast column is the hello-world's process`);
  console.log(`rounds: ratio ${perRound.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')}`);
  const okRatio = ratio >= 0.4;
  const okP99 = read.p99 < 25;
  const okErrors = read.non2xx + read.errors === 0;
  console.log(
    `\nratio ${(ratio * 100).toFixed(1)}% of baseline (target ≥ 40%: ${okRatio ? 'met' : 'MISSED'}); p99 ${read.p99} ms (target < 25 ms: ${okP99 ? 'met' : 'MISSED'}); errors ${okErrors ? 'none' : 'SOME'}`,
  );
  await writeBenchResult({
    bench: 'reads',
    settings: { connections: CONNECTIONS, durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, rounds: ROUNDS, quick: QUICK },
    targetsMet: okRatio && okP99 && okErrors,
    operations: [
      {
        id: 'profile-read',
        name: 'GET /v1/user-info/{account_id}',
        unit: 'req/s',
        throughput: read.rps,
        p50Ms: read.p50,
        p99Ms: read.p99,
        cpuMsPerOp: read.cpu,
        baseline: { name: 'Express hello-world', unit: 'req/s', throughput: hello.rps },
        ratio,
      },
    ],
  });
  process.exit(okRatio && okP99 && okErrors ? 0 : 1);
}

const serve = process.argv.indexOf('--serve');
if (serve >= 0) {
  // Exit normally on SIGINT so `node --cpu-prof` can write its profile.
  process.on('SIGINT', () => process.exit(0));
  await (process.argv[serve + 1] === 'hello' ? serveHello() : serveHoldfast());
} else {
  await main();
}
