/**
 * Opening the database: create it when missing, connect MikroORM, run the checked-in migrations.
 */
import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from '../../config/mikro-orm.js';

export type Orm = MikroORM;

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL must name a database');
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) {
      try {
        await client.query(`create database "${name.replace(/"/g, '""')}"`);
      } catch (err) {
        // Another process created it between our check and our create (42P04), or at the
        // same moment (23505 on pg_database's name index).
        const code = (err as { code?: string }).code;
        if (code !== '42P04' && code !== '23505') throw err;
      }
    }
  } finally {
    await client.end();
  }
}

/** Connects MikroORM to the database (which must exist). */
export function openOrm(databaseUrl: string, poolMax?: number): Promise<Orm> {
  return MikroORM.init(ormOptions(databaseUrl, poolMax));
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
