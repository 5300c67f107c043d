/**
 * account_block and account_tag. Hand-written SQL: the block insert is ON CONFLICT on a partial
 * unique index (blocking twice is a no-op), the records are built as JSON in the statement, and
 * the profile read and the money checks take these tables into their one statement through
 * the fragments below.
 */
import type { Db } from '../db/sql.js';
import { isoTimestampSql } from '../db/sql.js';
import { TRANSACTION_BLOCKS, type BlockRecord, type Capability, type Issuer, type Reason } from './account-block.rules.js';

/** A block record (JSON) of the `account_block` row aliased `b`. */
const BLOCK_RECORD_SQL = `json_build_object('block_id', b.id, 'account_id', b.account_id, 'capability', b.capability,
  'issuer', b.issuer, 'reason', b.reason, 'note', b.note, 'status', b.status, 'created', ${isoTimestampSql('b.created_at')})`;

/** Fragment: the active block records (a JSON array, oldest first) of the account an SQL expression names. */
export function activeBlocksJsonSql(accountExpression: string): string {
  return `coalesce((select json_agg(${BLOCK_RECORD_SQL} order by b.created_at, b.id) from account_block b
               where b.account_id = ${accountExpression} and b.status = 'active'), '[]')`;
}

/** Fragment: the tag records (a JSON array, oldest first) of the account an SQL expression names; `integratorName` is an SQL expression too. */
export function tagsJsonSql(accountExpression: string, integratorName: string): string {
  return `coalesce((select json_agg(json_build_object('tag_id', t.id, 'account_id', t.account_id, 'resource_id', t.resource_id,
                'resource_type', t.resource_type, 'namespace', t.namespace, 'tag', t.tag, 'status', t.status, 'integrator', ${integratorName},
                'created', ${isoTimestampSql('t.created_at')}, 'updated', ${isoTimestampSql('t.updated_at')}) order by t.created_at, t.id)
               from account_tag t where t.account_id = ${accountExpression}), '[]')`;
}

/**
 * Fragment: the condition "an active block stops this account buying or selling" (`login` or
 * `transactions`), for the account an SQL expression names; every such check uses it.
 */
export function transactionBlockedSql(accountExpression: string): string {
  return `exists (select 1 from account_block b where b.account_id = ${accountExpression} and b.status = 'active'
                   and b.capability in (${TRANSACTION_BLOCKS.map((c) => `'${c}'`).join(', ')}))`;
}

/** Fragment: the condition "this account was merged into another" (an active `login` block with reason `merge_account`). */
export function mergedAccountSql(accountExpression: string): string {
  return `exists (select 1 from account_block b where b.account_id = ${accountExpression} and b.status = 'active'
                   and b.capability = 'login' and b.reason = 'merge_account')`;
}

/** Active blocks of an account, oldest first. */
export async function activeBlocks(db: Db, accountId: string): Promise<BlockRecord[]> {
  const rows = await db.execute<Array<{ record: BlockRecord }>>(
    `select ${BLOCK_RECORD_SQL} as record from account_block b where b.account_id = ? and b.status = 'active' order by b.created_at, b.id`,
    [accountId],
  );
  return rows.map((r) => r.record);
}

/**
 * Adds an active block; false when one of that capability is already active (nothing changes).
 * Its time is when the statement runs, not when the transaction began: the account row is locked
 * by then, so a user token issued under the account's lock is older than a login block.
 */
export async function insertActiveBlock(
  db: Db,
  block: {
    id: string;
    integratorId: string;
    accountId: string;
    capability: Capability;
    issuer: Issuer;
    reason: Reason;
    note: string | null;
    clientId: string | null;
  },
): Promise<boolean> {
  const [made] = await db.execute<unknown[]>(
    `insert into account_block (id, account_id, integrator_id, capability, issuer, reason, note, status, created_by, created_at)
     values (?, ?, ?, ?, ?, ?, ?, 'active', ?, clock_timestamp())
     on conflict (account_id, capability) where status = 'active' do nothing returning id`,
    [block.id, block.accountId, block.integratorId, block.capability, block.issuer, block.reason, block.note, block.clientId],
  );
  return made !== undefined;
}

/** Marks a block removed (it stays as history). */
export async function markBlockRemoved(db: Db, blockId: string, removedBy: string | null): Promise<void> {
  await db.execute(`update account_block set status = 'removed', removed_at = now(), removed_by = ?, updated_at = now() where id = ?`, [
    removedBy,
    blockId,
  ]);
}

/** Which of these accounts an active block stops from transacting. */
export async function transactionBlockedAmong(db: Db, accountIds: string[]): Promise<Set<string>> {
  const rows = await db.execute<Array<{ id: string }>>(
    `select t.id from unnest(?::varchar[]) as t(id) where ${transactionBlockedSql('t.id')}`,
    [accountIds],
  );
  return new Set(rows.map((r) => r.id));
}

/** Whether the account's `login` capability is blocked. */
export async function loginBlockActive(db: Db, accountId: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>(
    `select 1 from account_block where account_id = ? and capability = 'login' and status = 'active'`,
    [accountId],
  );
  return row !== undefined;
}

/**
 * Whether the account's `login` capability is blocked, and when its latest login block (active
 * or removed) was issued: user tokens issued before then never work again.
 */
export async function loginBlockSummary(db: Db, accountId: string): Promise<{ blocked: boolean; lastBlockedAt: Date | null }> {
  const [row] = await db.execute<Array<{ blocked: boolean | null; last: Date | null }>>(
    `select bool_or(status = 'active') as blocked, max(created_at) as last from account_block where account_id = ? and capability = 'login'`,
    [accountId],
  );
  return { blocked: row?.blocked === true, lastBlockedAt: row?.last ? new Date(row.last) : null };
}

/** The active `login` blocks of these accounts (`account_id`, `reason`). */
export function activeLoginBlocks(db: Db, accountIds: string[]): Promise<Array<{ account_id: string; reason: string }>> {
  return db.execute(
    `select account_id, reason from account_block where account_id = any (?::varchar[]) and capability = 'login' and status = 'active'`,
    [accountIds],
  );
}

/** Adds active tags on accounts (each about another resource). */
export async function insertTags(
  db: Db,
  tags: Array<{
    id: string;
    accountId: string;
    integratorId: string;
    resourceId: string;
    resourceType: string;
    namespace: string;
    tag: string;
  }>,
): Promise<void> {
  await db.execute(
    `insert into account_tag (id, account_id, integrator_id, resource_id, resource_type, namespace, tag, status)
     select t.id, t.account_id, t.integrator_id, t.resource_id, t.resource_type, t.namespace, t.tag, 'active'
       from jsonb_to_recordset(?::jsonb) as t (id varchar, account_id varchar, integrator_id varchar, resource_id varchar,
                                              resource_type varchar, namespace varchar, tag varchar)`,
    [
      JSON.stringify(
        tags.map((t) => ({
          id: t.id,
          account_id: t.accountId,
          integrator_id: t.integratorId,
          resource_id: t.resourceId,
          resource_type: t.resourceType,
          namespace: t.namespace,
          tag: t.tag,
        })),
      ),
    ],
  );
}
