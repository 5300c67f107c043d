/**
 * Prometheus metrics (prom-client), served at `/metrics`: HTTP latency per route, command
 * durations, webhook attempts by outcome, per queue the time jobs waited for a worker and the
 * time workers spent on them, and the webhook delivery lag (these count what this process did), and —
 * read from Redis and PostgreSQL at each scrape, so they cover every process — jobs per queue
 * and state, the age of each queue's oldest waiting job, and the outbox lag. Who may read them (admin password, METRICS_TOKEN, open only in
 * staging): src/http/operations-routes.ts.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Job, Queue, Worker } from 'bullmq';

export const registry = new Registry();
collectDefaultMetrics({ register: registry, prefix: 'holdfast_' });

export const httpDuration = new Histogram({
  name: 'holdfast_http_request_duration_seconds',
  help: 'HTTP request latency by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [registry],
});

export const commandDuration = new Histogram({
  name: 'holdfast_command_duration_seconds',
  help: 'Time a worker took to run a command, by kind and HTTP result status.',
  labelNames: ['kind', 'status'] as const,
  buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'holdfast_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (delivered, retry, dead).',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

const JOB_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export const jobWait = new Histogram({
  name: 'holdfast_job_wait_seconds',
  help: 'Time a job waited in its queue before a worker took it (first attempt; from when it was added or its delay ran out), by queue: what to size workers on.',
  labelNames: ['queue'] as const,
  buckets: JOB_BUCKETS,
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: 'holdfast_job_duration_seconds',
  help: 'Time a worker spent on a job, by queue and outcome (completed, failed).',
  labelNames: ['queue', 'outcome'] as const,
  buckets: JOB_BUCKETS,
  registers: [registry],
});

export const webhookDeliveryLag = new Histogram({
  name: 'holdfast_webhook_delivery_lag_seconds',
  help: 'From the outbox relay enqueuing a delivery to its receiver accepting it (retries included), by queue.',
  labelNames: ['queue'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600, 86_400],
  registers: [registry],
});

/** Records, per queue, how long the worker's jobs waited (`holdfast_job_wait_seconds`) and ran (`holdfast_job_duration_seconds`). */
export function observeJobs(worker: Worker, queue: string): void {
  worker.on('active', (job: Job) => {
    // A retry's wait is its backoff, not a lack of workers: only first attempts count.
    if ((job.attemptsStarted ?? 1) > 1 || !job.processedOn) return;
    jobWait.observe({ queue }, Math.max(0, job.processedOn - job.timestamp - (job.opts.delay ?? 0)) / 1000);
  });
  const ran = (outcome: string) => (job: Job | undefined) => {
    if (job?.processedOn && job.finishedOn) jobDuration.observe({ queue, outcome }, Math.max(0, job.finishedOn - job.processedOn) / 1000);
  };
  worker.on('completed', ran('completed'));
  worker.on('failed', ran('failed'));
}

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/**
 * How long the oldest waiting job of the queue has waited, in seconds (0 when none waits): one
 * LRANGE of the wait list's oldest end and one read of that job. It waits since it was added, or
 * since the time it was delayed to, or — for a retry — since its last attempt started (BullMQ
 * keeps no record of when a retry's delay ran out), whichever is latest.
 */
export async function oldestWaitingSeconds(queue: Queue, now = Date.now()): Promise<number> {
  const [job] = await queue.getJobs(['waiting'], 0, 0, true);
  if (!job) return 0;
  const since = Math.max(job.timestamp + (job.opts.delay ?? 0), job.processedOn ?? 0);
  return Math.max(0, (now - since) / 1000);
}

/** The queue gauges, read from Redis at each scrape: jobs per queue and state, the oldest waiting job's age. */
export function registerQueueGauges(queues: Queue[], register: Registry = registry): void {
  new Gauge({
    name: 'holdfast_queue_jobs',
    help: 'Jobs per BullMQ queue and state (failed webhook jobs are the dead letters).',
    labelNames: ['queue', 'state'] as const,
    registers: [register],
    async collect() {
      this.reset();
      for (const queue of queues) {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'holdfast_queue_oldest_waiting_seconds',
    help: 'Seconds the oldest waiting job of each queue has waited for a worker (0 when none waits): what to autoscale workers on.',
    labelNames: ['queue'] as const,
    registers: [register],
    async collect() {
      this.reset();
      const now = Date.now();
      const ages = await Promise.all(queues.map((queue) => oldestWaitingSeconds(queue, now)));
      for (const [i, queue] of queues.entries()) this.set({ queue: queue.name }, ages[i]);
    },
  });
}

/** Adds the gauges read at scrape time: the queue gauges and the outbox lag. */
export function registerScrapeGauges(queues: Queue[], outboxLag: () => Promise<number>): void {
  if (registry.getSingleMetric('holdfast_queue_jobs')) return;
  registerQueueGauges(queues);
  new Gauge({
    name: 'holdfast_outbox_lag_seconds',
    help: 'Age of the oldest event not yet relayed to webhook deliveries (0 when none waits).',
    registers: [registry],
    async collect() {
      this.set(await outboxLag());
    },
  });
}
