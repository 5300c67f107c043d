/**
 * user_session_nonce and refresh_token. Hand-written SQL: spending a nonce is
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
  /** When it was issued (real time): one issued before the account's latest login block is dead. */
  createdAt: Date;
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
  /** When the link was made (real time): one made before the account's latest login block is dead. */
  createdAt: Date;
}

/**
 * Stores a refresh token (its hash) expiring in `ttlSeconds`, with its session's scopes. Its time
 * is when the statement runs (the account row is locked by then), so it is older than any login
 * block recorded after it and newer than any recorded before it.
 */
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
    `insert into refresh_token (id, token_hash, family_id, account_id, integrator_id, client_id, scopes, expires_at, created_at)
     values (?, ?, ?, ?, ?, ?, ?::text[], ${tenantNowSql('?')} + (? * interval '1 second'), clock_timestamp())`,
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
      created_at: Date;
      now: Date;
    }>
  >(
    `select id, family_id, account_id, integrator_id, client_id, scopes, expires_at, used_at, revoked_at, created_at,
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
      createdAt: new Date(row.created_at),
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

/** Stores a redirect nonce (its hash) expiring in `ttlSeconds`, with its session's scopes; its time as a refresh token's. */
export async function insertSessionNonce(
  db: Db,
  nonce: { nonceHash: string; accountId: string; integratorId: string; clientId: string; scopes: string[]; ttlSeconds: number },
): Promise<void> {
  await db.execute(
    `insert into user_session_nonce (nonce_hash, account_id, integrator_id, client_id, scopes, expires_at, created_at)
     values (?, ?, ?, ?, ?::text[], ${tenantNowSql('?')} + (? * interval '1 second'), clock_timestamp())`,
    [nonce.nonceHash, nonce.accountId, nonce.integratorId, nonce.clientId, nonce.scopes, nonce.integratorId, nonce.ttlSeconds],
  );
}

/** Spends a live nonce (once): its session, or undefined when unknown, spent or expired. */
export async function spendSessionNonce(db: Db, nonceHash: string): Promise<NonceSession | undefined> {
  const [row] = await db.execute<
    Array<{ account_id: string; integrator_id: string; client_id: string; scopes: string[] | null; created_at: Date }>
  >(
    `update user_session_nonce set used_at = now()
      where nonce_hash = ? and used_at is null and expires_at > ${tenantNowSql('user_session_nonce.integrator_id')}
     returning account_id, integrator_id, client_id, scopes, created_at`,
    [nonceHash],
  );
  return (
    row && {
      accountId: row.account_id,
      integratorId: row.integrator_id,
      clientId: row.client_id,
      scopes: row.scopes,
      createdAt: new Date(row.created_at),
    }
  );
}
