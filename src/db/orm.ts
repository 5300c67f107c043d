/**
 * Opening the database: check that PostgreSQL answers, create the database when missing (only
 * for processes that may), connect MikroORM, run the checked-in migrations.
 */
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from '../../config/mikro-orm.js';
import { migrations } from '../migrations/index.js';
import {
  CONNECT_TIMEOUT_MS,
  DatabaseMissingError,
  describePostgresFailure,
  postgresServer,
  ServiceUnavailableError,
} from './postgres-failures.js';

export type Orm = MikroORM;

/** A connected client on the URL, or one line saying why PostgreSQL could not be reached. */
async function connect(databaseUrl: string, variable: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A refused connection also emits 'error'; without a listener that would end the process.
  client.on('error', () => {});
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => {});
    const line = describePostgresFailure(err, databaseUrl, variable);
    if (!line) throw err;
    throw new (pgCode(err) === '3D000' ? DatabaseMissingError : ServiceUnavailableError)(line);
  }
}

function pgCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Checks that PostgreSQL answers for the URL and that its database exists. A missing database is
 * created when `create` (the default: npm start, migrate, commands that write); otherwise it is
 * a DatabaseMissingError, so read-only commands never leave an empty database behind.
 */
export async function ensureDatabase(databaseUrl: string, opts: { create?: boolean; variable?: string } = {}): Promise<void> {
  const variable = opts.variable ?? 'DATABASE_URL';
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new ServiceUnavailableError(`${variable} must name a database`);
  try {
    await (await connect(databaseUrl, variable)).end();
    return;
  } catch (err) {
    if (!(err instanceof DatabaseMissingError) || opts.create === false) throw err;
  }
  url.pathname = '/postgres';
  const client = await connect(url.toString(), variable);
  try {
    await client.query(`create database "${name.replace(/"/g, '""')}"`);
  } catch (err) {
    // Another process created it between our check and our create (42P04), or at the
    // same moment (23505 on pg_database's name index).
    const code = pgCode(err);
    if (code === '42501') {
      throw new ServiceUnavailableError(
        `database "${name}" does not exist on ${postgresServer(databaseUrl)} and user "${decodeURIComponent(url.username) || 'postgres'}" may not create it (${variable}): create it, or grant the user CREATEDB`,
      );
    }
    if (code !== '42P04' && code !== '23505') throw err;
  } finally {
    await client.end();
  }
}

/**
 * Connects MikroORM to the database, which must exist: it is checked first, so an unreachable
 * server or a missing database is one line (MikroORM would create a missing one by itself).
 */
export async function openOrm(databaseUrl: string, poolMax?: number): Promise<Orm> {
  await ensureDatabase(databaseUrl, { create: false });
  return MikroORM.init({ ...ormOptions(databaseUrl, poolMax), ensureDatabase: false });
}

/**
 * The checked-in migrations the database has not applied, read without writing anything (the
 * migrator would create its table first): for commands that must find a database ready.
 */
export async function pendingMigrations(databaseUrl: string): Promise<string[]> {
  const client = await connect(databaseUrl, 'DATABASE_URL');
  try {
    const { rows } = await client.query<{ name: string }>('select name from mikro_orm_migrations');
    const applied = new Set(rows.map((r) => r.name));
    return migrations.map((m) => m.name).filter((name) => !applied.has(name));
  } catch (err) {
    if (pgCode(err) === '42P01') return migrations.map((m) => m.name);
    throw err;
  } finally {
    await client.end();
  }
}

/** Any constant: the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 727_001;

/**
 * Applies every pending checked-in migration; returns the names applied. Several processes
 * may boot at once (web dynos, the release phase): an advisory lock lets one migrate while
 * the others wait, then find nothing left to do.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const lock = new pg.Client({ connectionString: orm.config.getClientUrl() });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  } finally {
    await lock.end();
  }
}
