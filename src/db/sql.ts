/**
 * Plain SQL on a pooled pg connection (the ORM's own pool), for the hot paths — profile reads,
 * escrow creation, command requests, every worker phase: a statement through the ORM costs
 * several times its round trip in CPU. Statements
 * are written with `?` placeholders (as for MikroORM's `em.execute`), so the same service
 * code runs on either; an EntityManager is itself an Executor.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export interface Executor {
  execute<T = any>(sql: string, params?: any[]): Promise<T>;
}

interface PgConnection {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
}

const converted = new Map<string, { name?: string; text: string }>();

/**
 * `?` placeholders → `$1, $2…` (our statements have no `?` in literals or operators). Each
 * distinct statement gets a name, so every pooled connection parses and plans it once
 * (a prepared statement) instead of at every call; past 2,000 distinct texts (in-lists of many
 * sizes) new ones run unnamed.
 */
function toPg(sql: string): { name?: string; text: string } {
  let statement = converted.get(sql);
  if (statement === undefined) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    // A `*` result would change shape when a migration adds a column under a running process,
    // and PostgreSQL refuses a prepared statement whose result changed: those run unnamed.
    const star = /\b(select|returning)\s+(\w+\.)?\*/i.test(text);
    statement = converted.size < 2_000 && !star ? { name: `hf${converted.size}`, text } : { text };
    if (converted.size < 2_000) converted.set(sql, statement);
  }
  return statement;
}

function pool(em: EntityManager) {
  return em.getConnection().getKnex().client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(connection: PgConnection): Promise<void>;
  };
}

/** Single statements, each on a connection borrowed from the ORM's pool (autocommit). */
export function autocommit(em: EntityManager): Executor {
  const client = pool(em);
  return {
    async execute<R>(sql: string, params: unknown[] = []): Promise<R> {
      const connection = await client.acquireConnection();
      try {
        return (await connection.query({ ...toPg(sql), values: params })).rows as R;
      } finally {
        await client.releaseConnection(connection);
      }
    },
  };
}

/**
 * The hottest reads (account profiles): one statement with `$n` placeholders, prepared once
 * per pooled connection (pg named statements) and run outside any transaction.
 */
export async function preparedRead<R>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<R[]> {
  const client = pool(em);
  const connection = await client.acquireConnection();
  try {
    return (await connection.query({ name, text, values })).rows as R[];
  } finally {
    await client.releaseConnection(connection);
  }
}

/** Runs `work` in one transaction on a connection of the ORM's pool; rolls back on any error. */
export async function inTransaction<T>(em: EntityManager, work: (db: Executor) => Promise<T>): Promise<T> {
  const client = pool(em);
  const connection = await client.acquireConnection();
  const db: Executor = {
    async execute<R>(sql: string, params: unknown[] = []): Promise<R> {
      return (await connection.query({ ...toPg(sql), values: params })).rows as R;
    },
  };
  try {
    await connection.query({ text: 'begin' });
    const result = await work(db);
    await connection.query({ text: 'commit' });
    return result;
  } catch (err) {
    await connection.query({ text: 'rollback' }).catch(() => undefined);
    throw err;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** SQL rendering a timestamptz column as the API's ISO 8601 UTC text (`2026-11-26T02:12:17.000Z`). */
export function isoTimestampSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** Where service code runs statements: a worker's plain-SQL transaction, or an EntityManager. */
export type Sql = Executor | EntityManager;

/** An Executor for either. */
export function executor(target: Sql): Executor {
  if ('getConnection' in target) {
    const em = target;
    return { execute: (sql: string, params: any[] = []) => em.execute(sql, params) as Promise<any> };
  }
  return target;
}
