/**
 * The account and account_external_platform tables. MikroORM for loading and changing one
 * account (registration and updates run through its unit of work); hand-written SQL for the
 * profile read (the hottest read: one prepared statement with the account's blocks and tags,
 * no hydration), case-insensitive lookups and row locks taken inside plain-SQL transactions.
 */
import { LockMode, type RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import type { BlockRecord } from './account-block.rules.js';
import { activeBlocksJsonSql, tagsJsonSql, transactionBlockedSql } from './account-block.repository.js';
import { joinIntegratorSql } from '../integrators/integrator.repository.js';
import { Account, ExternalPlatformLink, type IAccount, type IExternalPlatformLink } from './account.entity.js';

/** The account with this id in this integrator (with its integrator loaded), if any. */
export function findAccount(em: EntityManager, integratorId: string, accountId: string): Promise<IAccount | null> {
  return em.findOne(Account, { id: accountId, integrator: integratorId }, { populate: ['integrator'] });
}

/** A new account in the caller's unit of work (flushed with it). */
export function createAccount(em: EntityManager, values: RequiredEntityData<IAccount>): IAccount {
  return em.create(Account, values);
}

/** Links an account to an external platform's user id, in the caller's unit of work (flushed with it). */
export function linkExternalPlatform(em: EntityManager, account: IAccount, platform: string, userId: string): IExternalPlatformLink {
  return em.create(ExternalPlatformLink, { account, platform, userId, integratorId: account.integrator.id, createdAt: new Date() });
}

/** The account (its integrator loaded), locked for update in the caller's transaction, and its external platform links. */
export async function lockAccountForUpdate(
  em: EntityManager,
  accountId: string,
): Promise<{ account: IAccount; links: IExternalPlatformLink[] }> {
  const account = await em.findOneOrFail(Account, { id: accountId }, { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['integrator'] });
  return { account, links: await em.find(ExternalPlatformLink, { account: accountId }) };
}

/** The integrator an account belongs to (for operator commands that name an account alone), if it exists. */
export async function integratorOfAccount(db: Db, accountId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [accountId]);
  return row?.integrator_id;
}

/** Whether the account exists in this integrator. */
export async function accountExists(db: Db, integratorId: string, accountId: string): Promise<boolean> {
  const [row] = await db.execute<unknown[]>('select 1 from account where id = ? and integrator_id = ?', [accountId, integratorId]);
  return row !== undefined;
}

/** Locks the account row in the caller's transaction (`update`: changes to it wait; `share`: it cannot vanish); false when absent. */
export async function lockAccount(db: Db, integratorId: string, accountId: string, mode: 'update' | 'share'): Promise<boolean> {
  const [row] = await db.execute<unknown[]>(
    `select 1 from account where id = ? and integrator_id = ? for ${mode === 'update' ? 'update' : 'share'}`,
    [accountId, integratorId],
  );
  return row !== undefined;
}

/** The account (other than `exceptAccountId`) of the integrator holding this username, case-insensitively. */
export async function accountWithUsername(
  db: Db,
  integratorId: string,
  username: string,
  exceptAccountId = '',
): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    'select id from account where integrator_id = ? and lower(username) = lower(?) and id <> ?',
    [integratorId, username, exceptAccountId],
  );
  return row?.id;
}

/** The account (other than `exceptAccountId`) of the integrator holding this email address, case-insensitively. */
export async function accountWithEmail(db: Db, integratorId: string, address: string, exceptAccountId = ''): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    'select id from account where integrator_id = ? and lower(email_address) = lower(?) and id <> ?',
    [integratorId, address, exceptAccountId],
  );
  return row?.id;
}

/** The account (other than `exceptAccountId`) of the integrator linked to this external platform user id. */
export async function accountWithPlatformUser(
  db: Db,
  integratorId: string,
  platform: string,
  userId: string,
  exceptAccountId = '',
): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ account_id: string }>>(
    'select account_id from account_external_platform where integrator_id = ? and platform = ? and user_id = ? and account_id <> ?',
    [integratorId, platform, userId, exceptAccountId],
  );
  return row?.account_id;
}

/** The accounts that linked an external platform user id (any platform): the console's search. */
export async function accountsWithPlatformUserId(db: Db, integratorId: string, userId: string): Promise<string[]> {
  const rows = await db.execute<Array<{ account_id: string }>>(
    'select distinct account_id from account_external_platform where integrator_id = ? and user_id = ? limit 20',
    [integratorId, userId],
  );
  return rows.map((r) => r.account_id);
}

/** What the profile read returns. */
export interface ProfileRecord {
  id: string;
  username: string;
  email_address: string | null;
  created_at: Date;
  integrator: string;
  blocks: BlockRecord[];
  tags: Array<Record<string, unknown>>;
}

// One statement: the account, its active blocks and its tags (both small, both indexed by account).
const PROFILE_COLUMNS = `select a.id, a.username, a.email_address, a.created_at, i.name as integrator,
    ${activeBlocksJsonSql('a.id')} as blocks,
    ${tagsJsonSql('a.id', 'i.name')} as tags
  from account a ${joinIntegratorSql('i', 'a.integrator_id')}`;

/** The profile of an account by id. */
export async function profileById(db: Db, integratorId: string, accountId: string): Promise<ProfileRecord | undefined> {
  const [row] = await db.execute<ProfileRecord[]>(`${PROFILE_COLUMNS} where a.id = ? and a.integrator_id = ?`, [accountId, integratorId]);
  return row;
}

/** The profile of an account by username (case-insensitive). */
export async function profileByUsername(db: Db, integratorId: string, username: string): Promise<ProfileRecord | undefined> {
  const [row] = await db.execute<ProfileRecord[]>(`${PROFILE_COLUMNS} where a.integrator_id = ? and lower(a.username) = lower(?)`, [
    integratorId,
    username,
  ]);
  return row;
}

/** Fragment: a buyer as JSON (`{"blocked": …}`: whether a block stops it transacting), or null when the integrator has no such account. */
export function buyerJsonSql(accountExpression: string, integratorExpression: string): string {
  return `(select json_build_object('blocked', ${transactionBlockedSql('a.id')}) from account a
            where a.id = ${accountExpression} and a.integrator_id = ${integratorExpression})`;
}

/** The integrator's accounts among these ids. */
export async function accountsAmong(db: Db, integratorId: string, accountIds: string[]): Promise<string[]> {
  const rows = await db.execute<Array<{ id: string }>>('select id from account where id = any (?::varchar[]) and integrator_id = ?', [
    accountIds,
    integratorId,
  ]);
  return rows.map((r) => r.id);
}

/**
 * Holds these accounts in the caller's transaction (`for key share`, in id order): a merge or a
 * block of one of them (`for update`) waits until the caller commits, and the caller waits for
 * one under way. Profile updates are not held up.
 */
export async function holdAccounts(db: Db, accountIds: string[]): Promise<void> {
  await db.execute('select id from account where id = any (?::varchar[]) order by id for key share', [accountIds]);
}

/** Locks these accounts (in id order: two transactions locking one pair cannot deadlock); their ids and integrators. */
export function lockAccountsInOrder(db: Db, accountIds: string[]): Promise<Array<{ id: string; integrator_id: string }>> {
  return db.execute('select id, integrator_id from account where id = any (?::varchar[]) order by id for update', [accountIds]);
}
