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
        // Another process created it between our check and our create.
        if ((err as { code?: string }).code !== '42P04') throw err;
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

/** Applies every pending checked-in migration; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((m) => m.name);
}
