/**
 * `npm run bench:compare -- A B [bench…] [--rounds N] [--quick]`: runs the chosen benches of
 * two commits side by side on this machine and says whether B lost speed against A.
 *
 * Each commit gets a git worktree of its own with its own `npm ci` (kept under
 * `.bench-compare/` of the repository and reused for the same commit), and runs its own bench
 * files: the benches import Holdfast's src/, whose files move between commits, so one side's
 * bench/ never runs against the other's code. Each run writes its figures to a file
 * (BENCH_RESULT_FILE, bench/result.ts); the runs alternate A B, B A… for N rounds (5 by
 * default, the least for a verdict), one at a time on the benches' own database and queues,
 * which each run drops first. Then, per bench, a table of each side's median and spread
 * (min–max), B's difference and the verdict (bench/compare.rules.ts). Exit status: 1 on a loss, 2
 * when it cannot compare, 0 otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type BenchName,
  compareBench,
  formatTable,
  MIN_ROUNDS,
  parseArgs,
  READABLE_FORMATS,
  sidesOfRound,
  TOLERANCE,
  USAGE,
  type Verdict,
} from './compare.rules.js';
import type { BenchResult } from './result.js';

/** A refusal or failure: printed as one sentence, exit status 2. */
class CannotCompare extends Error {}

function git(args: string[], cwd: string): { ok: boolean; out: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return { ok: r.status === 0, out: (r.stdout ?? '').trim() };
}

/** The folder of the main worktree, whichever worktree this runs in: one cache for all. */
function repositoryRoot(): string {
  const common = git(['rev-parse', '--path-format=absolute', '--git-common-dir'], process.cwd());
  if (!common.ok) throw new CannotCompare('bench:compare runs inside the Holdfast git repository.');
  return path.dirname(realpathSync(common.out));
}

interface Side {
  label: 'A' | 'B';
  /** As given on the command line. */
  given: string;
  sha: string;
  short: string;
  subject: string;
  dir: string;
}

function resolveSide(label: 'A' | 'B', given: string, root: string, cache: string): Side {
  const sha = git(['rev-parse', '--verify', '--quiet', `${given}^{commit}`], root);
  if (!sha.ok) throw new CannotCompare(`${label}: "${given}" names no commit in this repository.`);
  const short = git(['rev-parse', '--short', sha.out], root).out;
  const subject = git(['log', '-1', '--format=%s', sha.out], root).out;
  return { label, given, sha: sha.out, short, subject, dir: path.join(cache, 'worktrees', sha.out) };
}

/**
 * Refuses, in one sentence, a side whose bench does not write the result file (it predates
 * it), naming the first commit whose bench does.
 */
function checkSupport(side: Side, bench: BenchName, root: string, other: Side): void {
  const file = `bench/${bench}.ts`;
  if (git(['grep', '-q', '-F', 'writeBenchResult(', side.sha, '--', file], root).ok) return;
  const first = git(
    ['log', '--reverse', '--format=%h', '-S', 'writeBenchResult(', side.sha, other.sha, 'HEAD', '--', file],
    root,
  ).out.split('\n')[0];
  throw new CannotCompare(
    `${side.label} (${side.short}) cannot be compared on bench:${bench}: its ${file} ${
      git(['cat-file', '-e', `${side.sha}:${file}`], root).ok ? 'writes no result file (BENCH_RESULT_FILE)' : 'does not exist'
    }; ${first ? `the benches write one from ${first} on` : 'no commit here writes one yet'}.`,
  );
}

const INSTALLED = path.join('node_modules', '.bench-compare-installed');

/** The side's worktree with its own install: made once per commit, then reused. */
function prepare(side: Side, root: string, logDir: string): void {
  if (existsSync(path.join(side.dir, INSTALLED)) && git(['rev-parse', 'HEAD'], side.dir).out === side.sha) {
    console.log(`${side.label}: reusing ${path.relative(root, side.dir)}`);
    return;
  }
  console.log(`${side.label}: a worktree at ${path.relative(root, side.dir)} and npm ci in it…`);
  git(['worktree', 'prune'], root);
  rmSync(side.dir, { recursive: true, force: true });
  const added = spawnSync('git', ['worktree', 'add', '--force', '--detach', side.dir, side.sha], { cwd: root, encoding: 'utf8' });
  if (added.status !== 0) throw new CannotCompare(`${side.label}: git worktree add failed: ${added.stderr.trim()}`);
  const log = path.join(logDir, `npm-ci-${side.short}.log`);
  const out = openSync(log, 'w');
  const started = Date.now();
  const ci = spawnSync(npm().command, [...npm().args, 'ci', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: side.dir,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  if (ci.status !== 0) throw new CannotCompare(`${side.label}: npm ci failed in ${side.dir} (see ${log}).`);
  writeFileSync(path.join(side.dir, INSTALLED), `${side.sha}\n`);
  console.log(`${side.label}: installed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** npm as the one running this script, else the one on PATH. */
function npm(): { command: string; args: string[] } {
  const cli = process.env.npm_execpath;
  return cli && /\.(c?js)$/.test(cli) ? { command: process.execPath, args: [cli] } : { command: 'npm', args: [] };
}

/** Runs `npm run bench:<bench>` in the side's worktree; resolves with the figures it wrote. */
async function runBench(
  side: Side,
  bench: BenchName,
  quick: boolean,
  log: string,
  resultFile: string,
  extraEnv: Record<string, string>,
): Promise<BenchResult> {
  rmSync(resultFile, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, BENCH_RESULT_FILE: resultFile };
  if (quick) env.BENCH_QUICK = '1';
  // Two commits' schemas differ: every run seeds afresh.
  delete env.SCALE_REUSE;
  delete env.SCALE_KEEP_DATABASE;
  const out = openSync(log, 'w');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(npm().command, [...npm().args, 'run', '--silent', `bench:${bench}`], {
      cwd: side.dir,
      env,
      stdio: ['ignore', out, out],
    });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  closeSync(out);
  // Exit status 1 is a target missed, which the comparison does not judge; the figures count.
  if (!existsSync(resultFile)) {
    const tail = readFileSync(log, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
    throw new CannotCompare(
      `bench:${bench} of ${side.label} (${side.short}) exited with ${code} and wrote no result; its log, ${log}, ends:\n${tail}`,
    );
  }
  const result = JSON.parse(readFileSync(resultFile, 'utf8')) as BenchResult;
  if (!READABLE_FORMATS.includes(result.format))
    throw new CannotCompare(
      `bench:${bench} of ${side.label} (${side.short}) writes result format ${result.format}, which this bench:compare does not read (it reads ${READABLE_FORMATS.join(', ')}); run the newer commit's.`,
    );
  return result;
}

function summary(result: BenchResult): string {
  return result.operations
    .filter((op) => op.throughput !== null)
    .map(
      (op) =>
        `${op.id} ${op.throughput!.toFixed(1)} ${op.unit}${op.ratio !== undefined ? ` (${(op.ratio * 100).toFixed(1)}% of baseline)` : ''}${op.cpuMsPerOp ? `, Holdfast ${op.cpuMsPerOp.holdfast.toFixed(2)} ms/op` : ''}`,
    )
    .join('; ');
}

async function main(): Promise<number> {
  const options = parseArgs(process.argv.slice(2));
  if ('error' in options) {
    console.error(`${options.error}\n\n${USAGE}`);
    return 2;
  }
  const root = repositoryRoot();
  const cache = path.resolve(root, process.env.BENCH_COMPARE_DIR ?? '.bench-compare');
  const a = resolveSide('A', options.a, root, cache);
  const b = resolveSide('B', options.b, root, cache);
  for (const bench of options.benches) {
    checkSupport(a, bench, root, b);
    checkSupport(b, bench, root, a);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const logDir = path.join(cache, 'runs', stamp);
  mkdirSync(logDir, { recursive: true });
  console.log(`A = ${a.short} (${a.given}): ${a.subject}`);
  const bEnv = Object.entries(options.bEnv).map(([name, value]) => `${name}=${value}`);
  console.log(`B = ${b.short} (${b.given}): ${b.subject}${bEnv.length ? `, with ${bEnv.join(' ')}` : ''}`);
  console.log(
    `benches: ${options.benches.join(', ')}; ${options.rounds} rounds, A B then B A alternating${options.quick ? '; quick sizes (BENCH_QUICK=1)' : ''}; logs and results in ${path.relative(root, logDir)}`,
  );
  if (options.rounds < MIN_ROUNDS) console.log(`note: fewer than ${MIN_ROUNDS} rounds: figures, no verdict`);
  prepare(a, root, logDir);
  if (b.sha !== a.sha) prepare(b, root, logDir);

  const runs = new Map<string, BenchResult[]>();
  const started = Date.now();
  for (let round = 0; round < options.rounds; round++) {
    for (const bench of options.benches) {
      for (const label of sidesOfRound(round)) {
        const side = label === 'A' ? a : b;
        const name = `${round + 1}-${bench}-${label}`;
        const t = Date.now();
        const result = await runBench(
          side,
          bench,
          options.quick,
          path.join(logDir, `${name}.log`),
          path.join(logDir, `${name}.json`),
          label === 'B' ? options.bEnv : {},
        );
        const key = `${bench}:${label}`;
        runs.set(key, [...(runs.get(key) ?? []), result]);
        console.log(
          `round ${round + 1}/${options.rounds} ${bench} ${label}: ${summary(result)} (${((Date.now() - t) / 1000).toFixed(0)} s)`,
        );
      }
    }
  }

  const verdicts: Array<[BenchName, Verdict, string | undefined]> = [];
  for (const bench of options.benches) {
    const comparison = compareBench(runs.get(`${bench}:A`)!, runs.get(`${bench}:B`)!);
    verdicts.push([bench, comparison.verdict, comparison.note]);
    console.log(`\nbench:${bench}, A = ${a.short}, B = ${b.short}, ${options.rounds} rounds each\n`);
    console.log(formatTable(comparison));
  }
  const machine = runs.values().next().value?.[0]?.machine ?? '';
  console.log(
    `\n* the bench's verdict: B's median within ${TOLERANCE * 100}% of A's, or inside the range of A's rounds (min–max), or better, is "no loss"; verdicts in parentheses are the same rule on the other figures, for reading only.`,
  );
  console.log(
    `machine: ${machine}; ${((Date.now() - started) / 60_000).toFixed(1)} minutes of runs${options.quick ? '; quick sizes' : ''}\n`,
  );
  for (const [bench, verdict, note] of verdicts) console.log(`bench:${bench}: ${verdict.toUpperCase()}${note ? ` (${note})` : ''}`);
  return verdicts.some(([, verdict]) => verdict === 'loss') ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (e) {
  // Status 1 means a loss: anything that went wrong is 2.
  console.error(e instanceof CannotCompare ? e.message : e);
  process.exitCode = 2;
}
