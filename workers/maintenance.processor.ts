import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MaintenanceJob } from '../src/queues/names.js';
import { purgeExpiredIdempotencyKeys } from '../src/http/idempotency.js';

/** Housekeeping jobs: today, dropping idempotency keys past their 24 h retention. */
export function maintenanceProcessor(orm: MikroORM) {
  return async (job: Job): Promise<{ purged: number }> => {
    switch (job.name) {
      case MaintenanceJob.PurgeIdempotencyKeys:
        return { purged: await purgeExpiredIdempotencyKeys(orm.em.fork()) };
      default:
        throw new Error(`unknown maintenance job ${job.name}`);
    }
  };
}
