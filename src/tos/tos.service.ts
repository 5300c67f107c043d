/**
 * Terms of service: the current version, and each account's signature of it. A newer
 * version leaves every account unsigned until it signs again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { findClient } from '../auth/auth.service.js';
import type { Principal } from '../integrators/principal.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { currentVersion, deleteSignature, hasSigned, insertSignature, insertVersion } from './tos.repository.js';

/** The current ToS content. */
export async function getCurrentTos(em: EntityManager) {
  const tos = await currentVersion(em);
  return { tos_version: tos.version, tos_created: tos.createdAt.toISOString(), content: tos.content };
}

/** Whether the account signed the current version. */
export async function getTosStatus(em: EntityManager, principal: Principal, accountId: string) {
  await requireAccount(em, principal, accountId);
  const tos = await currentVersion(em);
  return { signed_tos: await hasSigned(em, accountId, tos.version) };
}

/** Signs the current version for the account; needs ToS signing enabled for the client. */
export async function signTos(em: EntityManager, principal: Principal, accountId: string): Promise<null> {
  const client = await findClient(em, principal.clientId);
  if (!client?.tosSigning) {
    throw new AppError('forbidden', 'ToS signing is not enabled for this client; ask the operator to enable it.', {
      codes: ['TOS_SIGNING_NOT_ENABLED'],
    });
  }
  await requireAccount(em, principal, accountId);
  const tos = await currentVersion(em);
  await insertSignature(em, accountId, tos.version);
  return null;
}

/** Removes the account's signature of the current version (staging only; the route enforces it). */
export async function unsignTos(em: EntityManager, principal: Principal, accountId: string): Promise<null> {
  await requireAccount(em, principal, accountId);
  const tos = await currentVersion(em);
  await deleteSignature(em, accountId, tos.version);
  return null;
}

/** Publishes a new ToS version; returns it. */
export async function publishTos(em: EntityManager, content: string) {
  if (!content.trim()) throw AppError.invalid({ content: ['REQUIRED'] }, 'The ToS text is empty.');
  const tos = await insertVersion(em, content);
  return { tos_version: tos.version, tos_created: tos.createdAt.toISOString() };
}
