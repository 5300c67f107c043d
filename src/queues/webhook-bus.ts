/**
 * The producer side of webhook deliveries: one job per delivery row, with the job id the row
 * names (`<event id>.<endpoint id>`; BullMQ refuses `:` in custom ids), so enqueuing twice is
 * harmless. Retries are scheduled by the processor from the row (DelayedError), not by BullMQ
 * attempts, so a re-enqueued or replayed delivery keeps its count. A given-up delivery fails its
 * job: the queue's failed set is the dead-letter list the dashboard shows and can retry.
 */
import { Queue, type JobsOptions } from 'bullmq';
import type { RedisConnection } from './connection.js';
import { QueueName, type WebhookJob } from './names.js';
import { queueErrors } from './connection.js';
import type { Logger } from '../runtime/logger.js';
import { queueTelemetry } from '../runtime/tracing-hooks.js';

export const WEBHOOK_JOB_OPTIONS: JobsOptions = {
  // A crash mid-attempt (stalled job) runs it again; the row keeps the delivery's own count.
  attempts: 3,
  backoff: { type: 'fixed', delay: 1000 },
  removeOnComplete: { age: 3600, count: 10_000 },
  removeOnFail: { age: 30 * 24 * 3600 },
};

/** The job id of a delivery's first send. */
export function deliveryJobId(eventId: string, endpointId: string): string {
  return `${eventId}.${endpointId}`;
}

export class WebhookBus {
  readonly queue: Queue<WebhookJob>;

  /** `logger` hears the queue's errors other than Redis being unreachable (see `queueErrors`). */
  constructor(connection: RedisConnection, prefix: string, logger?: Logger) {
    this.queue = new Queue<WebhookJob>(QueueName.Webhooks, { connection, prefix, ...queueTelemetry() });
    this.queue.on('error', queueErrors(logger, QueueName.Webhooks));
  }

  /** Enqueues deliveries; false when Redis cannot take them now (the sweeper will). */
  async enqueue(deliveries: Array<{ deliveryId: string; jobId: string; traceparent?: string }>): Promise<boolean> {
    if (!deliveries.length) return true;
    try {
      await this.queue.addBulk(
        deliveries.map((d) => ({
          name: QueueName.Webhooks,
          data: d.traceparent ? { deliveryId: d.deliveryId, traceparent: d.traceparent } : { deliveryId: d.deliveryId },
          opts: { ...WEBHOOK_JOB_OPTIONS, jobId: d.jobId },
        })),
      );
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Re-enqueues a pending delivery whose job is lost, or finished without finishing the row
   * (a job that is waiting, delayed or running is left alone).
   */
  async requeue(deliveryId: string, jobId: string): Promise<boolean> {
    const job = await this.queue.getJob(jobId);
    if (job) {
      const state = await job.getState();
      if (state === 'active' || state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children')
        return false;
      await job.remove();
    }
    return this.enqueue([{ deliveryId, jobId }]);
  }

  /**
   * Runs waiting retries now: each delivery's job that is delayed becomes ready (other states
   * are left alone). Returns how many moved; stops quietly when Redis cannot be reached.
   */
  async sendNow(deliveries: Array<{ jobId: string }>): Promise<number> {
    let moved = 0;
    try {
      for (const d of deliveries) {
        const job = await this.queue.getJob(d.jobId);
        if (!job || (await job.getState()) !== 'delayed') continue;
        // Between the check and the move the worker may have taken it: then it is not moved.
        await job.promote().then(
          () => moved++,
          () => undefined,
        );
      }
    } catch {
      // Redis is unreachable: the retries run at their real time.
    }
    return moved;
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
