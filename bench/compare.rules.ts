/**
 * The pure part of `npm run bench:compare` (bench/compare.ts runs the commits): its arguments,
 * the order of the runs, the median and spread of each side's rounds, the "no loss" rule and
 * the table. Tested in test/unit/bench-compare.rules.test.ts.
 */
import type { BenchResult, CpuPerOp, OperationResult } from './result.js';

export const BENCHES = ['escrow', 'reads', 'webhooks', 'scale'] as const;
export type BenchName = (typeof BENCHES)[number];
export const DEFAULT_BENCHES: BenchName[] = ['escrow', 'reads'];

/** Result formats (bench/result.ts) this reads. */
export const READABLE_FORMATS = [1];

/**
 * Rounds each side needs before a verdict: with fewer, one run hit by other work on the machine
 * moves the median and the quartiles too far. Fewer may be asked for (to try the tooling); the
 * table then says "no verdict".
 */
export const MIN_ROUNDS = 5;

/** B's median may be this much worse than A's and still be "no loss". */
export const TOLERANCE = 0.03;

export interface CompareOptions {
  a: string;
  b: string;
  benches: BenchName[];
  rounds: number;
  /** BENCH_QUICK=1 for the benches: smaller sizes, to try the tooling. */
  quick: boolean;
  /** Variables set for B's runs only (`--b-env NAME=VALUE`): one commit against itself with a setting changed. */
  bEnv: Record<string, string>;
}

export const USAGE = `usage: npm run bench:compare -- A B [bench…] [--rounds N] [--quick] [--b-env NAME=VALUE…]

  A, B       commits (anything git rev-parse takes: HEAD~1, main, a sha); B is judged against A
  bench…     ${BENCHES.join(', ')} (default: ${DEFAULT_BENCHES.join(' ')})
  --rounds N runs of each bench per side, alternating A B B A … (default and least for a verdict: ${MIN_ROUNDS})
  --quick    the benches' small sizes (BENCH_QUICK=1): a few minutes, to try the tooling; figures too short to judge on
  --b-env NAME=VALUE
             a variable set for B's runs only (repeatable): A and B may then be one commit, to judge a
             setting (e.g. HEAD HEAD escrow --b-env BENCH_TRACING=1: tracing on against off)

Exit status: 1 when a bench shows a loss, 2 when it cannot compare, 0 otherwise.`;

export function parseArgs(argv: string[]): CompareOptions | { error: string } {
  const positional: string[] = [];
  let rounds = MIN_ROUNDS;
  let quick = false;
  const bEnv: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') quick = true;
    else if (arg === '--b-env' || arg.startsWith('--b-env=')) {
      const value = arg === '--b-env' ? argv[++i] : arg.slice('--b-env='.length);
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(value ?? '');
      if (!match) return { error: `--b-env takes NAME=VALUE, not ${value ?? 'nothing'}` };
      bEnv[match[1]] = match[2];
    } else if (arg === '--rounds' || arg.startsWith('--rounds=')) {
      const value = arg === '--rounds' ? argv[++i] : arg.slice('--rounds='.length);
      rounds = Number(value);
      if (!Number.isInteger(rounds) || rounds < 1)
        return { error: `--rounds takes a whole number of at least 1, not ${value ?? 'nothing'}` };
    } else if (arg.startsWith('-')) return { error: `unknown option ${arg}` };
    else positional.push(arg);
  }
  if (positional.length < 2) return { error: 'name two commits, A and B' };
  const [a, b, ...named] = positional;
  const unknown = named.filter((name) => !(BENCHES as readonly string[]).includes(name));
  if (unknown.length) return { error: `no bench named ${unknown.join(', ')} (there are ${BENCHES.join(', ')})` };
  const benches = named.length ? ([...new Set(named)] as BenchName[]) : DEFAULT_BENCHES;
  return { a, b, benches, rounds, quick, bEnv };
}

/**
 * Which side runs first in a round: A B, then B A, then A B… Over a pair of rounds each side
 * runs once early and once late, so a machine that speeds up or slows down steadily during the
 * comparison weighs on both alike.
 */
export function sidesOfRound(round: number): ['A', 'B'] | ['B', 'A'] {
  return round % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
}

/** The p-quantile (0 ≤ p ≤ 1) by linear interpolation between the sorted values (R's and numpy's default). */
export function quantile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const at = p * (sorted.length - 1);
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

/** What one bench run's rounds say about a target: met or missed by their median, or too wide to tell. */
export interface RoundsJudgement {
  median: number;
  min: number;
  max: number;
  /** The first and third quartiles of the rounds. */
  q1: number;
  q3: number;
  verdict: 'met' | 'missed' | 'too wide';
}

/**
 * Judges a target on a run's rounds (each a ratio measured back to back with its baseline): by
 * their median, unless the target lies inside the middle half of the rounds (strictly between
 * the first and third quartiles), where a quarter of the rounds landing the other way would turn
 * the verdict: then the spread is too wide to judge, and the run says so. Fewer than three
 * rounds are judged by the median alone.
 */
export function judgeRounds(values: number[], target: number, better: Better): RoundsJudgement {
  const q1 = quantile(values, 0.25);
  const q3 = quantile(values, 0.75);
  const m = median(values);
  const met = better === 'higher' ? m >= target : m <= target;
  const tooWide = values.length >= 3 && q1 < target && target < q3;
  return { median: m, min: Math.min(...values), max: Math.max(...values), q1, q3, verdict: tooWide ? 'too wide' : met ? 'met' : 'missed' };
}

/**
 * A side's rounds: their median and their spread, the range from the lowest to the highest
 * (which the rule uses: see `judge`).
 */
export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

export function spread(values: number[]): Spread {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

export type Better = 'higher' | 'lower';

export interface Judgement {
  a: Spread;
  b: Spread;
  /** B's median against A's, relative (+0.05: 5% higher); NaN when A's median is 0. */
  difference: number;
  /** B's median is no more than TOLERANCE worse than A's. */
  withinTolerance: boolean;
  /** B's median is inside the range of A's rounds, or better than all of them. */
  insideSpread: boolean;
  /** Neither: B is worse than A by more than the tolerance and than A's own spread. */
  loss: boolean;
}

/** Rounding noise of the arithmetic, not of the machine: 97 against 100 is 3% exactly. */
const EPSILON = 1e-9;

/**
 * The rule: "no loss" when B's median is within the tolerance (3%) of A's, or inside the
 * spread A's own rounds measured (no worse than A's worst round); a B better than A is no
 * loss either. `better` says which way is better for the figure (throughput: higher; latency,
 * CPU: lower).
 *
 * The spread is the whole range of A's rounds, not their interquartile range: with five
 * rounds each and run-to-run noise of 10% or more (this machine's), B's median falls below
 * A's first quartile by chance about one time in four, so the same code would read as a loss
 * that often; below A's lowest round, about one time in twelve (docs/benchmarks.md). The
 * price: a loss smaller than the machine's noise goes unseen; the table shows that noise.
 */
export function judge(a: number[], b: number[], better: Better, tolerance = TOLERANCE): Judgement {
  const sa = spread(a);
  const sb = spread(b);
  const difference = sa.median === 0 ? (sb.median === 0 ? 0 : Number.NaN) : sb.median / sa.median - 1;
  const worse = better === 'higher' ? -difference : difference;
  const withinTolerance = !Number.isNaN(difference) && worse <= tolerance + EPSILON;
  const insideSpread = better === 'higher' ? sb.median >= sa.min : sb.median <= sa.max;
  return { a: sa, b: sb, difference, withinTolerance, insideSpread, loss: !withinTolerance && !insideSpread };
}

type Kind = 'ratio' | 'rate' | 'ms' | 'cpu';

/** One figure of a bench's result, as a row of the comparison. */
export interface Metric {
  label: string;
  kind: Kind;
  better: Better;
  /**
   * The bench's verdict: an operation's ratio to its same-run baseline where it has one (the
   * machine's drift moves both sides of the ratio, and cancels), else its throughput.
   */
  primary: boolean;
  /** Judged at all: the baseline's own throughput only shows how the machine moved. */
  judged: boolean;
  value: (result: BenchResult) => number | null | undefined;
}

const CPU_LABELS: Array<[keyof CpuPerOp, string]> = [
  ['holdfast', 'Holdfast'],
  ['postgres', 'PostgreSQL'],
  ['redis', 'Redis'],
  ['loadGenerator', 'load generator'],
];

/** The rows for the operations the results hold (by id, in the order they first appear). */
export function metricsOf(results: BenchResult[]): Metric[] {
  const operations = new Map<string, OperationResult>();
  for (const result of results) for (const op of result.operations) if (!operations.has(op.id)) operations.set(op.id, op);
  const metrics: Metric[] = [];
  for (const [id, op] of operations) {
    const of = (result: BenchResult) => result.operations.find((o) => o.id === id);
    const hasRatio = op.ratio !== undefined;
    // A reference (not Holdfast's code) is shown, never judged.
    const judged = !op.reference;
    if (hasRatio)
      metrics.push({
        label: `${op.name}: ratio to baseline`,
        kind: 'ratio',
        better: 'higher',
        primary: judged,
        judged,
        value: (r) => of(r)?.ratio,
      });
    if (op.throughput !== null)
      metrics.push({
        label: `${op.name}: ${op.unit}`,
        kind: 'rate',
        better: 'higher',
        primary: judged && !hasRatio,
        judged,
        value: (r) => of(r)?.throughput,
      });
    if (op.baseline)
      metrics.push({
        label: `  baseline: ${op.baseline.name}, ${op.baseline.unit}`,
        kind: 'rate',
        better: 'higher',
        primary: false,
        judged: false,
        value: (r) => of(r)?.baseline?.throughput,
      });
    if (op.p50Ms !== null)
      metrics.push({ label: '  p50 ms', kind: 'ms', better: 'lower', primary: false, judged, value: (r) => of(r)?.p50Ms });
    if (op.p99Ms !== null)
      metrics.push({ label: '  p99 ms', kind: 'ms', better: 'lower', primary: false, judged, value: (r) => of(r)?.p99Ms });
    if (op.cpuMsPerOp !== null || op.throughput !== null)
      for (const [key, name] of CPU_LABELS)
        metrics.push({
          label: `  CPU ms/op ${name}`,
          kind: 'cpu',
          better: 'lower',
          primary: false,
          judged,
          value: (r) => of(r)?.cpuMsPerOp?.[key],
        });
  }
  return metrics;
}

export type Verdict = 'no loss' | 'loss' | 'no verdict';

export interface Row {
  metric: Metric;
  /** Null when a run lacks the figure (an operation one commit does not measure, no /proc). */
  judgement: Judgement | null;
  verdict: Verdict | null;
}

export interface BenchComparison {
  rows: Row[];
  verdict: Verdict;
  /** Why "no verdict", when it is. */
  note?: string;
}

/** Compares the runs of one bench, A's against B's: a row per figure and the bench's verdict (its primary rows'). */
export function compareBench(aRuns: BenchResult[], bRuns: BenchResult[]): BenchComparison {
  const rounds = Math.min(aRuns.length, bRuns.length);
  const rows: Row[] = metricsOf([...aRuns, ...bRuns]).map((metric) => {
    const values = (runs: BenchResult[]) => runs.map(metric.value);
    const a = values(aRuns);
    const b = values(bRuns);
    const complete = (v: Array<number | null | undefined>): v is number[] => v.length > 0 && v.every((x) => typeof x === 'number');
    if (!complete(a) || !complete(b)) return { metric, judgement: null, verdict: null };
    const judgement = judge(a, b, metric.better);
    const verdict: Verdict | null = !metric.judged ? null : rounds < MIN_ROUNDS ? 'no verdict' : judgement.loss ? 'loss' : 'no loss';
    return { metric, judgement, verdict };
  });
  const primary = rows.filter((row) => row.metric.primary);
  if (rounds < MIN_ROUNDS) return { rows, verdict: 'no verdict', note: `${rounds} rounds, fewer than the ${MIN_ROUNDS} a verdict needs` };
  // An operation only one side measures (one the bench added since A) is shown, not judged; the
  // verdict is on the primary figures both sides have.
  const judgeable = primary.filter((row) => row.judgement !== null);
  if (judgeable.length === 0) return { rows, verdict: 'no verdict', note: 'a side lacks the figure the verdict is on' };
  return { rows, verdict: judgeable.some((row) => row.verdict === 'loss') ? 'loss' : 'no loss' };
}

function figure(kind: Kind, value: number): string {
  if (!Number.isFinite(value)) return '–';
  if (kind === 'ratio') return `${(value * 100).toFixed(value < 0.1 ? 2 : 1)}%`;
  if (kind === 'cpu') return value.toFixed(value < 0.1 ? 3 : 2);
  return value.toFixed(value >= 100 ? 0 : 1);
}

function percent(difference: number): string {
  if (Number.isNaN(difference)) return '–';
  const p = difference * 100;
  return `${p >= 0 ? '+' : '−'}${Math.abs(p).toFixed(1)}%`;
}

/**
 * The table of one bench: per figure each side's median and spread (min–max), B's
 * difference and the verdict. The bench's verdict is its starred rows'; the verdicts of the
 * other rows are shown in parentheses, for the reader.
 */
export function formatTable(comparison: BenchComparison): string {
  const width = Math.max(40, ...comparison.rows.map((row) => row.metric.label.length + 2));
  const head = `${'figure'.padEnd(width)} ${'A median'.padStart(10)} ${'A min–max'.padStart(17)} ${'B median'.padStart(10)} ${'B min–max'.padStart(17)} ${'B vs A'.padStart(8)}  verdict`;
  const lines = [head];
  for (const { metric, judgement, verdict } of comparison.rows) {
    const label = `${metric.label}${metric.primary ? ' *' : ''}`.padEnd(width);
    if (!judgement) {
      lines.push(`${label} ${'(not in every run)'.padStart(10)}`);
      continue;
    }
    const f = (v: number) => figure(metric.kind, v);
    const range = (s: Spread) => `${f(s.min)}–${f(s.max)}`;
    const shown = verdict === null ? '' : metric.primary ? verdict : `(${verdict})`;
    lines.push(
      `${label} ${f(judgement.a.median).padStart(10)} ${range(judgement.a).padStart(17)} ${f(judgement.b.median).padStart(10)} ${range(judgement.b).padStart(17)} ${percent(judgement.difference).padStart(8)}  ${shown}`,
    );
  }
  return lines.join('\n');
}
