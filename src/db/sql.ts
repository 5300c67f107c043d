/**
 * How code runs a statement: one type, `Db`. Statements are written with `?` placeholders (as
 * for MikroORM's `em.execute`). `db(em)` runs them on a pooled pg connection of the ORM's own
 * pool, each prepared once per connection — the hot paths (profile reads, escrow creation,
 * command requests, every worker phase) need that: a statement through the ORM costs several
 * times its round trip in CPU. `emDb(em)` runs them through an EntityManager, for SQL inside a
 * MikroORM transaction. MikroORM itself (`em.find`, `em.create`…) stays for simple entity CRUD.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import Cursor from 'pg-cursor';

export interface Db {
  /** Runs one statement; resolves to its rows (typed by the caller: the driver returns them untyped). */
  // biome-ignore lint/suspicious/noExplicitAny: rows arrive untyped from the driver; a caller that reads them names their type
  execute<T = any>(sql: string, params?: readonly unknown[]): Promise<T>;
  /** Runs `work` in one transaction (rolled back on any error); inside one, `work` joins it. */
  transaction<T>(work: (tx: Db) => Promise<T>): Promise<T>;
}

interface PgConnection {
  query(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
}

const converted = new Map<string, { name?: string; text: string }>();

/**
 * Whether a statement may run prepared. Not when a result is a table's `*`: it would change shape
 * when a migration adds a column under a running process, and PostgreSQL refuses a prepared
 * statement whose result changed. A `*` over rows whose columns the statement itself defines
 * (`select * from jsonb_to_recordset(?) as v (id varchar, …)`, `unnest(…) as v (…)`) is stable;
 * the flows read every batch that way, and planning them at each call cost more than running them.
 */
export function preparable(text: string): boolean {
  const stars = text.match(/\b(?:select|returning)\s+(?:\w+\.)?\*(?:\s+from\s+\w+)?/gi) ?? [];
  return stars.every((star) => /\sfrom\s+(?:jsonb_to_recordset|json_to_recordset|unnest)$/i.test(star));
}

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
    statement = converted.size < 2_000 && preparable(text) ? { name: `hf${converted.size}`, text } : { text };
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

/** A `Db` on the ORM's pool: each statement on a borrowed connection (autocommit); `transaction` holds one connection. */
export function db(em: EntityManager): Db {
  const client = pool(em);
  return {
    async execute<R>(sql: string, params: readonly unknown[] = []): Promise<R> {
      const connection = await client.acquireConnection();
      try {
        return (await connection.query({ ...toPg(sql), values: params as unknown[] })).rows as R;
      } finally {
        await client.releaseConnection(connection);
      }
    },
    async transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
      const connection = await client.acquireConnection();
      const tx: Db = {
        async execute<R>(sql: string, params: readonly unknown[] = []): Promise<R> {
          return (await connection.query({ ...toPg(sql), values: params as unknown[] })).rows as R;
        },
        transaction: (inner) => inner(tx),
      };
      try {
        await connection.query({ text: 'begin' });
        const result = await work(tx);
        await connection.query({ text: 'commit' });
        return result;
      } catch (err) {
        await connection.query({ text: 'rollback' }).catch(() => undefined);
        throw err;
      } finally {
        await client.releaseConnection(connection);
      }
    },
  };
}

/** An array as PostgreSQL's array text (`{"a","b",NULL}`), for a `?::type[]` parameter. */
function arrayLiteral(values: readonly unknown[]): string {
  const item = (v: unknown) => (v === null || v === undefined ? 'NULL' : `"${String(v).replace(/[\\"]/g, '\\$&')}"`);
  return `{${values.map(item).join(',')}}`;
}

/**
 * A `Db` through an EntityManager: its statements join the EntityManager's transaction, if any.
 * Knex would spread an array parameter into a list; it is sent as array text instead, so the
 * same `?::varchar[]` statements run on either `Db`.
 */
export function emDb(em: EntityManager): Db {
  return {
    execute: (sql, params = []) =>
      em.execute(
        sql,
        params.map((p) => (Array.isArray(p) ? arrayLiteral(p) : p)),
      ) as Promise<never>,
    transaction: (work) => em.transactional((tx) => work(emDb(tx))),
  };
}

/**
 * A `Db` on the pool for a read that joins no transaction: the given `Db`, or `db(em)` for an
 * EntityManager (its pool, not its unit of work).
 */
export function readDb(source: Db | EntityManager): Db {
  return 'getConnection' in source ? db(source) : source;
}

/** SQL rendering a timestamptz column as the API's ISO 8601 UTC text (`2026-11-26T02:12:17.000Z`). */
export function isoTimestampSql(column: string): string {
  return `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/** For code that runs either inside a plain-SQL transaction or a MikroORM one: a `Db` for either. */
export function asDb(target: Db | EntityManager): Db {
  return 'getConnection' in target ? emDb(target) : target;
}

/**
 * The rows of one statement through a PostgreSQL cursor, `batchSize` at a time, for answers that
 * stream however many rows there are (exports): memory holds one batch, not the result. The
 * cursor holds one connection of the ORM's pool (and one snapshot: every batch comes from the
 * same moment) until the last batch is read or the caller stops early (`return`/`throw` out of
 * the loop), when it is closed and the connection given back.
 */
export async function* cursorRows<T>(
  em: EntityManager,
  sql: string,
  params: readonly unknown[] = [],
  batchSize = 1000,
): AsyncGenerator<T[]> {
  const client = pool(em);
  const connection = (await client.acquireConnection()) as PgConnection & { query(cursor: Cursor): Cursor };
  const { text } = toPg(sql);
  const cursor = connection.query(new Cursor(text, params as unknown[]));
  let broken = false;
  try {
    for (;;) {
      let rows: T[];
      try {
        rows = (await cursor.read(batchSize)) as T[];
      } catch (err) {
        broken = true;
        throw err;
      }
      if (rows.length === 0) return;
      yield rows;
      if (rows.length < batchSize) return;
    }
  } finally {
    if (!broken) await cursor.close().catch(() => undefined);
    await client.releaseConnection(connection);
  }
}
