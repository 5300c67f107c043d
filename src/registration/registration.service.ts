/**
 * Registration and profile changes: an account with the wallets, POBO methods and
 * `register-account-completed` event it is born with, and the partial update that may link new
 * external platforms (each a POBO method). Apart from `src/accounts/` because these writes build
 * on payment methods, which themselves name their account.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { emDb } from '../db/sql.js';
import { newId } from '../ids.js';
import { loadIntegrator } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { addPoboMethod, createWallets, updatePoboBilling } from '../payment-methods/payment-method.service.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import type { IAccount } from '../accounts/account.entity.js';
import { requireAccount } from '../accounts/account-access.service.js';
import {
  accountWithEmail,
  accountWithPlatformUser,
  accountWithUsername,
  createAccount,
  linkExternalPlatform,
  lockAccountForUpdate,
} from '../accounts/account.repository.js';
import {
  DETAIL_FIELDS,
  DETAIL_PROPERTY,
  isEmailVerified,
  pickDetails,
  platformEntries,
  type Details,
  type EmailInput,
  type ExternalPlatforms,
} from '../accounts/account.rules.js';

export interface RegisterInput extends Details {
  username: string;
  email?: EmailInput;
  external_platforms?: ExternalPlatforms;
}

export interface UpdateInput extends Details {
  email?: EmailInput;
  external_platforms?: ExternalPlatforms;
}

function details(account: IAccount): Details {
  const out: Details = {};
  for (const field of DETAIL_FIELDS) {
    const value = account[DETAIL_PROPERTY[field]];
    if (value !== null && value !== undefined) out[field] = value;
  }
  return out;
}

function emailView(account: IAccount) {
  if (!account.emailAddress || !account.emailId) return undefined;
  return { email_id: account.emailId, address: account.emailAddress, email_types: ['primary'], is_verified: account.emailVerified };
}

function platformsView(links: Array<{ platform: string; userId: string }>): ExternalPlatforms {
  const out: Record<string, { user_id: string }> = {};
  for (const link of [...links].sort((a, b) => a.platform.localeCompare(b.platform))) out[link.platform] = { user_id: link.userId };
  return out as ExternalPlatforms;
}

/** The update form of the account payload (the registration form adds `username`). */
function accountDetailsView(account: IAccount, links: Array<{ platform: string; userId: string }>) {
  const email = emailView(account);
  return { account_id: account.id, ...(email ? { email } : {}), external_platforms: platformsView(links), ...details(account) };
}

function billing(account: IAccount): Record<string, string> {
  return details(account) as Record<string, string>;
}

/** Which existing account of the integrator holds a value the input wants, if any. */
async function findConflict(
  em: EntityManager,
  integratorId: string,
  input: { username?: string; email?: EmailInput; external_platforms?: ExternalPlatforms },
  exceptAccountId?: string,
): Promise<{ account_id: string; field: string } | undefined> {
  const other = exceptAccountId ?? '';
  const sql = emDb(em);
  if (input.username) {
    const holder = await accountWithUsername(sql, integratorId, input.username, other);
    if (holder) return { account_id: holder, field: 'username' };
  }
  if (input.email) {
    const holder = await accountWithEmail(sql, integratorId, input.email.address, other);
    if (holder) return { account_id: holder, field: 'email' };
  }
  for (const [platform, userId] of platformEntries(input.external_platforms)) {
    const holder = await accountWithPlatformUser(sql, integratorId, platform, userId, other);
    if (holder) return { account_id: holder, field: `external_platforms.${platform}` };
  }
  return undefined;
}

function conflictError(conflict: { account_id: string; field: string }): AppError {
  return new AppError('conflict', `The ${conflict.field} already belongs to an account.`, { bare: true, payload: conflict });
}

/**
 * Runs a write; the unique indexes decide duplicates (also between concurrent requests), and a
 * violation becomes the spec's 409 naming the account that holds the value.
 */
async function withConflictCheck<T>(
  em: EntityManager,
  integratorId: string,
  input: Parameters<typeof findConflict>[2],
  exceptAccountId: string | undefined,
  write: () => Promise<T>,
): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const after = await findConflict(em.fork(), integratorId, input, exceptAccountId);
    if (after) throw conflictError(after);
    throw err;
  }
}

/** Registers an account with its wallets, POBO methods and `register-account-completed` event. */
export async function registerAccount(em: EntityManager, principal: Principal, input: RegisterInput) {
  const integratorId = principal.integratorId;
  return withConflictCheck(em, integratorId, input, undefined, () =>
    em.transactional(async (tx) => {
      const integrator = await loadIntegrator(tx, integratorId);
      const now = new Date();
      const account = createAccount(tx, {
        id: newId('acct'),
        integrator,
        username: input.username,
        emailId: input.email ? newId('eml') : null,
        emailAddress: input.email?.address ?? null,
        emailVerified: input.email ? isEmailVerified(input.email) : false,
        createdAt: now,
        updatedAt: now,
      });
      for (const [field, value] of Object.entries(pickDetails(input))) {
        (account as Record<string, unknown>)[DETAIL_PROPERTY[field as keyof typeof DETAIL_PROPERTY]] = value;
      }
      const links = platformEntries(input.external_platforms).map(([platform, userId]) =>
        linkExternalPlatform(tx, account, platform, userId),
      );
      for (const link of links) addPoboMethod(tx, account, link.platform, link.userId, billing(account));
      await createWallets(tx, account, integrator);
      const payload = { ...accountDetailsView(account, links), username: account.username };
      await tx.flush();
      await insertEvent(emDb(tx), integratorId, 'register-account-completed', { ...payload, integrator: integrator.name });
      return payload;
    }),
  );
}

/** Partial update; new external platform ids add POBO methods. Returns the update form of the account payload. */
export async function updateAccount(em: EntityManager, principal: Principal, accountId: string, input: UpdateInput) {
  await requireAccount(em, principal, accountId);
  return withConflictCheck(em, principal.integratorId, input, accountId, () =>
    em.transactional(async (tx) => {
      const { account, links } = await lockAccountForUpdate(tx, accountId);
      const newDetails = pickDetails(input);
      for (const [field, value] of Object.entries(newDetails)) {
        (account as Record<string, unknown>)[DETAIL_PROPERTY[field as keyof typeof DETAIL_PROPERTY]] = value;
      }
      if (input.email) {
        const changed = account.emailAddress?.toLowerCase() !== input.email.address.toLowerCase();
        account.emailId ??= newId('eml');
        account.emailAddress = input.email.address;
        if (changed || input.email.requires_verification !== undefined) account.emailVerified = isEmailVerified(input.email);
      }
      if (Object.keys(newDetails).length) await updatePoboBilling(tx, accountId, billing(account));
      for (const [platform, userId] of platformEntries(input.external_platforms)) {
        const linked = links.find((l) => l.platform === platform);
        if (linked && linked.userId === userId) continue;
        if (linked) {
          throw new AppError('conflict', `The account is already linked to ${platform} with another user id.`, {
            codes: ['EXTERNAL_PLATFORM_ALREADY_LINKED'],
            fields: { [`external_platforms.${platform}`]: ['ALREADY_LINKED'] },
          });
        }
        links.push(linkExternalPlatform(tx, account, platform, userId));
        addPoboMethod(tx, account, platform, userId, billing(account));
      }
      account.updatedAt = new Date();
      await tx.flush();
      return accountDetailsView(account, links);
    }),
  );
}
