/**
 * user_session_nonce, refresh_token and revoked_session. Hand-written SQL: spending a nonce is
 * one conditional UPDATE … RETURNING (exactly one request spends it), and these statements run
 * inside the plain-SQL transactions that also lock the account and check its blocks.
 * Expiry times are set and checked on the integrator's clock (`tenantNowSql`: real time, or
 * its staging test clock).
 */
import type { Db } from '../db/sql.js';
import { tenantNowSql } from '../sandbox/sandbox.repository.js';

/** A refresh token row, as the rotation needs it. */
export interface RefreshTokenRecord {
  id: string;
  familyId: string;
  accountId: string;
  integratorId: string;
  clientId: string;
  /** The scopes of the token that opened the session; null for a family older than the column (the client's). */
  scopes: string[] | null;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
  /** "Now" on the integrator's clock, to judge `expiresAt` by. */
  now: Date;
}

/** A spent redirect nonce's session. */
export interface NonceSession {
  accountId: string;
  integratorId: string;
  clientId: string;
  /** The scopes of the token that opened the session; null for a nonce older than the column (the client's). */
  scopes: string[] | null;
}

/** Stores a refresh token (its hash) expiring in `ttlSeconds`, with its session's scopes. */
export async function insertRefreshToken(
  db: Db,
  token: {
    id: string;
    tokenHash: string;
    familyId: string;
    accountId: string;
    integratorId: string;
    clientId: string;
    scopes: string[] | null;
    ttlSeconds: number;
  },
): Promise<void> {
  await db.execute(
    `insert into refresh_token (id, token_hash, family_id, account_id, integrator_id, client_id, scopes, expires_at)
     values (?, ?, ?, ?, ?, ?, ?::text[], ${tenantNowSql('?')} + (? * interval '1 second'))`,
    [
      token.id,
      token.tokenHash,
      token.familyId,
      token.accountId,
      token.integratorId,
      token.clientId,
      token.scopes,
      token.integratorId,
      token.ttlSeconds,
    ],
  );
}

/** The account a refresh token (by its hash) belongs to, read without a lock. */
export async function refreshTokenAccount(db: Db, tokenHash: string): Promise<{ accountId: string; integratorId: string } | undefined> {
  const [row] = await db.execute<Array<{ account_id: string; integrator_id: string }>>(
    'select account_id, integrator_id from refresh_token where token_hash = ?',
    [tokenHash],
  );
  return row && { accountId: row.account_id, integratorId: row.integrator_id };
}

/** The refresh token with this hash, locked for the caller's transaction. */
export async function lockRefreshToken(db: Db, tokenHash: string): Promise<RefreshTokenRecord | undefined> {
  const [row] = await db.execute<
    Array<{
      id: string;
      family_id: string;
      account_id: string;
      integrator_id: string;
      client_id: string;
      scopes: string[] | null;
      expires_at: Date;
      used_at: Date | null;
      revoked_at: Date | null;
      now: Date;
    }>
  >(
    `select id, family_id, account_id, integrator_id, client_id, scopes, expires_at, used_at, revoked_at,
            ${tenantNowSql('refresh_token.integrator_id')} as now
       from refresh_token where token_hash = ? for update`,
    [tokenHash],
  );
  return (
    row && {
      id: row.id,
      familyId: row.family_id,
      accountId: row.account_id,
      integratorId: row.integrator_id,
      clientId: row.client_id,
      scopes: row.scopes,
      expiresAt: new Date(row.expires_at),
      usedAt: row.used_at,
      revokedAt: row.revoked_at,
      now: new Date(row.now),
    }
  );
}

/** Marks a refresh token spent. */
export async function markRefreshTokenUsed(db: Db, id: string): Promise<void> {
  await db.execute('update refresh_token set used_at = now() where id = ?', [id]);
}

/** Revokes every live refresh token of a family. */
export async function revokeRefreshFamily(db: Db, familyId: string): Promise<void> {
  await db.execute('update refresh_token set revoked_at = now() where family_id = ? and revoked_at is null', [familyId]);
}

/**
 * Remembers a revoked session (its access tokens are refused), and forgets those revoked longer
 * ago than `memorySeconds` (no token of theirs is still alive).
 */
export async function insertRevokedSession(db: Db, sid: string, accountId: string, memorySeconds: number): Promise<void> {
  await db.execute(
    `with forgotten as (delete from revoked_session where revoked_at < now() - make_interval(secs => ?))
     insert into revoked_session (sid, account_id) values (?, ?) on conflict (sid) do nothing`,
    [memorySeconds, sid, accountId],
  );
}

/** Revokes every live refresh token of an account. */
export async function revokeAccountRefreshTokens(db: Db, accountId: string): Promise<void> {
  await db.execute('update refresh_token set revoked_at = now() where account_id = ? and revoked_at is null', [accountId]);
}

/** Expires the account's unspent redirect nonces (a link made before a login block never opens a session). */
export async function expireAccountSessionNonces(db: Db, accountId: string): Promise<void> {
  await db.execute('update user_session_nonce set expires_at = now() where account_id = ? and used_at is null and expires_at > now()', [
    accountId,
  ]);
}

/** Stores a redirect nonce (its hash) expiring in `ttlSeconds`, with its session's scopes. */
export async function insertSessionNonce(
  db: Db,
  nonce: { nonceHash: string; accountId: string; integratorId: string; clientId: string; scopes: string[]; ttlSeconds: number },
): Promise<void> {
  await db.execute(
    `insert into user_session_nonce (nonce_hash, account_id, integrator_id, client_id, scopes, expires_at)
     values (?, ?, ?, ?, ?::text[], ${tenantNowSql('?')} + (? * interval '1 second'))`,
    [nonce.nonceHash, nonce.accountId, nonce.integratorId, nonce.clientId, nonce.scopes, nonce.integratorId, nonce.ttlSeconds],
  );
}

/** Spends a live nonce (once): its session, or undefined when unknown, spent or expired. */
export async function spendSessionNonce(db: Db, nonceHash: string): Promise<NonceSession | undefined> {
  const [row] = await db.execute<Array<{ account_id: string; integrator_id: string; client_id: string; scopes: string[] | null }>>(
    `update user_session_nonce set used_at = now()
      where nonce_hash = ? and used_at is null and expires_at > ${tenantNowSql('user_session_nonce.integrator_id')}
     returning account_id, integrator_id, client_id, scopes`,
    [nonceHash],
  );
  return row && { accountId: row.account_id, integratorId: row.integrator_id, clientId: row.client_id, scopes: row.scopes };
}
