/**
 * The environment is a fact of the database: every process (web, worker, CLI, release) reads it
 * before serving anything and refuses one it is not configured for, so a staging database (its
 * demo client, sandbox funds) is never served as production, nor a production one driven by a
 * CLI that thinks it is staging. Production also refuses the sandbox money rails.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConfigError, type AppEnv, type Config } from '../../config/index.js';
import { db as pooled } from '../db/sql.js';
import { recordedEnvironmentBeforeMigrating, recordEnvironment } from './environment.repository.js';
import { environmentMismatch, productionOnSandbox } from './environment.rules.js';

/** A process may not run here: its configuration against the database's environment, or production on a sandbox rail. */
export class EnvironmentRefusal extends ConfigError {}

/** Refuses production on a sandbox money rail (before anything is opened). */
export function assertRailsFor(config: Pick<Config, 'appEnv' | 'appEnvFrom' | 'rails'>): void {
  const refusal = productionOnSandbox(config);
  if (refusal) throw new EnvironmentRefusal(refusal);
}

/**
 * Before a process migrates: refuses a database already recorded as the other environment, so
 * that a staging checkout never applies its migrations to a production database (or the reverse).
 */
export async function assertEnvironmentBeforeMigrating(
  em: EntityManager,
  config: Pick<Config, 'appEnv' | 'appEnvFrom' | 'rails'>,
  databaseUrl: string,
): Promise<void> {
  assertRailsFor(config);
  const recorded = await recordedEnvironmentBeforeMigrating(pooled(em));
  const mismatch = recorded && environmentMismatch(recorded, config, databaseName(databaseUrl));
  if (mismatch) throw new EnvironmentRefusal(mismatch);
}

const databaseName = (databaseUrl: string) => decodeURIComponent(new URL(databaseUrl).pathname.slice(1));

/**
 * The database's environment, recorded as the configured one when the database has none yet (the
 * first process to open it); refuses a process configured for the other one, naming both.
 * `recordedBy` says who records it (`holdfast migrate`, `web`…).
 */
export async function settleEnvironment(
  em: EntityManager,
  config: Pick<Config, 'appEnv' | 'appEnvFrom' | 'rails'>,
  databaseUrl: string,
  recordedBy: string,
): Promise<AppEnv> {
  assertRailsFor(config);
  const recorded = await recordEnvironment(pooled(em), config.appEnv, recordedBy);
  const mismatch = environmentMismatch(recorded, config, databaseName(databaseUrl));
  if (mismatch) throw new EnvironmentRefusal(mismatch);
  return recorded;
}
