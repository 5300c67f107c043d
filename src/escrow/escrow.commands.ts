/** The escrow module's command runners: pay, commit and cancel all run through the batched escrow phases. */
import type { CommandRunners } from '../commands/command.registry.js';
import { runEscrowCommand } from './escrow-phases.service.js';

export const escrowCommands: CommandRunners = {
  'escrow.pay': runEscrowCommand,
  'escrow.commit': runEscrowCommand,
  'escrow.cancel': runEscrowCommand,
};
