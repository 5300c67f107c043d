/**
 * The producer side of commands: enqueue a command's job (jobId = command id, so enqueuing
 * twice is harmless) and wait for it to finish. Waiting listens to BullMQ's completion events
 * and also polls the command row — the row, not Redis, says when a command is done.
 */
import { EventEmitter } from 'node:events';
import { Queue, QueueEvents, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { batched } from '../db/batch.js';
import { createRedis } from './connection.js';
import { QueueName, type CommandJob } from './names.js';

/** Retries with backoff: a job that fails (a crash, a lost connection) runs again. */
export const COMMAND_JOB_OPTIONS: JobsOptions = {
  attempts: 8,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

const POLL_MS = 200;

export class CommandBus {
  private readonly queue: Queue<CommandJob>;
  private events: QueueEvents | undefined;
  private readonly finished = new EventEmitter();
  /** The jobs enqueued in a turn of the event loop go to Redis together (one round trip). */
  private readonly add = batched(async (jobs: Array<{ commandId: string; kind: string }>) => {
    try {
      await this.queue.addBulk(jobs.map(({ commandId, kind }) => ({ name: QueueName.Commands, data: { commandId, kind }, opts: { ...COMMAND_JOB_OPTIONS, jobId: commandId } })));
      return jobs.map(() => true);
    } catch {
      return jobs.map(() => false);
    }
  });

  constructor(private readonly redisUrl: string, private readonly prefix: string, private readonly connection: Redis = createRedis(redisUrl, 'producer')) {
    this.queue = new Queue<CommandJob>(QueueName.Commands, { connection: this.connection, prefix });
    this.finished.setMaxListeners(0);
  }

  /**
   * Starts reading completion events (a blocking connection that parses every event of the
   * queue): only processes that wait for commands — web processes — do; `waitFor` starts it too.
   */
  listen(): void {
    if (this.events) return;
    this.events = new QueueEvents(QueueName.Commands, { connection: createRedis(this.redisUrl, 'worker'), prefix: this.prefix });
    this.events.setMaxListeners(0);
    this.events.on('completed', ({ jobId, returnvalue }: { jobId: string; returnvalue: unknown }) => this.finished.emit(jobId, returnvalue));
    this.events.on('failed', ({ jobId }: { jobId: string }) => this.finished.emit(jobId, undefined));
    this.events.on('error', () => {});
  }

  /** Enqueues a command's job; false when Redis cannot take it now (the sweeper will). */
  enqueue(commandId: string, kind: string): Promise<boolean> {
    return this.add({ commandId, kind });
  }

  /**
   * Re-enqueues a command whose job was lost or gave up: an existing finished job with the
   * same id is removed first (BullMQ would otherwise ignore the new one).
   */
  async requeue(commandId: string, kind: string): Promise<void> {
    const job = await this.queue.getJob(commandId);
    if (job) {
      const state = await job.getState();
      if (state === 'active' || state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') return;
      await job.remove();
    }
    await this.enqueue(commandId, kind);
  }

  /**
   * Resolves with the job's result when its completion event carries one that `accept` takes,
   * else with what `probe()` finds (checked when the job finishes, every 200 ms, and once more
   * at `timeoutMs`), or null when it still finds nothing then.
   */
  async waitFor<T>(commandId: string, timeoutMs: number, probe: () => Promise<T | null>, accept: (value: unknown) => T | null = () => null): Promise<T | null> {
    if (timeoutMs <= 0) return probe();
    this.listen();
    return new Promise<T | null>((resolve) => {
      let settled = false;
      let checking = false;
      let again = false;
      const finish = (value: T | null) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        clearTimeout(timer);
        this.finished.off(commandId, onFinished);
        resolve(value);
      };
      // One check at a time; a signal that arrives during a check runs another right after it.
      const check = () => {
        if (settled) return;
        if (checking) {
          again = true;
          return;
        }
        checking = true;
        again = false;
        probe().then((value) => {
          checking = false;
          if (value !== null) finish(value);
          else if (again) check();
        }, () => {
          checking = false;
          if (again) check();
        });
      };
      const poll = setInterval(check, POLL_MS);
      const timer = setTimeout(() => {
        probe().then(finish, () => finish(null));
      }, timeoutMs);
      const onFinished = (value: unknown) => {
        const result = accept(value);
        if (result !== null) finish(result);
        else check();
      };
      // No look before the completion event (or the first poll): a job is never done that fast.
      this.finished.on(commandId, onFinished);
    });
  }

  async close(): Promise<void> {
    await this.events?.close();
    await this.queue.close();
  }
}
