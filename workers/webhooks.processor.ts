import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { QueueName, type WebhookJob } from '../src/queues/names.js';
import type { Logger } from '../src/runtime/logger.js';
import { webhookAttempts, webhookDeliveryLag } from '../src/runtime/metrics.js';
import { inSpan } from '../src/runtime/tracing-hooks.js';
import { deliveryAttempts, type DeliveryPolicy } from '../src/webhooks/delivery.service.js';

/**
 * Makes one attempt of a webhook delivery. A retry delays this same job until the row's next
 * attempt (DelayedError); a given-up delivery fails the job for good (the dead-letter list).
 */
export function webhooksProcessor(orm: MikroORM, policy: DeliveryPolicy, logger: Logger) {
  const attempt = deliveryAttempts(orm.em.fork(), policy);
  return async (job: Job<WebhookJob>, token?: string) => {
    // Each attempt is a span in its event's trace (tracing on).
    const result = await inSpan(
      'webhook delivery',
      job.data.traceparent,
      { 'holdfast.delivery_id': job.data.deliveryId, 'holdfast.event_id': String(job.id).split('.')[0] },
      async (annotate) => {
        const outcome = await attempt(job.data.deliveryId);
        annotate({ 'holdfast.outcome': outcome.outcome });
        return outcome;
      },
    );
    if (result.outcome !== 'skipped') webhookAttempts.inc({ outcome: result.outcome });
    const log = { job_id: job.id, event_id: String(job.id).split('.')[0], delivery_id: job.data.deliveryId, outcome: result.outcome };
    if (result.outcome === 'retry') {
      logger.info({ ...log, error: result.error, detail: result.detail, retry_in_ms: result.delayMs }, 'webhook attempt failed; retrying');
      await job.moveToDelayed(Date.now() + result.delayMs, token);
      throw new DelayedError();
    }
    if (result.outcome === 'dead') {
      logger.warn({ ...log, error: result.error, detail: result.detail }, 'webhook delivery dead-lettered');
      throw new UnrecoverableError(`dead-lettered: ${result.error}`);
    }
    if (result.outcome === 'delivered')
      webhookDeliveryLag.observe({ queue: QueueName.Webhooks }, Math.max(0, Date.now() - job.timestamp) / 1000);
    logger.debug(log, 'webhook delivery');
    return result;
  };
}
