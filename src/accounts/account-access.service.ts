/**
 * The account of the caller's integrator, or a 404: the check every module makes before it acts
 * on an account. Apart from account.service (which builds on payment methods), so that the
 * payment-methods module can check an account without importing account registration.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import type { Principal } from '../integrators/principal.js';
import { db } from '../db/sql.js';
import type { IAccount } from './account.entity.js';
import { accountExists, findAccount } from './account.repository.js';

export const accountNotFound = () => AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');

/** The caller's account (with its integrator), or 404 `ACCOUNT_GET_ERROR`. */
export async function requireAccount(em: EntityManager, principal: Principal, accountId: string): Promise<IAccount> {
  const account = await findAccount(em, principal.integratorId, accountId);
  if (!account) throw accountNotFound();
  return account;
}

/**
 * Whether the account belongs to the caller's integrator: `requireAccount`'s check as a yes or
 * no, in one indexed read that loads no entity (the rate limits ask it before spending an
 * account's budget).
 */
export function accountOwned(em: EntityManager, principal: Principal, accountId: string): Promise<boolean> {
  return accountExists(db(em), principal.integratorId, accountId);
}
