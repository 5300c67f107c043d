/**
 * The producer side of commands: enqueue a command's job (jobId = command id, so enqueuing
 * twice is harmless) and wait for it to finish. A worker that finishes a command tells the
 * request waiting for it: directly when that request waits in the same process (no message at
 * all), else with one Redis PUBLISH per turn of the event loop to every web process. Waiting
 * also polls the command row — the row, not Redis, says when a command is done — so a lost
 * message only delays an answer.
 */
import { EventEmitter } from 'node:events';
import { Queue, type JobsOptions } from 'bullmq';
import { batched } from '../db/batch.js';
import { closeRedis, createRedis, queueErrors, type RedisConnection } from './connection.js';
import type { Logger } from '../runtime/logger.js';
import { queueTelemetry } from '../runtime/tracing-hooks.js';
import { DEFAULT_COMMAND_JOB_BATCH, QueueName, type CommandJob, type CommandRef } from './names.js';
import type { Reply } from '../envelope.js';

/** Retries with backoff: a job that fails (a crash, a lost connection) runs again. */
export const COMMAND_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

const POLL_MS = 200;

/**
 * Whether commands of this kind share jobs: the escrow phases, whose runner takes the commands
 * that reach it together in one statement, so a batch saves both Redis round trips and database
 * work. Every other runner is one transaction on one pooled connection (`inCommandTransaction`),
 * so its commands could share jobs too, but measured it does not pay: invoice pays, batched 32
 * to a job against one each, ran at 97.6 and 102.3 against 98.0 and 103.8 lifecycles/s
 * (bench:escrow with BENCH_FLOW=invoice, docs/benchmarks.md). They keep a job each (job id =
 * command id), which the sweeper and `requeue` also find by that id.
 */
export function sharesJobs(kind: string): boolean {
  return kind.startsWith('escrow.');
}

/**
 * The jobs for commands enqueued together: one command alone, or one whose kind does not share
 * jobs (`sharesJobs`), is its own job (job id = command id, so enqueuing it twice is harmless);
 * the others share jobs of up to `maxPerJob` (a command named twice goes once). A command that
 * ends up in two jobs runs once: its row decides.
 */
export function commandJobs(refs: CommandRef[], maxPerJob: number) {
  const unique = [...new Map(refs.map((r) => [r.commandId, r])).values()];
  const single = (ref: CommandRef) => ({
    name: QueueName.Commands,
    data: ref as CommandJob,
    opts: { ...COMMAND_JOB_OPTIONS, jobId: ref.commandId } as JobsOptions,
  });
  const shared = unique.filter((r) => sharesJobs(r.kind));
  const jobs: Array<{ name: string; data: CommandJob; opts: JobsOptions }> = [];
  for (let i = 0; i < shared.length; i += maxPerJob) {
    const group = shared.slice(i, i + maxPerJob);
    jobs.push(group.length === 1 ? single(group[0]) : { name: 'batch', data: { commands: group }, opts: COMMAND_JOB_OPTIONS });
  }
  for (const ref of unique) if (!sharesJobs(ref.kind)) jobs.push(single(ref));
  return jobs;
}

/** The requests of this process waiting for commands, keyed by queue prefix and command id; shared by every bus of the process. */
const waiting = new EventEmitter().setMaxListeners(0);

export class CommandBus {
  private readonly queue: Queue<CommandJob>;
  private subscriber: RedisConnection | undefined;
  /** Where workers announce finished commands that no request of their own process waits for. */
  private readonly channel: string;
  /**
   * The commands enqueued in a turn of the event loop go to Redis together (one round trip),
   * as one job when there are several (up to `maxPerJob` per job).
   */
  private readonly add = batched(async (refs: CommandRef[]) => {
    try {
      await this.queue.addBulk(commandJobs(refs, this.maxPerJob));
      return refs.map(() => true);
    } catch {
      return refs.map(() => false);
    }
  });
  /** The commands finished in a turn of the event loop are announced together (one PUBLISH). */
  private readonly announce = batched(async (done: Array<{ id: string; status: number; body: unknown }>) => {
    await this.connection.publish(this.channel, JSON.stringify(done)).catch(() => undefined);
    return done.map(() => undefined);
  });

  /** Whether `close()` closes the connection (the bus made it). */
  private readonly ownsConnection: boolean;
  private readonly connection: RedisConnection;

  /** `logger` hears the queue's errors other than Redis being unreachable (see `queueErrors`). */
  constructor(
    private readonly redisUrl: string,
    private readonly prefix: string,
    connection?: RedisConnection,
    logger?: Logger,
    private readonly maxPerJob = DEFAULT_COMMAND_JOB_BATCH,
  ) {
    this.ownsConnection = !connection;
    this.connection = connection ?? createRedis(redisUrl, 'producer');
    this.queue = new Queue<CommandJob>(QueueName.Commands, { connection: this.connection, prefix, ...queueTelemetry() });
    this.queue.on('error', queueErrors(logger, QueueName.Commands));
    this.channel = `${prefix}:${QueueName.Commands}:finished`;
  }

  private key(commandId: string): string {
    return `${this.prefix} ${commandId}`;
  }

  /**
   * Starts hearing commands finished by workers of other processes (a subscriber connection):
   * only processes that wait for commands — web processes — do; `waitFor` starts it too.
   */
  listen(): void {
    if (this.subscriber) return;
    this.subscriber = createRedis(this.redisUrl, 'worker');
    this.subscriber.on('error', () => {});
    this.subscriber.on('message', (_channel: string, message: string) => {
      let done: Array<{ id: string; status: number; body: unknown }>;
      try {
        done = JSON.parse(message);
      } catch {
        return;
      }
      for (const { id, status, body } of Array.isArray(done) ? done : []) waiting.emit(this.key(id), { status, body });
    });
    void this.subscriber.subscribe(this.channel).catch(() => undefined);
  }

  /**
   * A worker finished a command (its row is done): wakes the request of this process waiting
   * for it, or else tells the other processes.
   */
  finished(commandId: string, result: Reply): void {
    const key = this.key(commandId);
    if (waiting.listenerCount(key) > 0) waiting.emit(key, result);
    else void this.announce({ id: commandId, status: result.status, body: result.body });
  }

  /** Enqueues a command's job; false when Redis cannot take it now (the sweeper will). */
  enqueue(commandId: string, kind: string, traceparent?: string | null): Promise<boolean> {
    return this.add(traceparent ? { commandId, kind, traceparent } : { commandId, kind });
  }

  /**
   * Re-enqueues a command whose job was lost or gave up: an existing finished job with the
   * same id is removed first (BullMQ would otherwise ignore the new one). Always as a job of
   * its own under the command's id, never in a batch, so the next sweep finds it and adds none.
   */
  async requeue(commandId: string, kind: string, traceparent?: string | null): Promise<void> {
    const job = await this.queue.getJob(commandId);
    if (job) {
      const state = await job.getState();
      if (state === 'active' || state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children')
        return;
      await job.remove();
    }
    const [single] = commandJobs([traceparent ? { commandId, kind, traceparent } : { commandId, kind }], 1);
    await this.queue.add(single.name, single.data, single.opts);
  }

  /**
   * Resolves with the command's result when its worker announces it, else with what `probe()`
   * finds (every 200 ms, and once more at `timeoutMs`), or null when it still finds nothing then.
   * Call it before enqueuing the job: a result announced before anyone waits is not kept.
   */
  async waitFor(commandId: string, timeoutMs: number, probe: () => Promise<Reply | null>): Promise<Reply | null> {
    if (timeoutMs <= 0) return probe();
    this.listen();
    const key = this.key(commandId);
    return new Promise<Reply | null>((resolve) => {
      let settled = false;
      let checking = false;
      const finish = (value: Reply | null) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        clearTimeout(timer);
        waiting.off(key, finish);
        resolve(value);
      };
      // One look at a time.
      const check = () => {
        if (settled || checking) return;
        checking = true;
        probe().then(
          (value) => {
            checking = false;
            if (value !== null) finish(value);
          },
          () => {
            checking = false;
          },
        );
      };
      const poll = setInterval(check, POLL_MS);
      const timer = setTimeout(() => {
        probe().then(finish, () => finish(null));
      }, timeoutMs);
      // No look before the announcement (or the first poll): a job is never done that fast.
      waiting.on(key, finish);
    });
  }

  async close(): Promise<void> {
    if (this.subscriber) await closeRedis(this.subscriber);
    await this.queue.close();
    if (this.ownsConnection) await closeRedis(this.connection);
  }
}
