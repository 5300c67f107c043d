import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MaintenanceJob } from '../src/queues/names.js';
import { purgeExpiredIdempotencyKeys } from '../src/idempotency/idempotency.repository.js';
import { db } from '../src/db/sql.js';
import { purgeFinishedCommands, stalledCommands } from '../src/commands/command.service.js';
import type { CommandBus } from '../src/queues/command-bus.js';
import { commandsWithUnsettledHolds } from '../src/invoices/card-charges.service.js';
import { cancelsWithOpenRefunds } from '../src/escrow/escrow-phases.service.js';
import type { WebhookBus } from '../src/queues/webhook-bus.js';
import { overdueDeliveries, purgeWebhookHistory } from '../src/webhooks/relay.service.js';
import { runSandboxDisputeClock } from '../src/disputes/dispute.service.js';
import { sealAudit } from '../src/audit/audit.service.js';

/** How long one purge job may keep deleting batches before it leaves the rest to its next run. */
export const PURGE_BUDGET_MS = 20_000;

/**
 * Runs a purge batch after batch — each its own short statement, so no lock is held long —
 * until one comes back short (nothing more is due) or the time budget is spent; how many rows
 * went. At the size the benchmarks seed (a million rows a day), an hourly run keeps up.
 */
export async function drain(batch: () => Promise<number>, budgetMs = PURGE_BUDGET_MS, size?: number): Promise<number> {
  const until = Date.now() + budgetMs;
  let total = 0;
  for (;;) {
    const n = await batch();
    total += n;
    if (n === 0 || (size !== undefined && n < size) || Date.now() >= until) return total;
  }
}

/**
 * Housekeeping on a schedule: re-enqueue commands and webhook deliveries whose job was lost
 * (the sweepers; also done pays whose card holds a provider outage left open), and drop idempotency keys past their 24 h retention, finished commands past
 * their 30 days and webhook history past its 30 days, in batches; seal the audit trail's new records.
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
        return { purged: await drain(() => purgeExpiredIdempotencyKeys(db(orm.em.fork()))) };
      case MaintenanceJob.PurgeCommands:
        return { purged: await drain(() => purgeFinishedCommands(orm.em.fork())) };
      case MaintenanceJob.SweepCommands: {
        const stalled = await stalledCommands(orm.em.fork(), opts.commandSweepAfterMs);
        for (const command of stalled) await bus.requeue(command.id, command.kind, command.traceparent);
        // Done pays whose card holds are still open (the provider was down past their retries) run again to settle them.
        const holding = await commandsWithUnsettledHolds(db(orm.em.fork()), opts.commandSweepAfterMs);
        for (const command of holding) await bus.requeue(command.id, command.kind);
        // Done escrow cancels whose card refunds are not all recorded run again to refund what is left.
        const cancels = await cancelsWithOpenRefunds(db(orm.em.fork()), opts.commandSweepAfterMs);
        for (const command of cancels) await bus.requeue(command.id, command.kind);
        return { requeued: stalled.length, holds: holding.length, cancels: cancels.length };
      }
      case MaintenanceJob.PurgeWebhookHistory:
        return { purged: await drain(() => purgeWebhookHistory(orm.em.fork())) };
      case MaintenanceJob.SweepDeliveries: {
        let requeued = 0;
        for (const d of await overdueDeliveries(orm.em.fork(), opts.deliverySweepAfterMs)) {
          if (await webhookBus.requeue(d.deliveryId, d.jobId)) requeued += 1;
        }
        return { requeued };
      }
      case MaintenanceJob.SandboxDisputeClock:
        return runSandboxDisputeClock(orm.em.fork(), bus);
      case MaintenanceJob.SealAudit:
        return sealAudit(orm.em.fork());
      default:
        throw new Error(`unknown maintenance job ${job.name}`);
    }
  };
}
