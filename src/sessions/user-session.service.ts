/**
 * User sessions: `POST /authorize/user` opens one for an account of
 * the caller's integrator — a single-use redirect nonce, or a user password token with a
 * refresh token. Refresh tokens rotate at each use; a reused one revokes its whole family, and
 * the access tokens of that session (`sid`) are refused at once by every web process.
 * Nonces and refresh tokens are stored only as SHA-256 hashes. A login-blocked account gets none,
 * and an access token, refresh token or link issued before the account's latest login block
 * never works again.
 *
 * A user password token never does more than the token that opened its session: the session
 * (its refresh-token family, its redirect nonce) records that token's scopes, and every access
 * token minted here (with the session, from a hosted-page nonce, at each refresh) carries those
 * scopes as far as the client still holds them at that moment (`sessionTokenScopes`). A client
 * token narrowed with `scope=` therefore opens sessions narrowed the same way.
 *
 * Every token is issued with the account row locked for share, and a login block locks it for
 * update: a token is either issued before the block is recorded (and is refused as older than
 * it) or sees the block and is not issued.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { db as pooled, type Db } from '../db/sql.js';
import { lockAccount } from '../accounts/account.repository.js';
import {
  insertRefreshToken,
  insertSessionNonce,
  lockRefreshToken,
  markRefreshTokenUsed,
  type NonceSession,
  refreshTokenAccount,
  revokeRefreshFamily,
  spendSessionNonce,
} from './user-session.repository.js';
import { sessionTokenScopes } from './user-session.rules.js';
import { blockedError, loginBlocked, loginBlockState } from '../blocks/block.service.js';
import type { Principal } from '../integrators/principal.js';
import { authenticateClient, clientScopes, isClientRevoked, revokeSession, type TokenSigner } from '../auth/auth.service.js';
import { REFRESH_TOKEN_TTL_SECONDS, SESSION_NONCE_TTL_SECONDS, USER_TOKEN_TTL_SECONDS, refreshDecision } from '../auth/auth.rules.js';
import { issuedBeforeLoginBlock } from '../auth/credential.rules.js';

/** The user password token (`authorizeUser` with `return_token`). */
export interface UserToken {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  /** When the access token expires (ISO 8601). */
  expiry: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const invalidGrant = (message: string) => new AppError('invalid_input', message, { codes: ['invalid_grant'] });

/** A user access token for the session's account, with the scopes it may hold now (`sessionTokenScopes`). */
function signUserAccess(
  signer: TokenSigner,
  session: { clientId: string; integratorId: string; accountId: string; familyId: string },
  scopes: string[],
): Promise<string> {
  return signer.sign(
    {
      clientId: session.clientId,
      integratorId: session.integratorId,
      scopes,
      isOperator: false,
      canUnblock: false,
      accountId: session.accountId,
      sessionId: session.familyId,
    },
    USER_TOKEN_TTL_SECONDS,
  );
}

/**
 * A user password token and its refresh token. The refresh token records the session's scopes
 * (`sessionScopes`: the opening token's, or null for a family older than that record), and the
 * access token carries `scopes`, what the session may hold now.
 */
async function issueUserToken(
  db: Db,
  signer: TokenSigner,
  session: { clientId: string; integratorId: string; accountId: string; familyId: string; sessionScopes: string[] | null },
  scopes: string[],
): Promise<UserToken> {
  const refresh = `hfr_${randomBytes(32).toString('base64url')}`;
  const { sessionScopes, ...owner } = session;
  await insertRefreshToken(db, {
    id: newId('rft'),
    tokenHash: sha256(refresh),
    ...owner,
    scopes: sessionScopes,
    ttlSeconds: REFRESH_TOKEN_TTL_SECONDS,
  });
  const access = await signUserAccess(signer, owner, scopes);
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
 * caller cannot see; 403 for a login-blocked one, and then nothing is created.
 */
export async function authorizeUser(
  em: EntityManager,
  signer: TokenSigner,
  principal: Principal,
  input: { account_id: string; return_token?: boolean },
  webUrl: string,
): Promise<{ redirect: string } | { token: UserToken }> {
  return pooled(em).transaction(async (db) => {
    if (!(await lockAccount(db, principal.integratorId, input.account_id, 'share')))
      throw AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');
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
 * user password token, or a single-use redirect nonce (24 h). 403 for a login-blocked
 * account, which then gets neither. The session records the caller's token's scopes
 * (`principal.scopes`, narrowed by `scope=` when it was), and its tokens never hold more.
 */
export async function openUserSession(
  db: Db,
  signer: TokenSigner,
  principal: Principal,
  accountId: string,
  returnToken: boolean,
): Promise<{ token: UserToken } | { nonce: string }> {
  if (!(await lockAccount(db, principal.integratorId, accountId, 'share')))
    throw AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');
  if (await loginBlocked(db, accountId)) throw blockedError(accountId);
  const session = { clientId: principal.clientId, integratorId: principal.integratorId, accountId };
  const opened = [...principal.scopes];
  if (returnToken) {
    const scopes = sessionTokenScopes(opened, (await clientScopes(db, principal.clientId)) ?? []);
    return { token: await issueUserToken(db, signer, { ...session, familyId: newId('rtf'), sessionScopes: opened }, scopes) };
  }
  const nonce = randomBytes(32).toString('base64url');
  await insertSessionNonce(db, { nonceHash: sha256(nonce), ...session, scopes: opened, ttlSeconds: SESSION_NONCE_TTL_SECONDS });
  return { nonce };
}

/**
 * Opens the hosted pages' session from a redirect nonce (spent here, once): a user access token
 * for its account, as short-lived as any, with no refresh token (a session of its own), and the
 * scopes it carries — or null when the nonce is unknown, spent, expired, its account is
 * login-blocked or its client revoked.
 */
export async function openHostedSession(
  em: EntityManager,
  signer: TokenSigner,
  nonce: string,
): Promise<{ accountId: string; accessToken: string; scopes: string[] } | null> {
  return pooled(em).transaction(async (db) => {
    const session = await spendNonce(db, nonce);
    if (!session) return null;
    const scopes = sessionTokenScopes(session.scopes, (await clientScopes(db, session.clientId)) ?? []);
    // A hosted-page session is its own: it has no refresh token, so its family is new.
    const accessToken = await signUserAccess(signer, { ...session, familyId: newId('rtf') }, scopes);
    return { accountId: session.accountId, accessToken, scopes };
  });
}

/**
 * Spends a redirect nonce (the hosted pages do, once): the session's account, or null when the
 * nonce is unknown, spent, expired, its account is now login-blocked or its client revoked.
 */
export async function consumeSessionNonce(em: EntityManager, nonce: string): Promise<NonceSession | null> {
  return pooled(em).transaction((db) => spendNonce(db, nonce));
}

async function spendNonce(db: Db, nonce: string): Promise<NonceSession | null> {
  const session = await spendSessionNonce(db, sha256(nonce));
  if (!session) return null;
  await lockAccount(db, session.integratorId, session.accountId, 'share');
  if ((await loginSessionState(db, session.accountId, session.createdAt)) !== 'active') return null;
  if (await isClientRevoked(db, session.clientId)) return null;
  return session;
}

/**
 * What the account's login blocks say of a session's token or link issued at `issuedAt` (ms):
 * `blocked` while login is blocked, `revoked` when it was issued before the latest login block
 * (even once lifted), else `active`. A login block ends the sessions opened before it with no
 * write of its own: this is where they end, for access tokens, refresh tokens and links alike.
 */
async function loginSessionState(db: Db, accountId: string, issuedAt: number | Date): Promise<'active' | 'blocked' | 'revoked'> {
  const login = await loginBlockState(db, accountId);
  if (login.blocked) return 'blocked';
  return issuedBeforeLoginBlock(new Date(issuedAt).getTime(), login.lastBlockedAt) ? 'revoked' : 'active';
}

/**
 * `POST /token` with `grant_type=refresh_token`: a new user password token and refresh token;
 * the old refresh token is spent. Client credentials are optional (the SDK holds none), but
 * when sent they must be valid and be the client the session was opened by.
 */
export async function refreshUserToken(
  em: EntityManager,
  signer: TokenSigner,
  input: { refreshToken?: string; clientId?: string; clientSecret?: string },
): Promise<UserToken> {
  if (!input.refreshToken) throw new AppError('invalid_input', 'refresh_token is required.', { codes: ['invalid_request'] });
  const client = input.clientId || input.clientSecret ? await authenticateClient(em, input.clientId, input.clientSecret) : null;
  const refreshToken = input.refreshToken;
  const outcome = await pooled(em).transaction(async (db) => {
    const owner = await refreshTokenAccount(db, sha256(refreshToken));
    // The account first (as every token issue does), then the token: a login block waits for this.
    if (owner) await lockAccount(db, owner.integratorId, owner.accountId, 'share');
    const row = await lockRefreshToken(db, sha256(refreshToken));
    if (!row || (client && client.id !== row.clientId)) return { refused: 'The refresh token is invalid.' };
    const decision = refreshDecision({ usedAt: row.usedAt, revokedAt: row.revokedAt, expiresAt: row.expiresAt }, row.now);
    const revokeFamily = () => revokeRefreshFamily(db, row.familyId);
    if (decision === 'reused') {
      // Someone replayed a spent token: whoever holds the newer one loses it too, and every
      // access token of the session stops working.
      await revokeFamily();
      await revokeSession(db, row.familyId, row.accountId);
      return { refused: 'The refresh token was already used; the session is revoked.', revokedSession: row.familyId };
    }
    if (decision !== 'ok') return { refused: `The refresh token is ${decision}.` };
    if (await isClientRevoked(db, row.clientId)) return { refused: 'The refresh token is revoked.' };
    const login = await loginSessionState(db, row.accountId, row.createdAt);
    if (login !== 'active') {
      await revokeFamily();
      return { refused: login === 'blocked' ? `Account ${row.accountId} is blocked.` : 'The refresh token is revoked.' };
    }
    // The new access token carries the session's scopes as far as the client holds them now;
    // the new refresh token records the session's scopes unchanged, never the client's.
    const held = await clientScopes(db, row.clientId);
    if (!held) return { refused: 'The refresh token is invalid.' };
    await markRefreshTokenUsed(db, row.id);
    return {
      token: await issueUserToken(
        db,
        signer,
        {
          clientId: row.clientId,
          integratorId: row.integratorId,
          accountId: row.accountId,
          familyId: row.familyId,
          sessionScopes: row.scopes,
        },
        sessionTokenScopes(row.scopes, held),
      ),
    };
  });
  // Refusals commit first (a revoked family stays revoked), then answer invalid_grant; a revoked
  // session is announced to every web process before the answer.
  if ('refused' in outcome) {
    if (outcome.revokedSession) await signer.announce({ sessions: [outcome.revokedSession] });
    throw invalidGrant(outcome.refused!);
  }
  return outcome.token;
}

/**
 * Whether a user password token may still act for its account: `blocked` while the account's
 * login is blocked (403), `revoked` when the token was issued before the account's latest login
 * block (401, even once the block is lifted). Read outside any transaction.
 */
export function userSessionState(em: EntityManager, principal: Principal): Promise<'active' | 'blocked' | 'revoked'> {
  return loginSessionState(pooled(em), principal.accountId!, principal.issuedAt ?? 0);
}
