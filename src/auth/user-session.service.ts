/**
 * User sessions (spec §4.3, §5; DESIGN §4): `POST /authorize/user` opens one for an account of
 * the caller's integrator — a single-use redirect nonce, or a user password token with a
 * refresh token. Refresh tokens rotate at each use; a reused one revokes its whole family.
 * Nonces and refresh tokens are stored only as SHA-256 hashes. A login-blocked account gets none.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { autocommit, inTransaction, type Executor } from '../db/sql.js';
import { blockedError, loginBlocked } from '../blocks/block.service.js';
import { authenticateClient, type Principal, type TokenSigner } from './auth.service.js';
import { REFRESH_TOKEN_TTL_SECONDS, SESSION_NONCE_TTL_SECONDS, USER_TOKEN_TTL_SECONDS, refreshDecision } from './auth.rules.js';

/** The user password token of spec §4.3. */
export interface UserToken {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  /** When the access token expires (ISO 8601). */
  expiry: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const invalidGrant = (message: string) => new AppError('invalid_input', message, { codes: ['invalid_grant'] });

async function issueUserToken(
  db: Executor, signer: TokenSigner, session: { clientId: string; integratorId: string; accountId: string; familyId: string },
): Promise<UserToken> {
  const refresh = `hfr_${randomBytes(32).toString('base64url')}`;
  await db.execute(
    `insert into refresh_token (id, token_hash, family_id, account_id, integrator_id, client_id, expires_at)
     values (?, ?, ?, ?, ?, ?, now() + (? * interval '1 second'))`,
    [newId('rft'), sha256(refresh), session.familyId, session.accountId, session.integratorId, session.clientId, REFRESH_TOKEN_TTL_SECONDS]);
  const access = await signer.sign(
    { clientId: session.clientId, integratorId: session.integratorId, scopes: [], isOperator: false, canUnblock: false, accountId: session.accountId },
    USER_TOKEN_TTL_SECONDS);
  return {
    access_token: access,
    token_type: 'Bearer',
    refresh_token: refresh,
    expiry: new Date(Date.now() + USER_TOKEN_TTL_SECONDS * 1000).toISOString(),
  };
}

/**
 * `POST /authorize/user`: a redirect `{web_url}/ui/appauth/<nonce>` (nonce single-use, 24 h),
 * or with `return_token` a user password token bound to the account. 404 for an account the
 * caller cannot see; 403 (spec §7) for a login-blocked one, and then nothing is created.
 */
export async function authorizeUser(
  em: EntityManager, signer: TokenSigner, principal: Principal, input: { account_id: string; return_token?: boolean }, webUrl: string,
): Promise<{ redirect: string } | { token: UserToken }> {
  return inTransaction(em, async (db) => {
    const [account] = await db.execute<unknown[]>('select 1 from account where id = ? and integrator_id = ? for share', [input.account_id, principal.integratorId]);
    if (!account) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');
    const session = await openUserSession(db, signer, principal, input.account_id, Boolean(input.return_token));
    return 'token' in session ? session : { redirect: sessionRedirect(webUrl, session.nonce) };
  });
}

/** The hosted pages' address that spends a session nonce. */
export function sessionRedirect(webUrl: string, nonce: string): string {
  return `${webUrl.replace(/\/+$/, '')}/ui/appauth/${nonce}`;
}

/**
 * Opens a session for an account of the caller's integrator, in the caller's transaction: a
 * user password token, or a single-use redirect nonce (24 h). 403 (spec §7) for a login-blocked
 * account, which then gets neither.
 */
export async function openUserSession(
  db: Executor, signer: TokenSigner, principal: Principal, accountId: string, returnToken: boolean,
): Promise<{ token: UserToken } | { nonce: string }> {
  if (await loginBlocked(db, accountId)) throw blockedError(accountId);
  const session = { clientId: principal.clientId, integratorId: principal.integratorId, accountId };
  if (returnToken) return { token: await issueUserToken(db, signer, { ...session, familyId: newId('rtf') }) };
  const nonce = randomBytes(32).toString('base64url');
  await db.execute(
    `insert into user_session_nonce (nonce_hash, account_id, integrator_id, client_id, expires_at)
     values (?, ?, ?, ?, now() + (? * interval '1 second'))`,
    [sha256(nonce), session.accountId, session.integratorId, session.clientId, SESSION_NONCE_TTL_SECONDS]);
  return { nonce };
}

/**
 * Opens the hosted pages' session from a redirect nonce (spent here, once): a user access token
 * for its account, as short-lived as any, with no refresh token — or null when the nonce is
 * unknown, spent, expired, or its account is login-blocked.
 */
export async function openHostedSession(em: EntityManager, signer: TokenSigner, nonce: string): Promise<{ accountId: string; accessToken: string } | null> {
  const session = await consumeSessionNonce(em, nonce);
  if (!session) return null;
  const accessToken = await signer.sign(
    { clientId: session.clientId, integratorId: session.integratorId, scopes: [], isOperator: false, canUnblock: false, accountId: session.accountId },
    USER_TOKEN_TTL_SECONDS);
  return { accountId: session.accountId, accessToken };
}

/**
 * Spends a redirect nonce (the hosted pages do, once): the session's account, or null when the
 * nonce is unknown, spent, expired, or its account is now login-blocked.
 */
export async function consumeSessionNonce(em: EntityManager, nonce: string): Promise<{ accountId: string; integratorId: string; clientId: string } | null> {
  return inTransaction(em, async (db) => {
    const [row] = await db.execute<Array<{ account_id: string; integrator_id: string; client_id: string }>>(
      `update user_session_nonce set used_at = now() where nonce_hash = ? and used_at is null and expires_at > now()
       returning account_id, integrator_id, client_id`, [sha256(nonce)]);
    if (!row || await loginBlocked(db, row.account_id)) return null;
    return { accountId: row.account_id, integratorId: row.integrator_id, clientId: row.client_id };
  });
}

/**
 * `POST /token` with `grant_type=refresh_token`: a new user password token and refresh token;
 * the old refresh token is spent. Client credentials are optional (the SDK holds none), but
 * when sent they must be valid and be the client the session was opened by.
 */
export async function refreshUserToken(
  em: EntityManager, signer: TokenSigner, input: { refreshToken?: string; clientId?: string; clientSecret?: string },
): Promise<UserToken> {
  if (!input.refreshToken) throw new AppError('invalid_input', 'refresh_token is required.', { codes: ['invalid_request'] });
  const client = input.clientId || input.clientSecret ? await authenticateClient(em, input.clientId, input.clientSecret) : null;
  const refreshToken = input.refreshToken;
  const outcome = await inTransaction(em, async (db) => {
    const [row] = await db.execute<Array<{ id: string; family_id: string; account_id: string; integrator_id: string; client_id: string;
      expires_at: Date; used_at: Date | null; revoked_at: Date | null }>>(
      'select * from refresh_token where token_hash = ? for update', [sha256(refreshToken)]);
    if (!row || (client && client.id !== row.client_id)) return { refused: 'The refresh token is invalid.' };
    const decision = refreshDecision({ usedAt: row.used_at, revokedAt: row.revoked_at, expiresAt: new Date(row.expires_at) }, new Date());
    const revokeFamily = () => db.execute('update refresh_token set revoked_at = now() where family_id = ? and revoked_at is null', [row.family_id]);
    if (decision === 'reused') {
      // Someone replayed a spent token: whoever holds the newer one loses it too.
      await revokeFamily();
      return { refused: 'The refresh token was already used; the session is revoked.' };
    }
    if (decision !== 'ok') return { refused: `The refresh token is ${decision}.` };
    if (await loginBlocked(db, row.account_id)) {
      await revokeFamily();
      return { refused: `Account ${row.account_id} is blocked.` };
    }
    await db.execute('update refresh_token set used_at = now() where id = ?', [row.id]);
    return {
      token: await issueUserToken(db, signer, { clientId: row.client_id, integratorId: row.integrator_id, accountId: row.account_id, familyId: row.family_id }),
    };
  });
  // Refusals commit first (a revoked family stays revoked), then answer invalid_grant.
  if ('refused' in outcome) throw invalidGrant(outcome.refused!);
  return outcome.token;
}

/** Whether a user password token's account may still act (no login block), outside any transaction. */
export async function userSessionActive(em: EntityManager, accountId: string): Promise<boolean> {
  return !(await loginBlocked(autocommit(em), accountId));
}
