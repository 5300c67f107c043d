/**
 * Parameterised queries straight on a pooled pg connection, for the hottest reads. MikroORM's
 * `execute` inlines parameters and goes through knex's query builder and logging on every
 * call; here the statement is prepared once per connection (pg named statements) and values
 * travel as protocol parameters. Same pool and same transactions rules as the ORM: use it for
 * single-statement reads outside transactions only.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

interface PgConnection {
  query<R>(config: { name?: string; text: string; values?: unknown[] }): Promise<{ rows: R[] }>;
}

/** Runs one prepared read on a connection borrowed from the ORM's pool. */
export async function preparedRead<R>(em: EntityManager, name: string, text: string, values: unknown[]): Promise<R[]> {
  const client = em.getConnection().getKnex().client as {
    acquireConnection(): Promise<PgConnection>;
    releaseConnection(connection: PgConnection): Promise<void>;
  };
  const connection = await client.acquireConnection();
  try {
    return (await connection.query<R>({ name, text, values })).rows;
  } finally {
    await client.releaseConnection(connection);
  }
}
