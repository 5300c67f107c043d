/** environment: the database's one recorded environment (hand-written SQL; one row at most). */
import type { AppEnv } from '../../config/index.js';
import type { Db } from '../db/sql.js';

/** The recorded environment, or undefined before the first process records one. */
export async function recordedEnvironment(db: Db): Promise<AppEnv | undefined> {
  const [row] = await db.execute<Array<{ name: AppEnv }>>('select name from environment');
  return row?.name;
}

/** The recorded environment of a database that may not be migrated that far yet (no table: undefined). */
export async function recordedEnvironmentBeforeMigrating(db: Db): Promise<AppEnv | undefined> {
  const [table] = await db.execute<Array<{ exists: boolean }>>("select to_regclass('environment') is not null as exists");
  return table?.exists ? recordedEnvironment(db) : undefined;
}

/** Records `name` when nothing is recorded yet (the first process to open a new database); answers what is recorded. */
export async function recordEnvironment(db: Db, name: AppEnv, by: string): Promise<AppEnv> {
  await db.execute('insert into environment (name, recorded_by) values (?, ?) on conflict (only_row) do nothing', [name, by]);
  const recorded = await recordedEnvironment(db);
  if (!recorded) throw new Error('the environment could not be recorded');
  return recorded;
}
