import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MaintenanceJob } from '../src/queues/names.js';
import { purgeExpiredIdempotencyKeys } from '../src/http/idempotency.js';
import { stalledCommands } from '../src/commands/command.service.js';
import type { CommandBus } from '../src/queues/command-bus.js';

/**
 * Housekeeping on a schedule: re-enqueue commands whose job was lost (the sweeper), and drop
 * idempotency keys past their 24 h retention.
 */
export function maintenanceProcessor(orm: MikroORM, bus: CommandBus, sweepAfterMs: number) {
  return async (job: Job): Promise<Record<string, number>> => {
    switch (job.name) {
      case MaintenanceJob.PurgeIdempotencyKeys:
        return { purged: await purgeExpiredIdempotencyKeys(orm.em.fork()) };
      case MaintenanceJob.SweepCommands: {
        const stalled = await stalledCommands(orm.em.fork(), sweepAfterMs);
        for (const command of stalled) await bus.requeue(command.id, command.kind);
        return { requeued: stalled.length };
      }
      default:
        throw new Error(`unknown maintenance job ${job.name}`);
    }
  };
}
