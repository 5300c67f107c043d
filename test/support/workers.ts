/** A worker process for fault tests: `workers/index.ts` spawned on the test's database and Redis, its output kept. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Job, Queue } from 'bullmq';
import { pino } from 'pino';
import { startWorkers } from '../../workers/index.js';
import { h } from './harness.js';

export interface WorkerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a worker on queue prefix `prefix` with short lock and sweep times (a killed job is retried soon); `env` adds or overrides. */
export function worker(prefix: string, env: Record<string, string> = {}): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/index.ts'], {
    env: {
      ...process.env,
      DATABASE_URL: h().databaseUrl,
      REDIS_URL: h().redisUrl,
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'info',
      WORKER_LOCK_MS: '1500',
      COMMAND_SWEEP_AFTER_MS: '1000',
      COMMAND_SWEEP_EVERY_MS: '500',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

/** Polls `probe` every 100 ms until it answers; past `ms`, fails naming `what` (with the worker's log when given). */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, log?: () => string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${log ? `; the worker's log:\n${log()}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The command's job once it completed in Redis (it must not fail); its worker's log explains a timeout. */
export function completedJob(jobs: Queue, commandId: string, output: () => string): Promise<Job> {
  return until(
    'the command job to complete',
    async () => {
      const state = await jobs.getJobState(commandId);
      if (state === 'failed') assert.fail(`the command job failed\n${output()}`);
      return state === 'completed' ? jobs.getJob(commandId) : undefined;
    },
    output,
  );
}

/** A worker started in this process: its log kept as text, stopped as a process's SIGTERM stops it. */
export interface InProcessWorker {
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * The worker that restarts after a kill, in this process: the same `startWorkers` a worker
 * process runs, on the test's queue prefix with the short lock and sweep times of `worker`, and
 * the harness's database. Only the killed worker needs a process of its own (a failpoint
 * SIGKILLs it); starting a second one under tsx costs seconds per test for nothing more.
 */
export async function restartedWorker(prefix: string): Promise<InProcessWorker> {
  let out = '';
  const logger = pino(
    { level: 'info', base: { name: 'holdfast-worker' } },
    {
      write: (line: string) => {
        out += line;
      },
    },
  );
  const running = await startWorkers({
    orm: h().orm,
    redisUrl: h().redisUrl,
    queuePrefix: prefix,
    logger,
    lockMs: 1500,
    commandSweepAfterMs: 1000,
    sweepEveryMs: 500,
    databaseUrl: h().databaseUrl,
  });
  return { output: () => out, stop: () => running.close() };
}
