/** The tokens module's command runner: a token exchange's execution. */
import type { CommandRunners } from '../commands/command.registry.js';
import { runConvertCommand } from './conversion.service.js';

export const tokenCommands: CommandRunners = {
  'token.convert': runConvertCommand,
};
