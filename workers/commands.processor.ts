import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { runEscrowCommand } from '../src/escrow/escrow-phases.service.js';
import { runInvoiceCommand } from '../src/invoices/invoice-phases.service.js';
import { runMergeCommand } from '../src/merge/merge.service.js';
import type { CommandJob } from '../src/queues/names.js';
import type { CommandResult } from '../src/commands/command.service.js';
import { commandDuration } from '../src/runtime/metrics.js';
import type { CommandBus } from '../src/queues/command-bus.js';

/**
 * Runs a command (escrow pay/commit/cancel, invoice pay, account merge). Its result is stored on
 * the command row, handed to the request waiting for it (`CommandBus.finished`) and returned
 * (the job's return value, as Bull Board shows it).
 */
export function commandsProcessor(orm: MikroORM, bus: CommandBus) {
  return async (job: Job<CommandJob>): Promise<CommandResult | null> => {
    const em = orm.em.fork();
    const started = performance.now();
    const run = job.data.kind.startsWith('escrow.') ? runEscrowCommand : job.data.kind === 'account.merge' ? runMergeCommand : runInvoiceCommand;
    const result = await run(em, job.data.commandId);
    if (result) bus.finished(job.data.commandId, result);
    commandDuration.observe({ kind: job.data.kind, status: String(result?.status ?? 404) }, (performance.now() - started) / 1000);
    return result;
  };
}
