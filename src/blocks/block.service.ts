/**
 * Account blocks: issue, remove and list, in both API generations, and
 * the checks other modules make before money moves. A change locks the account row, so blocks
 * of one account change one at a time; each change writes `account-block-unblock-webhook` to
 * the outbox in its transaction. Blocking an already blocked capability changes nothing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { db as pooled, type Db } from '../db/sql.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';
import { accountExists, lockAccount as lockAccountRow } from '../accounts/account.repository.js';
import {
  activeBlocks,
  insertActiveBlock,
  loginBlockActive,
  loginBlockSummary,
  markBlockRemoved,
  transactionBlockedAmong,
} from '../accounts/account-block.repository.js';
import {
  blockedMessage,
  blocksByCapability,
  isBlocked,
  type BlockRecord,
  type Capability,
  type Issuer,
  type Reason,
} from '../accounts/account-block.rules.js';
import { issueDecision, unblockDecision } from './block.rules.js';

export interface BlockInput {
  account_id: string;
  block_capability: Capability;
  block_reason: Reason;
  note?: string;
}

/** The block response (`blockAccount`). */
export interface BlockResponse {
  account_id: string;
  blocks: Partial<Record<Capability, BlockRecord>>;
}

const accountNotFound = () => AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');

/** Locks the caller's account (blocks of one account change one at a time), or 404. */
async function lockAccount(db: Db, integratorId: string, accountId: string): Promise<void> {
  if (!(await lockAccountRow(db, integratorId, accountId, 'update'))) throw accountNotFound();
}

async function recordChange(
  db: Db,
  integratorId: string,
  accountId: string,
  change: { action: 'block' | 'unblock'; capability: Capability },
): Promise<BlockResponse> {
  const records = await activeBlocks(db, accountId);
  const blocks = blocksByCapability(records);
  const integrator = (await integratorProfile(db, integratorId)).name;
  await insertEvent(db, integratorId, 'account-block-unblock-webhook', {
    account_id: accountId,
    blocks,
    is_blocked: isBlocked(records),
    action: change.action,
    capability: change.capability,
    integrator,
  });
  return { account_id: accountId, blocks };
}

/**
 * Blocks a capability in the caller's transaction (the account row already locked). Returns
 * whether a block was made: an active block of that capability is left as it is (no event).
 */
export async function applyBlock(
  db: Db,
  block: {
    integratorId: string;
    accountId: string;
    capability: Capability;
    issuer: Issuer;
    reason: Reason;
    note?: string | null;
    clientId: string | null;
  },
): Promise<boolean> {
  const made = await insertActiveBlock(db, { ...block, id: newId('blk'), note: block.note ?? null });
  if (!made) return false;
  // A login block needs no write to end the account's user sessions: every access token,
  // refresh token and link issued before it is refused from now on, even once it is lifted
  // (its time, `loginBlockState`, read by the sessions module).
  await recordChange(db, block.integratorId, block.accountId, { action: 'block', capability: block.capability });
  return true;
}

/** The active block of a capability of an account, if any (the caller's transaction). */
export async function activeBlockOf(db: Db, accountId: string, capability: Capability): Promise<BlockRecord | null> {
  return (await activeBlocks(db, accountId)).find((b) => b.capability === capability) ?? null;
}

/**
 * Lifts, in the caller's transaction (the account row already locked), the active block of a
 * capability when its reason is one of `reasons` — an outcome lifting the block an earlier
 * outcome set (KYC acceptance). Returns whether a block was lifted.
 */
export async function liftBlock(
  db: Db,
  lift: { integratorId: string; accountId: string; capability: Capability; reasons: readonly string[] },
): Promise<boolean> {
  const block = await activeBlockOf(db, lift.accountId, lift.capability);
  if (!block || !lift.reasons.includes(block.reason)) return false;
  await markBlockRemoved(db, block.block_id, null);
  await recordChange(db, lift.integratorId, lift.accountId, { action: 'unblock', capability: lift.capability });
  return true;
}

/** `POST /v2/block`: blocks one capability of an account; blocking it again changes nothing. */
export async function blockAccount(
  em: EntityManager,
  principal: Principal,
  input: BlockInput,
  audit?: AuditContext,
): Promise<BlockResponse> {
  const decision = issueDecision(principal, input.block_capability, input.block_reason);
  if (!decision.ok) throw AppError.invalid(decision.fields, 'Publishers may only block login with reason account_close.');
  return pooled(em).transaction(async (db) => {
    await lockAccount(db, principal.integratorId, input.account_id);
    const made = await applyBlock(db, {
      integratorId: principal.integratorId,
      accountId: input.account_id,
      capability: input.block_capability,
      issuer: decision.issuer,
      reason: input.block_reason,
      note: input.note,
      clientId: principal.clientId,
    });
    // A block made is recorded (blocking a blocked capability changes nothing).
    if (made && audit)
      await recordAudit(db, {
        integratorId: principal.integratorId,
        context: { ...audit, reason: audit.reason ?? input.note ?? input.block_reason },
        action: 'block.apply',
        target: { type: 'account', id: input.account_id },
        after: { capability: input.block_capability, block_reason: input.block_reason, issuer: decision.issuer },
      });
    return { account_id: input.account_id, blocks: blocksByCapability(await activeBlocks(db, input.account_id)) };
  });
}

/**
 * Removes the active blocks of the given capabilities (all active ones when `capabilities` is
 * undefined), all or nothing: one the caller may not remove → 403 `BLOCK_PERMISSION_ERROR` and
 * nothing changes. A capability that is not blocked is already as asked (no event).
 */
async function removeBlocks(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  capabilities?: Capability[],
  audit?: AuditContext,
): Promise<BlockResponse> {
  return pooled(em).transaction(async (db) => {
    await lockAccount(db, principal.integratorId, accountId);
    const targets = (await activeBlocks(db, accountId)).filter((b) => !capabilities || capabilities.includes(b.capability));
    for (const block of targets) {
      const decision = unblockDecision(principal, block);
      if (!decision.ok) throw new AppError('forbidden', decision.reason, { codes: ['BLOCK_PERMISSION_ERROR'], payload: null });
    }
    let response: BlockResponse | undefined;
    for (const block of targets) {
      await markBlockRemoved(db, block.block_id, principal.clientId);
      response = await recordChange(db, principal.integratorId, accountId, { action: 'unblock', capability: block.capability });
    }
    // One record for the blocks one request lifted (none when nothing was blocked).
    if (targets.length && audit)
      await recordAudit(db, {
        integratorId: principal.integratorId,
        context: audit,
        action: 'block.lift',
        target: { type: 'account', id: accountId },
        before: { blocks: targets.map((b) => ({ capability: b.capability, block_reason: b.reason, issuer: b.issuer })) },
        after: { lifted: targets.map((b) => b.capability) },
      });
    return response ?? { account_id: accountId, blocks: blocksByCapability(await activeBlocks(db, accountId)) };
  });
}

/** `DELETE /v2/block/{account_id}/capability/{block_capability}`: the remaining blocks. */
export function unblockCapability(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  capability: Capability,
  audit?: AuditContext,
): Promise<BlockResponse> {
  return removeBlocks(em, principal, accountId, [capability], audit);
}

/** `GET /v2/block/{account_id}`: the active blocks. */
export async function getBlocks(em: EntityManager, principal: Principal, accountId: string): Promise<BlockResponse> {
  const db = pooled(em);
  if (!(await accountExists(db, principal.integratorId, accountId))) throw accountNotFound();
  return { account_id: accountId, blocks: blocksByCapability(await activeBlocks(db, accountId)) };
}

/**
 * `POST /v1/{account_id}/user-info/block` (earlier generation): the same block as v2; without
 * a body it blocks `login` with reason `account_close`.
 */
export async function legacyBlock(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  input: Partial<BlockInput>,
  audit?: AuditContext,
) {
  await blockAccount(
    em,
    principal,
    {
      account_id: accountId,
      block_capability: input.block_capability ?? 'login',
      block_reason: input.block_reason ?? 'account_close',
      note: input.note,
    },
    audit,
  );
  return { is_blocked: true };
}

/** `POST /v1/{account_id}/user-info/unblock` (earlier generation): removes every active block, all or nothing. */
export async function legacyUnblock(em: EntityManager, principal: Principal, accountId: string, audit?: AuditContext) {
  await removeBlocks(em, principal, accountId, undefined, audit);
  return { is_blocked: false };
}

/**
 * A blocked account cannot transact. Throws the blocked-account 403 naming the first of
 * `accountIds` with an active `login` or `transactions` block.
 */
export async function assertCanTransact(db: Db, accountIds: string[]): Promise<void> {
  const ids = [...new Set(accountIds)];
  if (!ids.length) return;
  const stopped = await transactionBlockedAmong(db, ids);
  const blocked = ids.find((id) => stopped.has(id));
  if (blocked) throw blockedError(blocked);
}

/** Refuses (the blocked-account 403) money out of an account whose `payouts` or `login` capability is blocked. */
export async function assertCanPayOut(db: Db, accountId: string): Promise<void> {
  const blocks = await activeBlocks(db, accountId);
  if (blocks.some((b) => b.capability === 'payouts' || b.capability === 'login')) throw blockedError(accountId);
}

/** The blocked-account 403: empty message and codes, the payload a sentence naming the account. */
export function blockedError(accountId: string): AppError {
  const message = blockedMessage(accountId);
  return new AppError('forbidden', message, { bare: true, payload: message });
}

/** Whether the account's `login` capability is blocked (no user session, no redirect). */
export async function loginBlocked(db: Db, accountId: string): Promise<boolean> {
  return loginBlockActive(db, accountId);
}

/** Whether the account's `login` capability is blocked, and when its latest login block was issued. */
export function loginBlockState(db: Db, accountId: string): Promise<{ blocked: boolean; lastBlockedAt: Date | null }> {
  return loginBlockSummary(db, accountId);
}
