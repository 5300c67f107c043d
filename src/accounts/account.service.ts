/**
 * Account reads: the profile, by id or username, in both API generations. Every lookup is scoped
 * to the caller's integrator, so another integrator's account is exactly as absent as a missing
 * one. Registration and profile changes, which bring payment methods, are `src/registration/`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Db, readDb } from '../db/sql.js';
import type { Principal } from '../integrators/principal.js';
import { blocksByCapability, isBlocked } from './account-block.rules.js';
import { accountNotFound } from './account-access.service.js';
import { profileById, profileByUsername, type ProfileRecord } from './account.repository.js';

function profileView(row: ProfileRecord | undefined) {
  if (!row) throw accountNotFound();
  return {
    account_id: row.id,
    username: row.username,
    email: row.email_address,
    is_blocked: isBlocked(row.blocks),
    blocked_capabilities: blocksByCapability(row.blocks),
    integrator: row.integrator,
    tags: row.tags,
    created: new Date(row.created_at).toISOString(),
  };
}

/** The profile (`getAccountProfile`), with the account's active blocks and its tags. */
export async function getProfile(source: Db | EntityManager, principal: Principal, accountId: string) {
  // The hottest read: one indexed query, no entity hydration (and from a route, no fork).
  return profileView(await profileById(readDb(source), principal.integratorId, accountId));
}

/** The profile of the account with this username (case-insensitive), or a 404. */
export async function findProfileByUsername(source: Db | EntityManager, principal: Principal, username: string) {
  return profileView(await profileByUsername(readDb(source), principal.integratorId, username));
}

/** The earlier-generation profile (`GET /v1/{account_id}/user-info`). */
export async function getLegacyProfile(source: Db | EntityManager, principal: Principal, accountId: string) {
  const { account_id, username, email, is_blocked, integrator, created } = await getProfile(source, principal, accountId);
  return { account_id, username, email, is_blocked, integrator, created };
}
