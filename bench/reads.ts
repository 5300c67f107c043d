/**
 * Read benchmark (`npm run bench:reads`): authenticated `GET /v1/user-info/{account_id}`
 * under load (autocannon, 32 connections, 10 s) against an Express hello-world JSON route
 * measured in the same run on the same machine. Each server runs in its own child process;
 * the load generator runs here. Prints req/s, p50/p99, CPU per request of each process and the
 * ratio; exits 1 when a target (≥ 40% of hello-world's req/s, p99 < 25 ms, no errors) is missed.
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
const DURATION_S = knob('BENCH_DURATION_S', 10, 3);
const WARMUP_S = knob('BENCH_WARMUP_S', 2, 1);
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

/** Loads `target` (served by process `pid`): a warm-up, then the measurement, with the CPU each process used per request. */
async function load(target: Target, pid: number | undefined) {
  const url = `http://127.0.0.1:${target.port}${target.path}`;
  // Warm up (JIT, connection pools) before measuring.
  await autocannon({ url, headers: target.headers, connections: CONNECTIONS, duration: WARMUP_S });
  // The served process stands in the Holdfast column, the hello-world's too.
  const cpu = new CpuTally({ holdfast: [pid], databases: [BENCH_DB] });
  const result = await cpu.measure(
    () => autocannon({ url, headers: target.headers, connections: CONNECTIONS, duration: DURATION_S }),
    (r) => r.requests.total,
  );
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu: cpu.perOp(),
  };
}

async function main(): Promise<void> {
  // A fresh database (and queues), as the other benches start from: the same state every run,
  // and a schema this commit's migrations make even when another commit's bench used it last.
  await freshBenchDatabase(BENCH_DB);
  await freshBenchQueues(BENCH_DB, PREFIX);
  const results: Record<string, Awaited<ReturnType<typeof load>>> = {};
  for (const mode of ['hello', 'holdfast']) {
    const { child, target } = await startChild(mode);
    try {
      results[mode] = await load(target, child.pid);
    } finally {
      child.kill('SIGKILL');
    }
  }
  const hello = results.hello;
  const read = results.holdfast;
  const ratio = read.rps / hello.rps;
  const row = (name: string, r: typeof hello) =>
    `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx + r.errors).padStart(7)} ${cpuCells(r.cpu)}`;
  console.log(
    `\nmachine: ${machine()}; ${CONNECTIONS} connections, ${DURATION_S} s each after ${WARMUP_S} s untimed${QUICK ? '; BENCH_QUICK sizes' : ''}\n`,
  );
  console.log(
    `${'route'.padEnd(36)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${CPU_HEAD}`,
  );
  console.log(row('Express hello-world (baseline)', hello));
  console.log(row('GET /v1/user-info/{account_id}', read));
  console.log(`${CPU_NOTE}; on the hello-world's row the Holdfast column is the hello-world's process`);
  const okRatio = ratio >= 0.4;
  const okP99 = read.p99 < 25;
  const okErrors = read.non2xx + read.errors === 0;
  console.log(
    `\nratio ${(ratio * 100).toFixed(1)}% of baseline (target ≥ 40%: ${okRatio ? 'met' : 'MISSED'}); p99 ${read.p99} ms (target < 25 ms: ${okP99 ? 'met' : 'MISSED'}); errors ${okErrors ? 'none' : 'SOME'}`,
  );
  await writeBenchResult({
    bench: 'reads',
    settings: { connections: CONNECTIONS, durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, quick: QUICK },
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
