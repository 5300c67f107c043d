import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { runEscrowCommand } from '../src/escrow/escrow-phases.service.js';
import { runInvoiceCommand } from '../src/invoices/invoice-phases.service.js';
import type { CommandJob } from '../src/queues/names.js';

/** Runs a command (escrow pay/commit/cancel, invoice pay); its result is stored on the command row. */
export function commandsProcessor(orm: MikroORM) {
  return async (job: Job<CommandJob>): Promise<{ status: number } | null> => {
    const em = orm.em.fork();
    const [row] = await em.execute<Array<{ kind: string }>>('select kind from command where id = ?', [job.data.commandId]);
    if (!row) return null;
    const result = row.kind.startsWith('escrow.') ? await runEscrowCommand(em, job.data.commandId) : await runInvoiceCommand(em, job.data.commandId);
    return result && { status: result.status };
  };
}
