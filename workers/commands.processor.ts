import { UnrecoverableError, type Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import {
  commandRegistry,
  isCommandKind,
  type CommandRegistry,
  type CommandResult,
  type CommandRunners,
} from '../src/commands/command.registry.js';
import { runCommandWith } from '../src/commands/command.service.js';
import { escrowCommands } from '../src/escrow/escrow.commands.js';
import { invoiceCommands } from '../src/invoices/invoice.commands.js';
import { payoutCommands } from '../src/payouts/payout.commands.js';
import { mergeCommands } from '../src/merge/merge.commands.js';
import { tokenCommands } from '../src/tokens/tokens.commands.js';
import type { CommandJob } from '../src/queues/names.js';
import { commandDuration } from '../src/runtime/metrics.js';
import type { CommandBus } from '../src/queues/command-bus.js';

/** Each module's command runners, by module; `commandRegistry` checks them at boot. */
export const COMMAND_RUNNERS: Record<string, CommandRunners> = {
  escrow: escrowCommands,
  invoices: invoiceCommands,
  merge: mergeCommands,
  payouts: payoutCommands,
  tokens: tokenCommands,
};

/**
 * Runs a command (escrow pay/commit/cancel, invoice pay and refund, account merge, payouts, token exchange) with its kind's runner.
 * Its result is stored on the command row (by the runner, or from the AppError it threw), handed
 * to the request waiting for it (`CommandBus.finished`) and returned (the job's return value, as
 * Bull Board shows it).
 */
export function commandsProcessor(orm: MikroORM, bus: CommandBus, registry: CommandRegistry = commandRegistry(COMMAND_RUNNERS)) {
  return async (job: Job<CommandJob>): Promise<CommandResult | null> => {
    const { commandId, kind } = job.data;
    // A job no runner knows cannot succeed by retrying.
    if (!isCommandKind(kind)) throw new UnrecoverableError(`command ${commandId} has an unknown kind: ${kind}`);
    const started = performance.now();
    const result = await runCommandWith(registry[kind], orm.em.fork(), commandId);
    if (result) {
      const { next, ...reply } = result;
      bus.finished(commandId, reply);
      for (const follow of next ?? []) await bus.enqueue(follow.commandId, follow.kind);
    }
    commandDuration.observe({ kind, status: String(result?.status ?? 404) }, (performance.now() - started) / 1000);
    return result;
  };
}
