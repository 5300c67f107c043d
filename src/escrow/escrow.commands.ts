/** The escrow module's command runners: pay, commit and cancel all run through the batched escrow phases. */
import type { CommandRunners } from '../commands/command.registry.js';
import type { CardProcessor } from '../rails/card-processor.port.js';
import { sandboxCardProcessor } from '../rails/sandbox-card.adapter.js';
import { escrowRunnerWith, runEscrowCommand } from './escrow-phases.service.js';

/** The escrow module's runners, paying and refunding cards through `cards`. */
export function escrowCommandsWith(cards: CardProcessor): CommandRunners {
  // The sandbox's runner is shared, so every batch of a process runs through one batcher.
  const run = cards === sandboxCardProcessor ? runEscrowCommand : escrowRunnerWith(cards);
  return {
    'escrow.pay': run,
    'escrow.commit': run,
    'escrow.cancel': run,
  };
}

/** The escrow module's runners on the sandbox card processor. */
export const escrowCommands: CommandRunners = escrowCommandsWith(sandboxCardProcessor);
