import { UnrecoverableError, type Job } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { isCommandKind, type CommandRegistry, type CommandResult, type CommandRunners } from '../src/commands/command.registry.js';
import { runCommandWith } from '../src/commands/command.service.js';
import { escrowCommandsWith } from '../src/escrow/escrow.commands.js';
import { invoiceCommandsWith } from '../src/invoices/invoice.commands.js';
import { payoutCommandRunners, reversePayoutForDispute } from '../src/payouts/payout.commands.js';
import type { RailAdapters } from '../src/rails/rail-adapters.js';
import { refundCommandsWith } from '../src/refunds/refund.commands.js';
import { sandboxCardProcessor } from '../src/rails/sandbox-card.adapter.js';
import { sandboxPayoutRail } from '../src/rails/sandbox-payout.adapter.js';
import { mergeCommands } from '../src/merge/merge.commands.js';
import { tokenCommands } from '../src/tokens/tokens.commands.js';
import { disputeCommandsWith } from '../src/disputes/dispute.commands.js';
import { lockEscrowStatus } from '../src/escrow/escrow.repository.js';
import { lockPayoutStatus } from '../src/payouts/payout.repository.js';
import { providerEventCommands } from '../src/provider-events/provider-event.commands.js';
import { commandsOf, type CommandJob, type CommandRef } from '../src/queues/names.js';
import { commandDuration } from '../src/runtime/metrics.js';
import { currentTraceparent, inSpan } from '../src/runtime/tracing-hooks.js';
import type { CommandBus } from '../src/queues/command-bus.js';

/** Each module's command runners, by module, those that move money on the rails' adapters in `rails`; `commandRegistry` checks them at boot. */
export function commandRunners(rails: Pick<RailAdapters, 'cards' | 'payouts'>): Record<string, CommandRunners> {
  return {
    escrow: escrowCommandsWith(rails.cards),
    invoices: invoiceCommandsWith(rails.cards),
    merge: mergeCommands,
    payouts: payoutCommandRunners(rails.payouts),
    'provider-events': providerEventCommands,
    refunds: refundCommandsWith(rails.cards),
    tokens: tokenCommands,
    disputes: disputeCommandsWith({ lockEscrowStatus, lockPayoutStatus, reversePayout: reversePayoutForDispute }),
  };
}

/** Each module's command runners on the sandbox rails. */
export const COMMAND_RUNNERS: Record<string, CommandRunners> = commandRunners({ cards: sandboxCardProcessor, payouts: sandboxPayoutRail });

/**
 * Runs a command (escrow pay/commit/cancel, invoice pay and refund, account merge, payouts, token exchange, provider events) with its kind's runner.
 * Its result is stored on the command row (by the runner, or from the AppError it threw), handed
 * to the request waiting for it (`CommandBus.finished`) and returned (the job's return value, as
 * Bull Board shows it).
 */
export function commandsProcessor(orm: MikroORM, bus: CommandBus, registry: CommandRegistry) {
  // Each command runs in a span of the trace of the request that made it (tracing on).
  const run = (ref: CommandRef): Promise<CommandResult | null> =>
    inSpan(`command ${ref.kind}`, ref.traceparent, { 'holdfast.command_id': ref.commandId, 'holdfast.command_kind': ref.kind }, () =>
      runOne(ref),
    );
  const runOne = async ({ commandId, kind }: CommandRef): Promise<CommandResult | null> => {
    // A job no runner knows cannot succeed by retrying.
    if (!isCommandKind(kind)) throw new UnrecoverableError(`command ${commandId} has an unknown kind: ${kind}`);
    const started = performance.now();
    const result = await runCommandWith(registry[kind], orm.em.fork(), commandId);
    if (result) {
      const { next, ...reply } = result;
      bus.finished(commandId, reply);
      for (const follow of next ?? []) await bus.enqueue(follow.commandId, follow.kind, currentTraceparent());
    }
    commandDuration.observe({ kind, status: String(result?.status ?? 404) }, (performance.now() - started) / 1000);
    return result;
  };
  return async (job: Job<CommandJob>): Promise<CommandResult | null | Array<CommandResult | null>> => {
    if (!('commands' in job.data)) return run(job.data);
    // A batch's commands start together (an escrow runner then takes them in one statement).
    // When one fails, the job fails and runs again: the commands already done answer from
    // their rows; an unknown kind fails the batch for good and the sweeper requeues the rest
    // one by one.
    const settled = await Promise.allSettled(commandsOf(job.data).map(run));
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<CommandResult | null>).value);
  };
}
