/** The merge module's command runner: an account merge. */
import type { CommandRunners } from '../commands/command.registry.js';
import { runMergeCommand } from './merge.service.js';

export const mergeCommands: CommandRunners = {
  'account.merge': runMergeCommand,
};
