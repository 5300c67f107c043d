/**
 * Who is signed in to the console: adding a console user (with a one-time set-password link),
 * setting the password, logging in (argon2id, lockout after repeated failures, an optional TOTP
 * second factor) and the sessions behind the console's cookie. Only hashes of the link and the
 * cookie are stored: a copy of the database opens no session.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Secret, TOTP } from 'otpauth';
import type { AuditContext } from '../audit/audit.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import { type Db, db as pooled } from '../db/sql.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { findIntegrator } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import {
  clearFailedLogins,
  consoleSessionById,
  consoleUserByEmail,
  consoleUsersOf,
  type ConsoleSessionRecord,
  type ConsoleUserRecord,
  deleteConsoleSession,
  insertConsoleSession,
  insertConsoleUser,
  lockConsoleUser,
  lockUserBySetupToken,
  recordFailedLogin,
  setPasswordHash,
  setTotp,
  touchConsoleSession,
} from './console.repository.js';
import { afterFailedLogin, type ConsoleRole, passwordProblem, SETUP_LINK_MS, sessionAlive, validEmail } from './console.rules.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const token = () => randomBytes(32).toString('base64url');

/** The console's address of a set-password link. */
export function setupLink(publicUrl: string, setupToken: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/console/set-password/${setupToken}`;
}

/**
 * A console user of the integrator, and its one-time set-password link (valid 24 h): from
 * `holdfast console user add` or an admin's People page. With `audit`, the addition is recorded
 * (`console.user.add`: the role and operator rights, never the email) in its transaction.
 */
export async function addConsoleUser(
  em: EntityManager,
  input: { email: string; integrator: string; role: ConsoleRole; operator: boolean; publicUrl: string },
  audit?: AuditContext,
): Promise<{ user: ConsoleUserRecord; integrator: string; link: string; expires: Date }> {
  if (!validEmail(input.email)) throw AppError.invalid({ email: ['INVALID_EMAIL'] }, 'Not an email address.');
  const integrator = await findIntegrator(em, input.integrator);
  if (!integrator) throw AppError.notFound('INTEGRATOR_NOT_FOUND', `No integrator "${input.integrator}".`);
  const setupToken = token();
  const expires = new Date(Date.now() + SETUP_LINK_MS);
  const user = await pooled(em).transaction(async (tx) => {
    const added = await insertConsoleUser(tx, {
      id: newId('cu'),
      integratorId: integrator.id,
      email: input.email,
      role: input.role,
      operator: input.operator,
      setupTokenHash: sha256(setupToken),
      setupExpiresAt: expires,
    });
    if (added && audit)
      await recordAudit(tx, {
        integratorId: integrator.id,
        context: audit,
        action: 'console.user.add',
        target: { type: 'console_user', id: added.id },
        after: { role: added.role, operator: added.operator },
      });
    return added;
  });
  if (!user)
    throw new AppError('conflict', `A console user with the email ${input.email} exists already.`, { codes: ['CONSOLE_USER_EXISTS'] });
  return { user, integrator: integrator.name, link: setupLink(input.publicUrl, setupToken), expires };
}

/** An integrator's console users, by email (for its admins' People page). */
export async function consoleUsers(em: EntityManager, integratorId: string): Promise<ConsoleUserRecord[]> {
  return consoleUsersOf(pooled(em), integratorId);
}

/** The user a set-password link is for, while it works (undefined: spent, expired or unknown). */
export async function userOfSetupLink(em: EntityManager, setupToken: string): Promise<ConsoleUserRecord | undefined> {
  return pooled(em).transaction((tx) => lockUserBySetupToken(tx, sha256(setupToken)));
}

/** Sets a console user's password through its set-password link (which it spends); a problem with the password is answered, not thrown. */
export async function setPasswordWithLink(em: EntityManager, setupToken: string, password: string): Promise<'done' | 'expired' | string> {
  return pooled(em).transaction(async (tx) => {
    const user = await lockUserBySetupToken(tx, sha256(setupToken));
    if (!user) return 'expired';
    const problem = passwordProblem(password, user.email);
    if (problem) return problem;
    await setPasswordHash(tx, user.id, await hash(password));
    return 'done';
  });
}

/** A fixed hash to verify against when the email is unknown: a login takes as long either way. */
let decoy: Promise<string> | undefined;

export type LoginOutcome =
  | { ok: true; sessionToken: string; user: ConsoleUserRecord }
  | { ok: false; why: 'invalid' | 'locked' | 'totp_required' | 'totp_invalid' };

/**
 * A login: email and password (and the TOTP code once a second factor is on). Each wrong
 * password counts; the fifth in a row locks the user out for 15 minutes (a right password then
 * does not open it either). A success starts a session and answers its cookie value.
 */
export async function logIn(em: EntityManager, email: string, password: string, code: string | undefined): Promise<LoginOutcome> {
  const db = pooled(em);
  const found = await consoleUserByEmail(db, email);
  if (!found?.passwordHash || found.disabled) {
    decoy ??= hash(token());
    await verify(await decoy, password).catch(() => false);
    return { ok: false, why: 'invalid' };
  }
  const good = await verify(found.passwordHash, password).catch(() => false);
  return db.transaction(async (tx) => {
    const user = (await lockConsoleUser(tx, found.id))!;
    const [{ now }] = await tx.execute<Array<{ now: Date }>>('select now() as now');
    if (user.lockedUntil && user.lockedUntil > new Date(now)) return { ok: false, why: 'locked' } as const;
    const secondFactor = user.totpSecret ? checkTotp(user.totpSecret, user.email, code) : 'ok';
    if (!good || secondFactor === 'invalid') {
      const next = afterFailedLogin(user.lockedUntil ? 0 : user.failedLogins, new Date(now));
      await recordFailedLogin(tx, user.id, next.failures, next.lockedUntil);
      return { ok: false, why: next.lockedUntil ? 'locked' : good ? 'totp_invalid' : 'invalid' } as const;
    }
    if (secondFactor === 'missing') return { ok: false, why: 'totp_required' } as const;
    await clearFailedLogins(tx, user.id);
    const sessionToken = token();
    await insertConsoleSession(tx, sha256(sessionToken), user.id, token());
    return { ok: true, sessionToken, user } as const;
  });
}

function totpOf(secret: string, email: string): TOTP {
  return new TOTP({ issuer: 'Holdfast console', label: email, secret: Secret.fromBase32(secret), digits: 6, period: 30 });
}

/** A code against the secret, one step of clock drift either way. */
function checkTotp(secret: string, email: string, code: string | undefined): 'ok' | 'missing' | 'invalid' {
  if (!code?.trim()) return 'missing';
  return totpOf(secret, email).validate({ token: code.trim(), window: 1 }) === null ? 'invalid' : 'ok';
}

/** Starts turning on a second factor: a new secret (kept pending) and its otpauth:// URI for an authenticator app. */
export async function beginTotp(em: EntityManager, user: ConsoleUserRecord): Promise<{ secret: string; uri: string }> {
  const secret = new Secret({ size: 20 }).base32;
  await setTotp(pooled(em), user.id, secret, 'pending');
  return { secret, uri: totpOf(secret, user.email).toString() };
}

/** Confirms the pending second factor with its first code; false when the code is wrong. */
export async function confirmTotp(em: EntityManager, user: ConsoleUserRecord, code: string): Promise<boolean> {
  return pooled(em).transaction(async (tx) => {
    const locked = await lockConsoleUser(tx, user.id);
    if (!locked?.totpPending || checkTotp(locked.totpPending, locked.email, code) !== 'ok') return false;
    await setTotp(tx, user.id, locked.totpPending, 'confirmed');
    return true;
  });
}

/** The signed-in session of a cookie's value, while alive (idle under 30 minutes, at most 12 hours old). */
export async function sessionOf(em: EntityManager, sessionToken: string | undefined): Promise<ConsoleSessionRecord | undefined> {
  if (!sessionToken || sessionToken.length > 100) return undefined;
  const db = pooled(em);
  const id = sha256(sessionToken);
  const found = await consoleSessionById(db, id);
  if (!found || found.session.user.disabled) return undefined;
  if (!sessionAlive(found.session.createdAt, found.session.lastSeenAt, found.now)) {
    await deleteConsoleSession(db, id);
    return undefined;
  }
  await touchConsoleSession(db, id);
  return found.session;
}

/** Ends the session of a cookie's value. */
export async function logOut(em: EntityManager, sessionToken: string): Promise<void> {
  await deleteConsoleSession(pooled(em), sha256(sessionToken));
}

/** Whether a form's CSRF token is the session's (compared in constant time). */
export function csrfMatches(session: ConsoleSessionRecord, sent: unknown): boolean {
  if (typeof sent !== 'string' || sent.length !== session.csrfToken.length) return false;
  return timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrfToken));
}

/**
 * A console user as the services know a caller: its integrator's, with the operator's rights
 * when made with `--operator` (block issuer `svc`), else the integrator's (issuer `publisher`,
 * lifting its own blocks). The console checks each action against the role matrix itself.
 */
export function consolePrincipal(user: ConsoleUserRecord): Principal {
  return { clientId: user.id, integratorId: user.integratorId, scopes: [], isOperator: user.operator, canUnblock: true };
}

export type { Db };
