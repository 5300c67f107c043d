/**
 * The environment as a fact of the database (pure): the one line a process prints when its
 * configured environment is not the database's, and why a process runs as what it runs as.
 */
import type { AppEnv, Config } from '../../config/index.js';
import { sandboxRails } from '../rails/rail-choice.rules.js';

/** Why the configured environment is what it is, for the banner and the refusals. */
export function environmentReason(config: Pick<Config, 'appEnv' | 'appEnvFrom'>): string {
  if (config.appEnvFrom === 'APP_ENV') return `APP_ENV=${config.appEnv}`;
  if (config.appEnvFrom === 'NODE_ENV') return 'NODE_ENV=production, APP_ENV unset';
  return 'the default: APP_ENV unset, NODE_ENV not production';
}

/** The refusal of a process whose configured environment is not the database's, or null when they agree. */
export function environmentMismatch(recorded: AppEnv, config: Pick<Config, 'appEnv' | 'appEnvFrom'>, database: string): string | null {
  if (recorded === config.appEnv) return null;
  return `database "${database}" is a ${recorded} database, but this process is configured for ${config.appEnv} (${environmentReason(config)}): set APP_ENV=${recorded} to serve it, or point DATABASE_URL at a ${config.appEnv} database`;
}

/** The refusal of production while a money rail is on its sandbox adapter, or null. */
export function productionOnSandbox(config: Pick<Config, 'appEnv' | 'appEnvFrom' | 'rails'>): string | null {
  if (config.appEnv !== 'production') return null;
  const sandbox = sandboxRails(config.rails);
  if (!sandbox.length) return null;
  return `production (${environmentReason(config)}) refuses the sandbox money rails: set ${sandbox.map((v) => `${v}`).join(', ')} to a real adapter (docs/operations.md, "Money rails")`;
}
