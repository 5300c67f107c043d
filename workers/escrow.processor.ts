import type { Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { runEscrowCommand } from '../src/escrow/escrow-phases.service.js';
import type { CommandJob } from '../src/queues/names.js';

/** Runs an escrow command (pay, commit, cancel); its result is stored on the command row. */
export function escrowProcessor(orm: MikroORM) {
  return async (job: Job<CommandJob>): Promise<{ status: number } | null> => {
    const result = await runEscrowCommand(orm.em.fork(), job.data.commandId);
    return result && { status: result.status };
  };
}
