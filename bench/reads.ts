/**
 * Read benchmark (`npm run bench:reads`): authenticated `GET /v1/user-info/{account_id}`
 * under load (autocannon, 32 connections) against two baselines measured in the same run on
 * the same machine:
 * - an Express hello-world JSON route: what any Express server does at all;
 * - the limit read: the least a correct authenticated read can do with Holdfast's parts —
 *   Express, jose verifying an HS256 token with a cached key, one named prepared statement by
 *   primary key through node-postgres on the bench database, the JSON envelope.
 * Each server runs in its own child process, all up for the whole run; the load generator runs
 * here. They alternate in rounds (hello-world, then the limit read and the profile read in turn,
 * BENCH_ROUNDS times, each a share of the duration), so a machine whose speed drifts during the
 * run weighs on all alike. Prints req/s, p50/p99, CPU per request of each process, the ratios of
 * the totals and each round's, with the rounds' median and spread; says when the spread is too
 * wide to judge. Exits 1 when a target is missed (by the rounds' median: the read ≥ 85% of the
 * limit read's req/s, its p99 ≤ 1.2 × the limit's; no errors), 2 when the spread is too wide.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import express from 'express';
import {
  benchServices,
  CPU_HEAD,
  CPU_NOTE,
  CpuTally,
  cpuCells,
  freshBenchDatabase,
  freshBenchQueues,
  knob,
  machine,
  pgStatements,
  QUICK,
  roundsVerdict,
  writeBenchResult,
} from './support.js';

const CONNECTIONS = knob('BENCH_CONNECTIONS', 32, 32);
const DURATION_S = knob('BENCH_DURATION_S', 15, 3);
const WARMUP_S = knob('BENCH_WARMUP_S', 2, 1);
/** Rounds the duration is split into, the hello-world, the limit read and the read alternating. */
const ROUNDS = Math.max(1, knob('BENCH_ROUNDS', 5, 3));
/** The targets, on the median of the rounds: the read's req/s and p99 against the limit read's. */
const TARGET_OF_LIMIT = 0.85;
const TARGET_P99_OF_LIMIT = 1.2;

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

/**
 * The limit read: the profile row by primary key, authenticated, in the envelope, with nothing
 * else. Its token is one it signs itself (HS256, Holdfast's issuer and audience), verified on
 * every request with the key imported once; `accountPath` is the profile read's path, whose
 * account it reads, scoped to the token's integrator as Holdfast scopes it.
 */
const LIMIT_STATEMENT = 'select id, username, email_address, created_at from account where id = $1 and integrator_id = $2';

async function serveLimit(accountPath: string): Promise<void> {
  const pg = (await import('pg')).default;
  const { SignJWT, jwtVerify } = await import('jose');
  const { createSecretKey, randomBytes } = await import('node:crypto');
  const services = await benchServices(BENCH_DB);
  const pool = new pg.Pool({ connectionString: services.databaseUrl, max: 10 });
  const accountId = accountPath.split('/').at(-1)!;
  const { rows } = await pool.query('select integrator_id from account where id = $1', [accountId]);
  // A KeyObject, imported once: jose then runs Node's HMAC on it, with no key import per request.
  const key = createSecretKey(randomBytes(32));
  const token = await new SignJWT({ scope: 'search_accounts' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('holdfast')
    .setAudience('holdfast-api')
    .setSubject(rows[0].integrator_id)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/limit/:account_id', async (req, res) => {
    const authorization = req.headers.authorization ?? '';
    let integratorId: string;
    try {
      const { payload } = await jwtVerify(authorization.slice('Bearer '.length), key, {
        issuer: 'holdfast',
        audience: 'holdfast-api',
        algorithms: ['HS256'],
      });
      integratorId = String(payload.sub);
    } catch {
      res.status(401).json({ status: 'Fail', message: ['unauthorized'], codes: ['UNAUTHORIZED'], payload: {} });
      return;
    }
    const result = await pool.query({
      name: 'limit-profile',
      text: LIMIT_STATEMENT,
      values: [req.params.account_id, integratorId],
    });
    const row = result.rows[0];
    if (!row) {
      res.status(404).json({ status: 'Fail', message: ['not found'], codes: ['ACCOUNT_GET_ERROR'], payload: {} });
      return;
    }
    res.json({
      status: 'Success',
      message: [],
      codes: [],
      payload: { account_id: row.id, username: row.username, email: row.email_address, created: row.created_at.toISOString() },
    });
  });
  const server = app.listen(0, '127.0.0.1', () => {
    process.stdout.write(
      `${JSON.stringify({ port: (server.address() as AddressInfo).port, path: `/limit/${accountId}`, headers: { authorization: `Bearer ${token}` } })}\n`,
    );
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

function startChild(mode: string, ...args: string[]): Promise<{ child: ChildProcess; target: Target }> {
  return new Promise((resolve, reject) => {
    // BENCH_NODE_FLAGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) go to Holdfast's process only.
    const flags = mode === 'holdfast' && process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
    const child = spawn(process.execPath, ['--import', 'tsx', ...flags, new URL(import.meta.url).pathname, '--serve', mode, ...args], {
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
  const hello = await startChild('hello');
  const holdfast = await startChild('holdfast');
  const servers = { hello, limit: await startChild('limit', holdfast.target.path), holdfast };
  const ratios = { hello: [] as number[], limit: [] as number[], p99: [] as number[] };
  let figures: Record<keyof typeof servers, ReturnType<typeof summary>>;
  let statements: Awaited<ReturnType<typeof pgStatements>>;
  try {
    // Warm up each (JIT, connection pools) before measuring.
    for (const { target } of Object.values(servers)) {
      await autocannon({ url: urlOf(target), headers: target.headers, connections: CONNECTIONS, duration: WARMUP_S });
    }
    // The served process stands in the Holdfast column, the baselines' too.
    const tally = (pid: number | undefined): Tally => ({
      requests: 0,
      seconds: 0,
      latencies: [],
      non2xx: 0,
      errors: 0,
      cpu: new CpuTally({ holdfast: [pid], databases: [BENCH_DB] }),
    });
    const tallies = {
      hello: tally(servers.hello.child.pid),
      limit: tally(servers.limit.child.pid),
      holdfast: tally(servers.holdfast.child.pid),
    };
    const share = Math.max(1, Math.round(DURATION_S / ROUNDS));
    // BENCH_PG_STATEMENTS=1: PostgreSQL's statements over the rounds, the limit read's own left out.
    statements = await pgStatements((await benchServices(BENCH_DB)).databaseUrl, [LIMIT_STATEMENT]);
    await statements?.reset();
    for (let r = 0; r < ROUNDS; r++) {
      const base = await round(servers.hello.target, share, tallies.hello);
      // The limit read and the profile read take turns going first.
      const order = r % 2 === 0 ? (['limit', 'holdfast'] as const) : (['holdfast', 'limit'] as const);
      const got = { limit: 0, holdfast: 0 };
      for (const name of order) got[name] = await round(servers[name].target, share, tallies[name]);
      ratios.hello.push(got.holdfast / base);
      ratios.limit.push(got.holdfast / got.limit);
      ratios.p99.push(tallies.holdfast.latencies.at(-1)!.p99 / tallies.limit.latencies.at(-1)!.p99);
    }
    figures = { hello: summary(tallies.hello), limit: summary(tallies.limit), holdfast: summary(tallies.holdfast) };
    await statements?.report(tallies.holdfast.requests);
    await statements?.close();
  } finally {
    for (const { child } of Object.values(servers)) child.kill('SIGINT');
  }
  const read = figures.holdfast;
  const row = (name: string, r: typeof read) =>
    `${name.padEnd(36)} ${r.rps.toFixed(0).padStart(8)} ${String(r.p50).padStart(8)} ${String(r.p99).padStart(8)} ${String(r.non2xx + r.errors).padStart(7)} ${cpuCells(r.cpu)}`;
  console.log(
    `\nmachine: ${machine()}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${Math.max(1, Math.round(DURATION_S / ROUNDS))} s each, alternating, after ${WARMUP_S} s untimed${QUICK ? '; BENCH_QUICK sizes' : ''}\n`,
  );
  console.log(
    `${'route'.padEnd(36)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'errors'.padStart(7)} ${CPU_HEAD}`,
  );
  console.log(row('Express hello-world (baseline)', figures.hello));
  console.log(row('limit read (baseline)', figures.limit));
  console.log(row('GET /v1/user-info/{account_id}', read));
  console.log(`${CPU_NOTE}; on a baseline's row the Holdfast column is the baseline's process`);
  const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
  const times = (v: number) => `×${v.toFixed(2)}`;
  console.log(`rounds, the read against hello-world: ${ratios.hello.map(pct).join(', ')}`);
  console.log(`rounds, the read against the limit read: ${ratios.limit.map(pct).join(', ')}`);
  console.log(`rounds, the read's p99 against the limit's: ${ratios.p99.map(times).join(', ')}\n`);
  const ofLimit = roundsVerdict('req/s against the limit read', ratios.limit, pct, TARGET_OF_LIMIT, 'higher');
  const p99OfLimit = roundsVerdict("p99 against the limit read's", ratios.p99, times, TARGET_P99_OF_LIMIT, 'lower');
  const okErrors = read.non2xx + read.errors === 0;
  console.log(ofLimit.line);
  console.log(p99OfLimit.line);
  console.log(`errors: ${okErrors ? 'none' : 'SOME'}`);
  const tooWide = ofLimit.verdict === 'too wide' || p99OfLimit.verdict === 'too wide';
  const ok = ofLimit.verdict === 'met' && p99OfLimit.verdict === 'met' && okErrors;
  await writeBenchResult({
    bench: 'reads',
    settings: {
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      warmupSeconds: WARMUP_S,
      rounds: ROUNDS,
      quick: QUICK,
      spreadTooWide: tooWide,
    },
    targetsMet: ok && !tooWide,
    operations: [
      {
        id: 'profile-read',
        name: 'GET /v1/user-info/{account_id}',
        unit: 'req/s',
        throughput: read.rps,
        p50Ms: read.p50,
        p99Ms: read.p99,
        cpuMsPerOp: read.cpu,
        baseline: { name: 'Express hello-world', unit: 'req/s', throughput: figures.hello.rps },
        ratio: read.rps / figures.hello.rps,
      },
      {
        id: 'profile-read-of-limit',
        name: 'GET /v1/user-info/{account_id} against the limit read',
        unit: 'req/s',
        throughput: null,
        p50Ms: null,
        p99Ms: null,
        cpuMsPerOp: null,
        baseline: { name: 'the limit read', unit: 'req/s', throughput: figures.limit.rps },
        ratio: read.rps / figures.limit.rps,
      },
      {
        id: 'limit-read',
        name: 'the limit read (a reference)',
        unit: 'req/s',
        throughput: figures.limit.rps,
        p50Ms: figures.limit.p50,
        p99Ms: figures.limit.p99,
        cpuMsPerOp: figures.limit.cpu,
        baseline: { name: 'Express hello-world', unit: 'req/s', throughput: figures.hello.rps },
        ratio: figures.limit.rps / figures.hello.rps,
        reference: true,
      },
    ],
  });
  // A missed target is 1; a run that could not judge one (and missed none) is 2.
  const missed = ofLimit.verdict === 'missed' || p99OfLimit.verdict === 'missed' || !okErrors;
  console.log(ok ? 'targets met' : missed ? 'TARGET MISSED' : 'NOT JUDGED: the rounds spread too wide (see above)');
  process.exit(missed ? 1 : tooWide ? 2 : 0);
}

const serve = process.argv.indexOf('--serve');
if (serve >= 0) {
  // Exit normally on SIGINT so `node --cpu-prof` can write its profile.
  process.on('SIGINT', () => process.exit(0));
  const mode = process.argv[serve + 1];
  await (mode === 'hello' ? serveHello() : mode === 'limit' ? serveLimit(process.argv[serve + 2]) : serveHoldfast());
} else {
  await main();
}
