/**
 * Webhook benchmark (`npm run bench:webhooks`): events written to the outbox reach a local
 * receiver through Holdfast's workers (relay → delivery rows → BullMQ → signed POST), against a
 * baseline measured in the same run: a bare got POST loop with the same concurrency to the same
 * receiver. The two alternate in rounds (the loop's share of N posts, then a burst of the same
 * share of events, BENCH_ROUNDS times). Prints events/s (outbox write to 2xx) and the ratio,
 * each round's and their median; then, at half the baseline's rate, the p50/p99 delay from
 * outbox write to receiver; both with the CPU per event of each process. Exits 1 when a target
 * is missed (≥ 75% of the baseline's rate by the rounds' median; p99 delay < 1 s at half that
 * rate; every event delivered, none twice), 2 when the rounds spread too wide to judge.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  benchChild,
  benchServices,
  CPU_HEAD,
  CPU_NOTE,
  CpuTally,
  cpuCells,
  freshBenchDatabase,
  freshBenchQueues,
  knob,
  machine,
  nextLine,
  percentile,
  QUICK,
  roundsVerdict,
  runBenchWorkers,
  writeBenchResult,
} from './support.js';

const N = knob('BENCH_EVENTS', 5000, 1000);
const C = knob('BENCH_CONCURRENCY', 64, 64);
const PACED_SECONDS = knob('BENCH_PACED_SECONDS', 8, 3);
/** Rounds the baseline's posts and the burst's events are split into, alternating. */
const ROUNDS = Math.max(1, knob('BENCH_ROUNDS', 5, 3));
/** The burst's target: this share of the bare loop's posts per second. */
const TARGET = 0.75;
/** Posts of the bare loop before its first round, not timed (the events get a warm-up too). */
const BASELINE_WARMUP = knob('BENCH_BASELINE_WARMUP', 1000, 200);
const BENCH_DB = 'holdfast_bench';
const PREFIX = '{holdfast-bench-hooks}';

const BODY = JSON.stringify({
  id: 'evt_baseline',
  event_name: 'invoice-completed',
  message: { invoice_id: 'inv_x', state: 'SUCCESS' },
  created: new Date().toISOString(),
  integrator: 'bench',
});

/**
 * Child: a bare got POST loop, C at a time, to the receiver. After a warm-up of its own (JIT,
 * sockets; as the workers get theirs) it prints `{"ready":true}`; then each line `run <n>` on
 * stdin posts n times and prints their posts/s. One process for every round: a fresh one per
 * round ran cold and read low.
 */
async function runBaseline(url: string): Promise<void> {
  const got = (await import('got')).default;
  const posts = async (total: number) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: C }, async () => {
        while (next < total) {
          next++;
          await got.post(url, {
            body: BODY,
            headers: { 'content-type': 'application/json', 'x-bench-baseline': '1' },
            timeout: { request: 10_000 },
            followRedirect: false,
            retry: { limit: 0 },
            throwHttpErrors: false,
          });
        }
      }),
    );
    return total / ((performance.now() - started) / 1000);
  };
  await posts(BASELINE_WARMUP);
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
  const { createInterface } = await import('node:readline');
  for await (const command of createInterface({ input: process.stdin })) {
    const count = Number(/^run (\d+)$/.exec(command.trim())?.[1] ?? 0);
    if (!count) break;
    process.stdout.write(`${JSON.stringify({ postsPerSecond: await posts(count) })}\n`);
  }
  process.exit(0);
}

/** Child: Holdfast's workers (as ROLE=worker runs them) on the bench database. */
function runWorkers(): Promise<void> {
  return runBenchWorkers(BENCH_DB, PREFIX, {
    logLevel: 'warn',
    webhooks: { allowPrivateTargets: true, maxAttempts: 15, retryBaseMs: 1000, disableAfterMs: 1e12 },
  });
}

function child(args: string[]) {
  const flags = args[0] === 'workers' && process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(' ') : [];
  return benchChild(new URL(import.meta.url).pathname, args, flags);
}

async function main(): Promise<void> {
  await freshBenchDatabase(BENCH_DB);
  await freshBenchQueues(BENCH_DB, PREFIX);
  // The receiver: answers 204 at once and notes when each event arrived (and how often).
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      const id = req.headers['webhook-id'];
      if (typeof id === 'string') {
        if (arrivals.has(id)) duplicates++;
        else arrivals.set(id, Date.now());
      }
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  const { ensureDatabase, migrate, openOrm } = await import('../src/db/orm.js');
  const s = await benchServices(BENCH_DB);
  await ensureDatabase(s.databaseUrl);
  const orm = await openOrm(s.databaseUrl, 4);
  await migrate(orm);
  const db = orm.em.fork();
  const integrator = `bench-${Date.now()}`;
  await db.execute('insert into integrator (id, name) values (?, ?)', [integrator, integrator]);
  await db.execute(
    `insert into webhook_endpoint (id, integrator_id, url, events, secret, status) values (?, ?, ?, '{invoice-completed}', 'whsec_YmVuY2gtc2VjcmV0', 'enabled')`,
    [`whe_${integrator}`, integrator, url],
  );
  const written = new Map<string, number>();
  let sequence = 0;
  const write = async (count: number) => {
    const ids = Array.from({ length: count }, () => `evt_${integrator}_${sequence++}`);
    const now = Date.now();
    for (const id of ids) written.set(id, now);
    await orm.em.fork().execute(
      `insert into outbox (id, integrator_id, event_name, message) values ${ids.map(() => `(?, ?, 'invoice-completed', ?::jsonb)`).join(', ')}`,
      ids.flatMap((id) => [id, integrator, JSON.stringify({ invoice_id: id, state: 'SUCCESS' })]),
    );
  };
  const until = async (count: number, ms: number) => {
    const deadline = Date.now() + ms;
    while (arrivals.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  };

  // The bare loop's process starts (and warms up) first, then Holdfast's workers.
  const baseline = await child(['baseline', url]);
  const workers = await child(['workers']);
  try {
    // Warm-up (connections, JIT), not measured.
    await write(200);
    await until(200, 30_000);

    // The receiver and the writer run in this process: it is the load generator.
    const processes = { holdfast: [workers.child.pid], databases: [BENCH_DB] };
    const burstCpu = new CpuTally(processes);
    const pacedCpu = new CpuTally(processes);
    // Rounds: the bare loop's share of posts (a child of its own), then a burst of the same
    // share of events written at once, its clock running from the first write to the last 2xx.
    const share = Math.max(1, Math.round(N / ROUNDS));
    const baselineRounds: number[] = [];
    const burstRounds: number[] = [];
    let burstEvents = 0;
    let burstSeconds = 0;
    let baselinePosts = 0;
    let baselineSeconds = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const answer = nextLine(baseline.child);
      baseline.child.stdin!.write(`run ${share}\n`);
      const line = await answer;
      baselineRounds.push(line.postsPerSecond);
      baselinePosts += share;
      baselineSeconds += share / line.postsPerSecond;
      const burstStart = Date.now();
      const before = arrivals.size;
      await burstCpu.measure(async () => {
        for (let i = 0; i < share; i += 500) await write(Math.min(500, share - i));
        await until(before + share, 120_000);
      }, share);
      const seconds = (Math.max(...arrivals.values()) - burstStart) / 1000;
      burstRounds.push((arrivals.size - before) / seconds);
      burstEvents += arrivals.size - before;
      burstSeconds += seconds;
    }
    const postsPerSecond = baselinePosts / baselineSeconds;
    const burstRate = burstEvents / burstSeconds;
    const roundRatios = burstRounds.map((rate, i) => rate / baselineRounds[i]);

    // Paced: half the baseline's rate (the target rate) for PACED_SECONDS; delay per event.
    const pacedRate = postsPerSecond / 2;
    const pacedFirst = sequence;
    const pacedStart = Date.now();
    let due = 0;
    await pacedCpu.measure(
      async () => {
        while (Date.now() - pacedStart < PACED_SECONDS * 1000) {
          const shouldHave = Math.floor(((Date.now() - pacedStart) / 1000) * pacedRate);
          if (shouldHave > due) {
            await write(shouldHave - due);
            due = shouldHave;
          }
          await new Promise((r) => setTimeout(r, 10));
        }
        await until(sequence, 60_000);
      },
      () => sequence - pacedFirst,
    );
    const delays: number[] = [];
    for (let i = pacedFirst; i < sequence; i++) {
      const id = `evt_${integrator}_${i}`;
      const at = arrivals.get(id);
      if (at !== undefined) delays.push(at - written.get(id)!);
    }
    const missing = sequence - [...written.keys()].filter((id) => arrivals.has(id)).length;
    const ratio = burstRate / postsPerSecond;
    const p99 = percentile(delays, 99);
    const p50 = percentile(delays, 50);
    console.log(
      `\nmachine: ${machine()}; ${N} events, concurrency ${C}; workers in one process, receiver in this one${QUICK ? '; BENCH_QUICK sizes' : ''}\n`,
    );
    console.log(
      `${'measured'.padEnd(54)} ${'per s'.padStart(8)} ${'ratio'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${CPU_HEAD}`,
    );
    console.log(`${`baseline: bare got POST loop, ${C} at a time, same receiver`.padEnd(54)} ${postsPerSecond.toFixed(0).padStart(8)}`);
    console.log(
      `${'webhooks, burst (outbox write → signed delivery → 2xx)'.padEnd(54)} ${burstRate.toFixed(0).padStart(8)} ${`${(ratio * 100).toFixed(1)}%`.padStart(7)} ${''.padStart(7)} ${''.padStart(7)} ${cpuCells(burstCpu.perOp())}`,
    );
    console.log(
      `${`webhooks, paced for ${PACED_SECONDS} s at half the baseline (delay)`.padEnd(54)} ${pacedRate.toFixed(0).padStart(8)} ${''.padStart(7)} ${String(p50).padStart(7)} ${String(p99).padStart(7)} ${cpuCells(pacedCpu.perOp())}`,
    );
    console.log(`${CPU_NOTE} and the receiver`);
    const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
    console.log(`rounds: baseline ${baselineRounds.map((r) => r.toFixed(0)).join(', ')} posts/s; ratio ${roundRatios.map(pct).join(', ')}`);
    const rounds = roundsVerdict('the burst against the bare loop', roundRatios, pct, TARGET, 'higher');
    console.log(rounds.line);
    console.log(`\nevents not delivered: ${missing}; delivered twice: ${duplicates}`);
    const others = p99 < 1000 && missing === 0 && duplicates === 0;
    const ok = rounds.verdict === 'met' && others;
    console.log(
      ok
        ? 'targets met'
        : others && rounds.verdict === 'too wide'
          ? 'NOT JUDGED: the rounds spread too wide (see above)'
          : `TARGET MISSED (≥ ${pct(TARGET)} of baseline by the rounds, p99 delay < 1 s at half its rate, all delivered once)`,
    );
    await writeBenchResult({
      bench: 'webhooks',
      settings: {
        events: N,
        concurrency: C,
        pacedSeconds: PACED_SECONDS,
        rounds: ROUNDS,
        quick: QUICK,
        spreadTooWide: rounds.verdict === 'too wide',
      },
      targetsMet: ok,
      operations: [
        {
          id: 'burst',
          name: 'webhook delivery, burst (outbox write → 2xx)',
          unit: 'events/s',
          throughput: burstRate,
          p50Ms: null,
          p99Ms: null,
          cpuMsPerOp: burstCpu.perOp(),
          baseline: { name: `bare got POST loop, ${C} at a time`, unit: 'posts/s', throughput: postsPerSecond },
          ratio,
        },
        {
          // The rate is set (half the baseline's): its delays and CPU are the figures.
          id: 'paced',
          name: 'webhook delivery, paced (delay outbox write → 2xx)',
          unit: 'events/s',
          throughput: null,
          p50Ms: p50,
          p99Ms: p99,
          cpuMsPerOp: pacedCpu.perOp(),
        },
      ],
    });
    process.exitCode = ok ? 0 : others && rounds.verdict === 'too wide' ? 2 : 1;
  } finally {
    workers.child.kill('SIGINT');
    baseline.child.kill();
    await orm.close();
    server.close();
    server.closeAllConnections();
  }
}

const serve = process.argv.indexOf('--serve');
if (serve >= 0) {
  const mode = process.argv[serve + 1];
  await (mode === 'baseline' ? runBaseline(process.argv[serve + 2]) : runWorkers());
} else {
  await main();
}
