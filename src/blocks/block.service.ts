/**
 * Account blocks (spec §2.7, §3.2, §5): issue, remove and list, in both API generations, and
 * the checks other modules make before money moves. A change locks the account row, so blocks
 * of one account change one at a time; each change writes `account-block-unblock-webhook` to
 * the outbox in its transaction. Blocking an already blocked capability changes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { integratorProfile, type Principal } from '../auth/auth.service.js';
import { revokeUserSessions } from '../auth/session-revocation.service.js';
import { autocommit, inTransaction, isoTimestampSql, type Executor } from '../db/sql.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import {
  blockedMessage, blocksByCapability, isBlocked, issueDecision, TRANSACTION_BLOCKS, unblockDecision,
  type BlockRecord, type Capability, type Issuer, type Reason,
} from './block.rules.js';

export interface BlockInput {
  account_id: string;
  block_capability: Capability;
  block_reason: Reason;
  note?: string;
}

/** The block response of spec §2.7. */
export interface BlockResponse {
  account_id: string;
  blocks: Partial<Record<Capability, BlockRecord>>;
}

const accountNotFound = () => AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');

/** The SQL that turns an `account_block` row into a block record (JSON). */
export const BLOCK_RECORD_SQL = `json_build_object('block_id', b.id, 'account_id', b.account_id, 'capability', b.capability,
  'issuer', b.issuer, 'reason', b.reason, 'note', b.note, 'status', b.status, 'created', ${isoTimestampSql('b.created_at')})`;

/** Active blocks of an account, oldest first. */
export async function activeBlocks(db: Executor, accountId: string): Promise<BlockRecord[]> {
  const rows = await db.execute<Array<{ record: BlockRecord }>>(
    `select ${BLOCK_RECORD_SQL} as record from account_block b where b.account_id = ? and b.status = 'active' order by b.created_at, b.id`,
    [accountId]);
  return rows.map((r) => r.record);
}

/** Locks the caller's account (blocks of one account change one at a time), or 404. */
async function lockAccount(db: Executor, integratorId: string, accountId: string): Promise<void> {
  const [row] = await db.execute<unknown[]>('select 1 from account where id = ? and integrator_id = ? for update', [accountId, integratorId]);
  if (!row) throw accountNotFound();
}

async function recordChange(
  db: Executor, em: EntityManager, integratorId: string, accountId: string, change: { action: 'block' | 'unblock'; capability: Capability },
): Promise<BlockResponse> {
  const records = await activeBlocks(db, accountId);
  const blocks = blocksByCapability(records);
  const integrator = (await integratorProfile(em, integratorId)).name;
  await insertEvent(db, integratorId, 'account-block-unblock-webhook', {
    account_id: accountId, blocks, is_blocked: isBlocked(records), action: change.action, capability: change.capability, integrator,
  });
  return { account_id: accountId, blocks };
}

/**
 * Blocks a capability in the caller's transaction (the account row already locked). Returns
 * whether a block was made: an active block of that capability is left as it is (no event).
 */
export async function applyBlock(
  db: Executor,
  em: EntityManager,
  block: { integratorId: string; accountId: string; capability: Capability; issuer: Issuer; reason: Reason; note?: string | null; clientId: string | null },
): Promise<boolean> {
  const [made] = await db.execute<unknown[]>(
    `insert into account_block (id, account_id, integrator_id, capability, issuer, reason, note, status, created_by)
     values (?, ?, ?, ?, ?, ?, ?, 'active', ?)
     on conflict (account_id, capability) where status = 'active' do nothing returning id`,
    [newId('blk'), block.accountId, block.integratorId, block.capability, block.issuer, block.reason, block.note ?? null, block.clientId]);
  if (!made) return false;
  // A login block ends the account's user sessions: its refresh tokens stop working.
  if (block.capability === 'login') await revokeUserSessions(db, block.accountId);
  await recordChange(db, em, block.integratorId, block.accountId, { action: 'block', capability: block.capability });
  return true;
}

/** `POST /v2/block`: blocks one capability of an account; blocking it again changes nothing. */
export async function blockAccount(em: EntityManager, principal: Principal, input: BlockInput): Promise<BlockResponse> {
  const decision = issueDecision(principal, input.block_capability, input.block_reason);
  if (!decision.ok) throw AppError.invalid(decision.fields, 'Publishers may only block login with reason account_close.');
  return inTransaction(em, async (db) => {
    await lockAccount(db, principal.integratorId, input.account_id);
    await applyBlock(db, em, {
      integratorId: principal.integratorId, accountId: input.account_id, capability: input.block_capability, issuer: decision.issuer,
      reason: input.block_reason, note: input.note, clientId: principal.clientId,
    });
    return { account_id: input.account_id, blocks: blocksByCapability(await activeBlocks(db, input.account_id)) };
  });
}

/**
 * Removes the active blocks of the given capabilities (all active ones when `capabilities` is
 * undefined), all or nothing: one the caller may not remove → 403 `BLOCK_PERMISSION_ERROR` and
 * nothing changes. A capability that is not blocked is already as asked (no event).
 */
async function removeBlocks(em: EntityManager, principal: Principal, accountId: string, capabilities?: Capability[]): Promise<BlockResponse> {
  return inTransaction(em, async (db) => {
    await lockAccount(db, principal.integratorId, accountId);
    const targets = (await activeBlocks(db, accountId)).filter((b) => !capabilities || capabilities.includes(b.capability));
    for (const block of targets) {
      const decision = unblockDecision(principal, block);
      if (!decision.ok) throw new AppError('forbidden', decision.reason, { codes: ['BLOCK_PERMISSION_ERROR'], payload: null });
    }
    let response: BlockResponse | undefined;
    for (const block of targets) {
      await db.execute(`update account_block set status = 'removed', removed_at = now(), removed_by = ?, updated_at = now() where id = ?`,
        [principal.clientId, block.block_id]);
      response = await recordChange(db, em, principal.integratorId, accountId, { action: 'unblock', capability: block.capability });
    }
    return response ?? { account_id: accountId, blocks: blocksByCapability(await activeBlocks(db, accountId)) };
  });
}

/** `DELETE /v2/block/{account_id}/capability/{block_capability}`: the remaining blocks. */
export function unblockCapability(em: EntityManager, principal: Principal, accountId: string, capability: Capability): Promise<BlockResponse> {
  return removeBlocks(em, principal, accountId, [capability]);
}

/** `GET /v2/block/{account_id}`: the active blocks. */
export async function getBlocks(em: EntityManager, principal: Principal, accountId: string): Promise<BlockResponse> {
  const db = autocommit(em);
  const [row] = await db.execute<unknown[]>('select 1 from account where id = ? and integrator_id = ?', [accountId, principal.integratorId]);
  if (!row) throw accountNotFound();
  return { account_id: accountId, blocks: blocksByCapability(await activeBlocks(db, accountId)) };
}

/**
 * `POST /v1/{account_id}/user-info/block` (earlier generation): the same block as v2; without
 * a body it blocks `login` with reason `account_close`.
 */
export async function legacyBlock(em: EntityManager, principal: Principal, accountId: string, input: Partial<BlockInput>) {
  await blockAccount(em, principal, {
    account_id: accountId, block_capability: input.block_capability ?? 'login', block_reason: input.block_reason ?? 'account_close', note: input.note,
  });
  return { is_blocked: true };
}

/** `POST /v1/{account_id}/user-info/unblock` (earlier generation): removes every active block, all or nothing. */
export async function legacyUnblock(em: EntityManager, principal: Principal, accountId: string) {
  await removeBlocks(em, principal, accountId);
  return { is_blocked: false };
}

/**
 * Spec §3.2: a blocked account cannot transact. Throws the 403 of spec §7 naming the first of
 * `accountIds` with an active `login` or `transactions` block.
 */
export async function assertCanTransact(db: Executor, accountIds: string[]): Promise<void> {
  const ids = [...new Set(accountIds)];
  if (!ids.length) return;
  const rows = await db.execute<Array<{ id: string; blocked: boolean }>>(
    `select a.id, ${transactionBlockedSql('a.id')} as blocked from account a where a.id = any (?::varchar[])`, [ids]);
  const blocked = ids.find((id) => rows.some((r) => r.id === id && r.blocked));
  if (blocked) throw blockedError(blocked);
}

/**
 * The SQL condition "an active block stops this account buying or selling" (spec §3.2: `login`
 * or `transactions`), for the account an SQL expression names; every such check uses it.
 */
export function transactionBlockedSql(accountExpression: string): string {
  return `exists (select 1 from account_block b where b.account_id = ${accountExpression} and b.status = 'active'
                   and b.capability in (${TRANSACTION_BLOCKS.map((c) => `'${c}'`).join(', ')}))`;
}

/** The 403 of spec §7: empty message and codes, the payload a sentence naming the account. */
export function blockedError(accountId: string): AppError {
  const message = blockedMessage(accountId);
  return new AppError('forbidden', message, { bare: true, payload: message });
}

/** Whether the account's `login` capability is blocked (no user session, no redirect). */
export async function loginBlocked(db: Executor, accountId: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>(`select 1 from account_block where account_id = ? and capability = 'login' and status = 'active'`, [accountId]);
  return row !== undefined;
}
