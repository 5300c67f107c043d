import assert from 'node:assert/strict';
import {
  compareBench,
  DEFAULT_BENCHES,
  formatTable,
  judge,
  median,
  judgeRounds,
  parseArgs,
  quantile,
  sidesOfRound,
  spread,
} from '../../bench/compare.rules.js';
import { type BenchResult, RESULT_FORMAT } from '../../bench/result.js';

describe('bench:compare rules (compare.rules)', () => {
  it('median and quantiles interpolate between the sorted rounds; the spread is min–max', () => {
    assert.equal(median([5, 1, 3]), 3);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(quantile([10, 20, 30, 40, 50], 0.25), 20);
    assert.equal(quantile([10, 20, 30, 40, 50], 0.75), 40);
    assert.equal(quantile([1, 2], 0.25), 1.25);
    assert.ok(Number.isNaN(median([])));
    assert.deepEqual(spread([100, 3, 7, 5, 6]), { median: 6, min: 3, max: 100, n: 5 });
  });

  const cases: Array<{
    name: string;
    a: number[];
    b: number[];
    better: 'higher' | 'lower';
    loss: boolean;
    tolerance?: boolean;
    spread?: boolean;
  }> = [
    { name: 'the same figures', a: [100, 100, 100, 100, 100], b: [100, 100, 100, 100, 100], better: 'higher', loss: false },
    // A without spread, so only the 3% rule can say "no loss".
    {
      name: '3% lower exactly: within',
      a: [100, 100, 100, 100, 100],
      b: [97, 97, 97, 97, 97],
      better: 'higher',
      loss: false,
      tolerance: true,
    },
    { name: '3.1% lower, tight A: loss', a: [100, 100, 100, 100, 100], b: [96.9, 96.9, 96.9, 96.9, 96.9], better: 'higher', loss: true },
    { name: 'just under 3% lower', a: [200, 200, 200, 200, 200], b: [194.01, 194, 194.02, 194.01, 194.01], better: 'higher', loss: false },
    {
      name: '10% lower but inside the range of A’s rounds: no loss',
      a: [88, 95, 100, 110, 120],
      b: [85, 88, 90, 92, 95],
      better: 'higher',
      loss: false,
      tolerance: false,
      spread: true,
    },
    {
      name: 'on A’s lowest round: inside',
      a: [90, 95, 100, 110, 120],
      b: [90, 90, 90, 90, 90],
      better: 'higher',
      loss: false,
      spread: true,
    },
    {
      name: 'below A’s lowest round and 3% lower: loss',
      a: [96, 98, 100, 104, 120],
      b: [95, 95, 95, 95, 95],
      better: 'higher',
      loss: true,
      spread: false,
    },
    {
      name: 'B’s own spread does not count, its median does',
      a: [99, 100, 100, 101, 102],
      b: [10, 20, 95, 200, 300],
      better: 'higher',
      loss: true,
    },
    { name: 'better than A: no loss', a: [100, 100, 100, 100, 100], b: [130, 131, 129, 130, 130], better: 'higher', loss: false },
    // Lower is better (latency, CPU per operation).
    {
      name: 'CPU 3% higher exactly: within',
      a: [2, 2, 2, 2, 2],
      b: [2.06, 2.06, 2.06, 2.06, 2.06],
      better: 'lower',
      loss: false,
      tolerance: true,
    },
    { name: 'CPU 5% higher, tight A: loss', a: [2, 2, 2, 2, 2], b: [2.1, 2.1, 2.1, 2.1, 2.1], better: 'lower', loss: true },
    {
      name: 'CPU 10% higher but under A’s highest round',
      a: [1.8, 1.9, 2, 2.1, 2.3],
      b: [2.2, 2.2, 2.2, 2.2, 2.2],
      better: 'lower',
      loss: false,
      spread: true,
    },
    {
      name: 'CPU above A’s highest round and 3% higher: loss',
      a: [1.9, 2, 2, 2, 2.05],
      b: [2.1, 2.1, 2.1, 2.1, 2.1],
      better: 'lower',
      loss: true,
      spread: false,
    },
    { name: 'CPU lower: no loss', a: [2, 2, 2, 2, 2], b: [1, 1, 1, 1, 1], better: 'lower', loss: false },
    { name: 'A at zero, B above: loss', a: [0, 0, 0, 0, 0], b: [0.1, 0.1, 0.1, 0.1, 0.1], better: 'lower', loss: true },
    { name: 'A and B at zero', a: [0, 0, 0, 0, 0], b: [0, 0, 0, 0, 0], better: 'lower', loss: false },
  ];
  for (const c of cases)
    it(`judge: ${c.name}`, () => {
      const j = judge(c.a, c.b, c.better);
      assert.equal(j.loss, c.loss);
      if (c.tolerance !== undefined) assert.equal(j.withinTolerance, c.tolerance);
      if (c.spread !== undefined) assert.equal(j.insideSpread, c.spread);
    });

  it('judge: the difference is B’s median against A’s', () => {
    assert.ok(Math.abs(judge([100, 100, 100], [97, 97, 97], 'higher').difference + 0.03) < 1e-12);
    assert.ok(Number.isNaN(judge([0, 0], [1, 1], 'lower').difference));
  });

  it('says "loss" of identical code rarely, as docs/benchmarks.md says (simulated, normal noise)', () => {
    // A seeded generator (mulberry32), so the figures are the same every run.
    let state = 24;
    const uniform = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
    const lossRate = (noise: number, shift: number) => {
      const trials = 4000;
      let losses = 0;
      for (let i = 0; i < trials; i++) {
        const a = Array.from({ length: 5 }, () => 100 * (1 + noise * normal()));
        const b = Array.from({ length: 5 }, () => 100 * (1 + shift + noise * normal()));
        if (judge(a, b, 'higher').loss) losses++;
      }
      return losses / trials;
    };
    const same10 = lossRate(0.1, 0);
    const same3 = lossRate(0.03, 0);
    const loss10 = lossRate(0.1, -0.1);
    const loss3 = lossRate(0.03, -0.1);
    // Identical code, 10% noise: about one in twelve (the interquartile range would say one in four).
    assert.ok(Math.abs(same10 - 0.08) < 0.02, `${same10}`);
    // 3% noise: about one in twenty-five.
    assert.ok(Math.abs(same3 - 0.04) < 0.015, `${same3}`);
    // A real 10% loss: caught about four times in ten at 10% noise, always at 3%.
    assert.ok(Math.abs(loss10 - 0.43) < 0.05, `${loss10}`);
    assert.ok(loss3 > 0.97, `${loss3}`);
  });

  it('alternates which side runs first, round by round (A B, B A, …)', () => {
    assert.deepEqual([0, 1, 2, 3, 4].map(sidesOfRound), [
      ['A', 'B'],
      ['B', 'A'],
      ['A', 'B'],
      ['B', 'A'],
      ['A', 'B'],
    ]);
  });

  it("judges a run's target by its rounds' median, or says the spread is too wide when the target lies in their middle half", () => {
    // Far from the target, a wide spread still judges.
    assert.equal(judgeRounds([0.5, 0.9, 0.6, 1.4, 0.7], 0.3, 'higher').verdict, 'met');
    assert.equal(judgeRounds([0.5, 0.9, 0.6, 1.4, 0.7], 2, 'higher').verdict, 'missed');
    // The target inside the middle half (q1 0.8, q3 0.9): a quarter of the rounds would turn it.
    const close = judgeRounds([0.7, 0.8, 0.86, 0.9, 1.0], 0.85, 'higher');
    assert.deepEqual([close.verdict, close.median, close.q1, close.q3], ['too wide', 0.86, 0.8, 0.9]);
    // On a quartile is not inside it; latency-like figures judge the other way.
    assert.equal(judgeRounds([0.7, 0.8, 0.86, 0.9, 1.0], 0.9, 'higher').verdict, 'missed');
    assert.equal(judgeRounds([1.0, 1.1, 1.15, 1.3, 2.0], 1.2, 'lower').verdict, 'too wide');
    assert.equal(judgeRounds([1.0, 1.05, 1.1, 1.12, 3.0], 1.2, 'lower').verdict, 'met');
    // Two rounds: the median alone.
    assert.equal(judgeRounds([0.8, 0.9], 0.85, 'higher').verdict, 'met');
  });

  it('parses its arguments', () => {
    assert.deepEqual(parseArgs(['HEAD~1', 'HEAD']), {
      a: 'HEAD~1',
      b: 'HEAD',
      benches: DEFAULT_BENCHES,
      rounds: 5,
      quick: false,
      bEnv: {},
    });
    assert.deepEqual(parseArgs(['main~3', 'abc123', 'reads', '--rounds', '7', '--quick', 'scale']), {
      a: 'main~3',
      b: 'abc123',
      benches: ['reads', 'scale'],
      rounds: 7,
      quick: true,
      bEnv: {},
    });
    assert.deepEqual(
      (parseArgs(['HEAD', 'HEAD', 'escrow', '--b-env', 'BENCH_TRACING=1', '--b-env=OTEL_TRACES_SAMPLER_ARG=a=b']) as { bEnv: unknown })
        .bEnv,
      { BENCH_TRACING: '1', OTEL_TRACES_SAMPLER_ARG: 'a=b' },
      'a variable for B only, its value taken whole',
    );
    assert.match((parseArgs(['a', 'b', '--b-env', 'TRACING']) as { error: string }).error, /--b-env takes NAME=VALUE, not TRACING/);
    assert.match((parseArgs(['a', 'b', '--b-env']) as { error: string }).error, /--b-env takes NAME=VALUE, not nothing/);
    assert.equal((parseArgs(['a', 'b', '--rounds=2']) as { rounds: number }).rounds, 2);
    assert.match((parseArgs(['HEAD']) as { error: string }).error, /two commits/);
    assert.match((parseArgs(['a', 'b', 'writes']) as { error: string }).error, /no bench named writes/);
    assert.match((parseArgs(['a', 'b', '--rounds', '0']) as { error: string }).error, /--rounds/);
    assert.match((parseArgs(['a', 'b', '--fast']) as { error: string }).error, /unknown option --fast/);
  });

  const run = (ratio: number, throughput: number, holdfastCpu: number): BenchResult => ({
    format: RESULT_FORMAT,
    bench: 'escrow',
    machine: 'test',
    settings: {},
    targetsMet: true,
    operations: [
      {
        id: 'lifecycle',
        name: 'escrow lifecycle',
        unit: 'lifecycles/s',
        throughput,
        p50Ms: 20,
        p99Ms: 50,
        cpuMsPerOp: { holdfast: holdfastCpu, postgres: 2, redis: 0.3, loadGenerator: 1 },
        baseline: { name: 'bare job', unit: 'jobs/s', throughput: throughput / ratio },
        ratio,
      },
    ],
  });

  it('judges a bench on its ratio to the same-run baseline, not on its raw throughput', () => {
    // The machine slowed down for B (throughput −20%), its ratio held: no loss.
    const a = [0.075, 0.076, 0.074, 0.075, 0.077].map((r) => run(r, 230, 3));
    const b = [0.075, 0.074, 0.076, 0.075, 0.075].map((r) => run(r, 184, 3));
    const comparison = compareBench(a, b);
    assert.equal(comparison.verdict, 'no loss');
    const rate = comparison.rows.find((row) => row.metric.label.endsWith('lifecycles/s'))!;
    assert.equal(rate.metric.primary, false);
    assert.equal(rate.verdict, 'loss');
    // And a lower ratio is a loss, whatever the throughput did.
    const worse = [0.068, 0.067, 0.069, 0.068, 0.068].map((r) => run(r, 240, 3));
    assert.equal(compareBench(a, worse).verdict, 'loss');
  });

  it('gives no verdict under five rounds, and still shows the figures', () => {
    const comparison = compareBench([run(0.07, 200, 3), run(0.07, 200, 3)], [run(0.05, 150, 3), run(0.05, 150, 3)]);
    assert.equal(comparison.verdict, 'no verdict');
    assert.match(comparison.note!, /2 rounds/);
    assert.ok(comparison.rows.every((row) => row.verdict === null || row.verdict === 'no verdict'));
    const table = formatTable(comparison);
    assert.match(table, /A min–max/);
    assert.match(table, /escrow lifecycle: ratio to baseline \*\s+7\.00%\s+7\.00%–7\.00%\s+5\.00%\s+5\.00%–5\.00%\s+−28\.6%\s+no verdict/);
    assert.match(table, /CPU ms\/op Holdfast/);
    assert.match(table, /CPU ms\/op load generator/);
  });

  it('shows a figure one side lacks, without judging on it', () => {
    const withCpu = Array.from({ length: 5 }, () => run(0.07, 200, 3));
    const without = Array.from({ length: 5 }, () => ({
      ...run(0.07, 200, 3),
      operations: [{ ...run(0.07, 200, 3).operations[0], cpuMsPerOp: null }],
    }));
    const comparison = compareBench(withCpu, without);
    assert.equal(comparison.verdict, 'no loss');
    assert.equal(comparison.rows.find((row) => row.metric.label.includes('CPU ms/op Holdfast'))!.judgement, null);
    assert.match(formatTable(comparison), /CPU ms\/op Holdfast\s+\(not in every run\)/);
  });

  /** A run that also has the reads bench's shape: a reference (the limit read) and the read's ratio to it. */
  const withLimit = (ratio: number, limitRatio: number, limitRps: number): BenchResult => {
    const base = run(ratio, 200, 3);
    return {
      ...base,
      operations: [
        ...base.operations,
        {
          id: 'vs-limit',
          name: 'the lifecycle against the limit',
          unit: 'ratio',
          throughput: null,
          p50Ms: null,
          p99Ms: null,
          cpuMsPerOp: null,
          baseline: { name: 'limit', unit: 'per s', throughput: limitRps },
          ratio: limitRatio,
        },
        {
          id: 'limit',
          name: 'limit',
          unit: 'per s',
          throughput: limitRps,
          p50Ms: 10,
          p99Ms: 20,
          cpuMsPerOp: { holdfast: 1, postgres: 1, redis: 0, loadGenerator: 1 },
          baseline: { name: 'bare job', unit: 'per s', throughput: 1000 },
          ratio: limitRps / 1000,
          reference: true,
        },
      ],
    };
  };

  it('judges an operation only both sides measured; a reference is shown, never judged', () => {
    const older = Array.from({ length: 5 }, () => run(0.07, 200, 3));
    const newer = Array.from({ length: 5 }, () => withLimit(0.07, 0.5, 400));
    // B measures the ratio to the limit and A does not (a commit before it): judged on the rest.
    const added = compareBench(older, newer);
    assert.equal(added.verdict, 'no loss');
    assert.equal(added.rows.find((row) => row.metric.label.startsWith('the lifecycle against the limit'))!.judgement, null);
    // The ratio to the limit is primary where both sides have it: a fall there is a loss.
    assert.equal(
      compareBench(
        newer,
        Array.from({ length: 5 }, () => withLimit(0.07, 0.4, 400)),
      ).verdict,
      'loss',
    );
    // The limit read itself halved (the machine, not Holdfast): shown, not judged.
    const slowMachine = compareBench(
      newer,
      Array.from({ length: 5 }, () => withLimit(0.07, 0.5, 200)),
    );
    assert.equal(slowMachine.verdict, 'no loss');
    assert.ok(slowMachine.rows.some((row) => row.metric.label === 'limit: per s' && row.verdict === null && row.judgement));
    // An operation without latency or CPU figures gets no rows for them.
    const vsLimitRows = slowMachine.rows.map((row) => row.metric.label);
    const at = vsLimitRows.indexOf('the lifecycle against the limit: ratio to baseline');
    assert.ok(at >= 0);
    assert.ok(!vsLimitRows[at + 1].includes('ms'), vsLimitRows.join(' | '));
  });
});
