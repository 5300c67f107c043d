import assert from 'node:assert/strict';
import { DatabaseSchema, SchemaComparator, type MikroORM } from '@mikro-orm/postgresql';
import { h } from '../support/harness.js';

/**
 * What MikroORM would change to make the migrated database match the entities, as SQL ('' when
 * they agree). Compared: tables, columns (type, length, nullability, default), enum values,
 * primary keys, unique constraints and indexes (partial and functional ones by name, which is
 * how MikroORM compares an index it cannot parse). Left to the migrations, and stripped from
 * both sides here:
 * - CHECK constraints: PostgreSQL stores `x in ('a', 'b')` as `x = ANY (ARRAY[…])`, which
 *   MikroORM's text comparison never matches, and most of ours span columns;
 * - foreign keys: most entities keep referenced ids as plain columns (services write ids, not
 *   references), and the escrow ↔ invoice keys are deferrable;
 * - triggers and functions (ledger balances, append-only rules, the outbox notification): no
 *   entity can state them, and MikroORM does not read them.
 */
async function schemaDrift(orm: MikroORM, tamper?: (db: DatabaseSchema) => void): Promise<string> {
  const platform = orm.em.getPlatform();
  const generator = orm.getSchemaGenerator() as unknown as {
    getTargetSchema(): DatabaseSchema;
    diffToSQL(diff: unknown, options: object): Promise<string>;
  };
  const database = await DatabaseSchema.create(orm.em.getConnection(), platform, orm.config);
  const entities = generator.getTargetSchema();
  tamper?.(database);
  for (const table of [...database.getTables(), ...entities.getTables()]) {
    const internals = table as unknown as { foreignKeys: object; checks: unknown[] };
    internals.foreignKeys = {};
    internals.checks = [];
  }
  // MikroORM reads `check (allow_negative = (kind = 'token_issuance'))` as an enum of that
  // boolean column; a boolean is never an enum.
  for (const table of database.getTables()) {
    for (const column of table.getColumns()) {
      if (column.type !== 'bool' || !column.enumItems) continue;
      delete column.enumItems;
      column.mappedType = entities.getTable(table.name)?.getColumn(column.name)?.mappedType ?? column.mappedType;
    }
  }
  const diff = new SchemaComparator(platform).compare(database, entities);
  const sql = await generator.diffToSQL(diff, { wrap: false, safe: false, dropTables: true });
  return sql.trim();
}

describe('entities and migrations', () => {
  it('agree: MikroORM finds nothing to change in the migrated database', async () => {
    assert.equal(await schemaDrift(h().orm), '', 'an entity drifted from the migrations: change the entity (or add a migration)');
  });

  it('would notice a column an entity does not know, a changed type and a missing index', async () => {
    const drift = await schemaDrift(h().orm, (db) => {
      const account = db.getTable('account')!;
      account.addColumn({ name: 'nickname', type: 'varchar(20)', nullable: true } as never);
      account.getColumn('username')!.type = 'varchar(32)';
      const invoice = db.getTable('invoice')! as unknown as { indexes: Array<{ keyName: string }> };
      invoice.indexes = invoice.indexes.filter((index) => index.keyName !== 'invoice_account_idx');
    });
    assert.match(drift, /"account" drop column "nickname"/);
    assert.match(drift, /"account" alter column "username" type varchar\(64\)/);
    assert.match(drift, /create index "invoice_account_idx"/);
  });
});
