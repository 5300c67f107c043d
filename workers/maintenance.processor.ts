import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MaintenanceJob } from '../src/queues/names.js';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/idempotency.repository.js';
import { db } from '../src/db/sql.js';
import { stalledCommands } from '../src/commands/command.service.js';
import type { CommandBus } from '../src/queues/command-bus.js';
import type { WebhookBus } from '../src/queues/webhook-bus.js';
import { overdueDeliveries, purgeWebhookHistory } from '../src/webhooks/relay.service.js';

/**
 * Housekeeping on a schedule: re-enqueue commands and webhook deliveries whose job was lost
 * (the sweepers), and drop idempotency keys past their 24 h retention and webhook history past
 * its 30 days.
 */
export function maintenanceProcessor(
  orm: MikroORM,
  bus: CommandBus,
  webhookBus: WebhookBus,
  opts: { commandSweepAfterMs: number; deliverySweepAfterMs: number },
) {
  return async (job: Job): Promise<Record<string, number>> => {
    switch (job.name) {
      case MaintenanceJob.PurgeIdempotencyKeys:
        return { purged: await purgeExpiredIdempotencyKeys(db(orm.em.fork())) };
      case MaintenanceJob.SweepCommands: {
        const stalled = await stalledCommands(orm.em.fork(), opts.commandSweepAfterMs);
        for (const command of stalled) await bus.requeue(command.id, command.kind);
        return { requeued: stalled.length };
      }
      case MaintenanceJob.PurgeWebhookHistory:
        return { purged: await purgeWebhookHistory(orm.em.fork()) };
      case MaintenanceJob.SweepDeliveries: {
        let requeued = 0;
        for (const d of await overdueDeliveries(orm.em.fork(), opts.deliverySweepAfterMs)) {
          if (await webhookBus.requeue(d.deliveryId, d.jobId)) requeued += 1;
        }
        return { requeued };
      }
      default:
        throw new Error(`unknown maintenance job ${job.name}`);
    }
  };
}
