/**
 * Prometheus metrics (prom-client), served at `/metrics`: HTTP latency per route, command
 * durations, webhook attempts by outcome (these three count what this process did), and —
 * read from Redis and PostgreSQL at each scrape, so they cover every process — jobs per queue
 * and state, and the outbox lag. Who may read them (admin password, METRICS_TOKEN, open only in
 * staging): src/http/operations-routes.ts.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Queue } from 'bullmq';

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

const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized'] as const;

/** Adds the gauges read at scrape time: jobs per queue and state, and the outbox lag. */
export function registerScrapeGauges(queues: Queue[], outboxLag: () => Promise<number>): void {
  if (registry.getSingleMetric('holdfast_queue_jobs')) return;
  new Gauge({
    name: 'holdfast_queue_jobs',
    help: 'Jobs per BullMQ queue and state (failed webhook jobs are the dead letters).',
    labelNames: ['queue', 'state'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const queue of queues) {
        const counts = await queue.getJobCounts(...QUEUE_STATES);
        for (const state of QUEUE_STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }
    },
  });
  new Gauge({
    name: 'holdfast_outbox_lag_seconds',
    help: 'Age of the oldest event not yet relayed to webhook deliveries (0 when none waits).',
    registers: [registry],
    async collect() {
      this.set(await outboxLag());
    },
  });
}
