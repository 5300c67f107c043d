/**
 * Clients and access tokens: client credentials in, signed JWT out, the verification every
 * authenticated request goes through, and what is revoked (clients, user sessions).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import { db as pooled, type Db } from '../db/sql.js';
import { ensureIntegrator } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { newId } from '../ids.js';
import {
  clientRevoked,
  dropDeadSigningKeys,
  dropSigningKeysExcept,
  findClientById,
  insertClient,
  insertRevokedSession,
  insertSigningKey,
  liveSigningKeys,
  revokeClientRow,
  rotateClientSecretRow,
  selectClients,
  selectClientScopes,
} from './auth.repository.js';
import { ACCESS_TOKEN_TTL_SECONDS, grantScopes, parseScopeList } from './auth.rules.js';
import { MAX_TOKEN_TTL_SECONDS, TOKEN_MEMORY_SECONDS, previousSecretValid, tokenTimesProblem } from './credential.rules.js';
import { TokenState, type TokenChange, type TokenStateSync } from './token-state.service.js';

/**
 * A user password token's claims: its account, and its session's scopes (those of the token that
 * opened it, as far as the client holds them; never operator or unblock rights). A token minted before user tokens carried scopes
 * has `scope: ''`, so it holds none and every operation refuses it until its refresh.
 */
function userTokenClaims(principal: Principal) {
  return {
    int: principal.integratorId,
    scope: principal.scopes.join(' '),
    acct: principal.accountId,
    jti: randomBytes(12).toString('base64url'),
  };
}

/** The principal of a verified user password token (see `userTokenClaims`). */
function userTokenPrincipal(clientId: string, integratorId: string, accountId: string, scope: string): Principal {
  return { clientId, integratorId, scopes: parseScopeList(scope), isOperator: false, canUnblock: false, accountId };
}

const ISSUER = 'holdfast';
const AUDIENCE = 'holdfast-api';
/** User password tokens have their own audience: one can never pass for a client token. */
const USER_AUDIENCE = 'holdfast-user';

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** A client secret: 256 random bits. */
function newClientSecret(): string {
  return `hfs_${randomBytes(32).toString('base64url')}`;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** How many verified tokens a process remembers (tokens are immutable until they expire). */
const VERIFIED_CACHE_SIZE = 10_000;

/**
 * Signs and verifies access tokens with the HMAC keys shared through PostgreSQL, and refuses
 * revoked ones (`token-state.service.ts`: keys and revocations every web process agrees on).
 */
export class TokenSigner {
  /**
   * Verified tokens → principal, expiry (s) and the `kid` of the key that signed them; saves an
   * HMAC per request for a reused token. A hit counts only while that key is still loaded.
   */
  private readonly verified = new Map<string, { principal: Principal; exp: number; kid: string }>();

  private constructor(private readonly state: TokenState) {}

  /**
   * Loads the signing keys (creating the first on the very first boot; safe when processes race)
   * and what is revoked. `sync`: how to hear other processes' changes (Redis); without it every
   * revocation check reads PostgreSQL.
   */
  static async load(em: EntityManager, sync?: TokenStateSync): Promise<TokenSigner> {
    return new TokenSigner(await TokenState.load(em, sync));
  }

  /** Applies a committed revocation or key change in this process, then tells the others. */
  announce(change: TokenChange): Promise<void> {
    return this.state.announce(change);
  }

  /** Settles once this process hears other processes' changes (never when loaded without Redis). */
  heardOthers(): Promise<void> {
    return this.state.firstSync;
  }

  /** Stops hearing changes (closes the subscriber connection). */
  close(): Promise<void> {
    return this.state.close();
  }

  async sign(principal: Principal, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): Promise<string> {
    if (principal.accountId && !principal.sessionId) throw new Error('a user password token needs its session id');
    // Verification refuses a longer life (see `tokenTimesProblem`).
    if (ttlSeconds > MAX_TOKEN_TTL_SECONDS) throw new Error(`tokens live at most ${MAX_TOKEN_TTL_SECONDS} s`);
    const claims = principal.accountId
      ? userTokenClaims(principal)
      : { int: principal.integratorId, scope: principal.scopes.join(' '), op: principal.isOperator, unb: principal.canUnblock };
    // Revocation: a user token names its session; `iat` has milliseconds, so a token is never
    // mistaken for one issued before a login block of the same second.
    const session = principal.accountId ? { sid: principal.sessionId } : {};
    const { kid, key } = await this.state.signingKey();
    const now = Date.now();
    return new SignJWT({ ...claims, ...session })
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(principal.accountId ? USER_AUDIENCE : AUDIENCE)
      .setSubject(principal.clientId)
      .setIssuedAt(now / 1000)
      .setExpirationTime(Math.floor(now / 1000) + ttlSeconds)
      .sign(key);
  }

  /** The token's principal; throws AppError `unauthorized` saying why the token is refused. */
  async verify(token: string): Promise<Principal> {
    const principal = await this.verifySignature(token);
    // Revoked clients and sessions: checked at every use, cached token or not.
    if (await this.state.revoked(principal.clientId, principal.sessionId)) {
      throw new AppError('unauthorized', 'The access token was revoked.', { codes: ['UNAUTHORIZED'] });
    }
    return principal;
  }

  private async verifySignature(token: string): Promise<Principal> {
    const cached = this.verified.get(token);
    // A key that is no longer loaded (replaced long ago, or retired at once) verifies nothing,
    // cached or not: the token goes through full verification again, which refuses it.
    if (cached && cached.exp > Date.now() / 1000 && this.state.hasKey(cached.kid)) return cached.principal;
    if (cached) this.verified.delete(token);
    try {
      const { payload, protectedHeader } = await jwtVerify(
        token,
        async (header) => {
          const key = await this.state.verificationKey(header.kid);
          if (!key) throw new AppError('unauthorized', 'The access token is invalid.', { codes: ['UNAUTHORIZED'] });
          return key;
        },
        { issuer: ISSUER, audience: [AUDIENCE, USER_AUDIENCE], algorithms: ['HS256'] },
      );
      const user = payload.aud === USER_AUDIENCE;
      if (
        typeof payload.sub !== 'string' ||
        typeof payload.int !== 'string' ||
        typeof payload.scope !== 'string' ||
        typeof payload.exp !== 'number' ||
        (user && typeof payload.acct !== 'string') ||
        (user && typeof payload.iat !== 'number') ||
        (payload.sid !== undefined && typeof payload.sid !== 'string')
      ) {
        throw new AppError('unauthorized', 'The access token is malformed.', { codes: ['UNAUTHORIZED'] });
      }
      // No token Holdfast issues lives longer than an hour or was issued in the future: one that
      // does was forged with a leaked key, and must not outlive that key's verification window.
      if (tokenTimesProblem(payload.iat, payload.exp, Date.now() / 1000)) {
        throw new AppError('unauthorized', 'The access token is invalid.', { codes: ['UNAUTHORIZED'] });
      }
      const principal: Principal = user
        ? {
            ...userTokenPrincipal(payload.sub, payload.int, payload.acct as string, payload.scope),
            // Tokens issued before sessions were named carry none (they expire within the hour).
            sessionId: payload.sid as string | undefined,
            issuedAt: Math.round((payload.iat as number) * 1000),
          }
        : {
            clientId: payload.sub,
            integratorId: payload.int,
            scopes: parseScopeList(payload.scope),
            isOperator: payload.op === true,
            canUnblock: payload.unb === true,
          };
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { principal, exp: payload.exp, kid: protectedHeader.kid as string });
      return principal;
    } catch (err) {
      if (err instanceof AppError) throw err;
      const expired = err instanceof joseErrors.JWTExpired;
      throw new AppError('unauthorized', expired ? 'The access token expired.' : 'The access token is invalid.', {
        codes: ['UNAUTHORIZED'],
      });
    }
  }
}

/** Creates a client of the named integrator (creating a missing integrator with no token currency). */
export async function createClient(
  em: EntityManager,
  input: { integrator: string; scopes: string[]; isOperator?: boolean; canUnblock?: boolean; tosSigning?: boolean },
): Promise<{ client_id: string; client_secret: string; integrator: string; scopes: string[] }> {
  return (await createClientReporting(em, input)).client;
}

/** createClient, also saying whether it had to create the integrator (`holdfast client create` tells the operator). */
export async function createClientReporting(
  em: EntityManager,
  input: { integrator: string; scopes: string[]; isOperator?: boolean; canUnblock?: boolean; tosSigning?: boolean },
): Promise<{ client: { client_id: string; client_secret: string; integrator: string; scopes: string[] }; integratorCreated: boolean }> {
  return em.transactional(async (tx) => {
    const { integrator, created } = await ensureIntegrator(tx, input.integrator);
    const secret = newClientSecret();
    const client = await insertClient(tx, {
      integrator,
      secretHash: hashSecret(secret),
      scopes: input.scopes,
      isOperator: input.isOperator ?? false,
      canUnblock: input.canUnblock ?? false,
      tosSigning: input.tosSigning ?? false,
    });
    return {
      client: { client_id: client.id, client_secret: secret, integrator: integrator.name, scopes: client.scopes },
      integratorCreated: created,
    };
  });
}

/**
 * Revokes a client: it gets no token any more, and every token it holds or minted (its client
 * tokens, the user password tokens of its sessions) is refused by every web process. Null for
 * an unknown client; `already` when it was revoked before.
 */
export async function revokeClient(
  em: EntityManager,
  clientId: string,
  audit?: AuditContext,
): Promise<{ client_id: string; revoked_at: string; already: boolean } | null> {
  const revoked = await pooled(em).transaction(async (db) => {
    const row = await revokeClientRow(db, clientId);
    // Recorded when it revokes (a second revocation changes nothing).
    if (row && !row.already && audit)
      await recordAudit(db, {
        integratorId: row.integratorId,
        context: audit,
        action: 'client.revoke',
        target: { type: 'client', id: clientId },
        after: { revoked_at: row.revokedAt.toISOString() },
      });
    return row;
  });
  return revoked && { client_id: clientId, revoked_at: revoked.revokedAt.toISOString(), already: revoked.already };
}

/**
 * A new secret for a client (shown once, stored as a hash); the old one keeps working for
 * `graceHours`. Null for an unknown client; a revoked one is a conflict.
 */
export async function rotateClientSecret(
  em: EntityManager,
  clientId: string,
  graceHours: number,
  audit?: AuditContext,
): Promise<{ client_id: string; client_secret: string; previous_secret_expires_at: string } | null> {
  const secret = newClientSecret();
  const rotated = await pooled(em).transaction(async (db) => {
    const row = await rotateClientSecretRow(db, clientId, hashSecret(secret), graceHours * 3600);
    // Never the secret, nor its hash: when the old one stops working.
    if (typeof row === 'object' && audit)
      await recordAudit(db, {
        integratorId: row.integratorId,
        context: audit,
        action: 'client.rotate_secret',
        target: { type: 'client', id: clientId },
        after: { previous_secret_expires_at: row.previousExpiresAt.toISOString() },
      });
    return row;
  });
  if (rotated === 'missing') return null;
  if (rotated === 'revoked') throw new AppError('conflict', `client ${clientId} is revoked`, { codes: ['CLIENT_REVOKED'] });
  return { client_id: clientId, client_secret: secret, previous_secret_expires_at: rotated.previousExpiresAt.toISOString() };
}

/**
 * A new signing key: new tokens carry its `kid` from now on (every web process is told), older
 * keys verify until their tokens expire, and keys replaced long enough ago are deleted.
 * `retireNow` (a leaked key): every older key is deleted at once, so the tokens they signed are
 * refused as soon as each web process hears of it (or reloads the keys); the caller announces
 * the deleted ids (`TokenChange.retiredKeys`).
 */
export async function rotateSigningKey(
  em: EntityManager,
  opts: { retireNow?: boolean } = {},
): Promise<{ kid: string; verifying: string[]; dropped: string[] }> {
  const kid = newId('key');
  return pooled(em).transaction(async (db) => {
    await insertSigningKey(db, kid, randomBytes(32).toString('base64url'));
    if (opts.retireNow) return { kid, verifying: [], dropped: await dropSigningKeysExcept(db, kid) };
    const dropped = await dropDeadSigningKeys(db, TOKEN_MEMORY_SECONDS);
    const live = await liveSigningKeys(db, TOKEN_MEMORY_SECONDS);
    return { kid, verifying: live.map((k) => k.id).filter((id) => id !== kid), dropped };
  });
}

/** Finds a client by id, or null. */
export function findClient(em: EntityManager, clientId: string) {
  return findClientById(em, clientId, true);
}

/** The client with these credentials; `invalid_client` (401) otherwise. */
export async function authenticateClient(em: EntityManager, clientId?: string, clientSecret?: string) {
  if (!clientId || !clientSecret) {
    throw new AppError('unauthorized', 'Client authentication failed.', { codes: ['invalid_client'] });
  }
  const client = /^[A-Za-z0-9_-]{1,36}$/.test(clientId) ? await findClientById(em, clientId) : null;
  const hash = hashSecret(clientSecret);
  // The current secret, or the one it replaced while that one's grace lasts; never a revoked client.
  const matches =
    client &&
    (sameHash(client.secretHash, hash) ||
      (client.previousSecretHash != null &&
        previousSecretValid(client.previousSecretExpiresAt, new Date()) &&
        sameHash(client.previousSecretHash, hash)));
  if (!client || !matches || client.revokedAt != null) {
    throw new AppError('unauthorized', 'Client authentication failed.', { codes: ['invalid_client'] });
  }
  return client;
}

/** RFC 6749 §4.4: exchanges client credentials for an access token. */
export async function issueClientToken(
  em: EntityManager,
  signer: TokenSigner,
  input: { clientId?: string; clientSecret?: string; scope?: string },
): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }> {
  const client = await authenticateClient(em, input.clientId, input.clientSecret);
  const granted = grantScopes(client.scopes, parseScopeList(input.scope));
  if (!granted.ok) {
    throw new AppError('invalid_input', `The client does not hold the scope(s): ${granted.notGranted.join(', ')}.`, {
      codes: ['invalid_scope'],
    });
  }
  const principal: Principal = {
    clientId: client.id,
    integratorId: client.integrator.id,
    scopes: granted.scopes,
    isOperator: client.isOperator,
    canUnblock: client.canUnblock,
  };
  return {
    access_token: await signer.sign(principal),
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_TTL_SECONDS,
    scope: granted.scopes.join(' '),
  };
}

/** Whether the client is revoked (an unknown one counts as revoked), in the caller's transaction. */
export function isClientRevoked(db: Db, clientId: string): Promise<boolean> {
  return clientRevoked(db, clientId);
}

/**
 * The scopes the client holds now, or undefined when there is no such client: the most a user
 * password token opened by that client may hold, read at every mint and refresh.
 */
export function clientScopes(db: Db, clientId: string): Promise<string[] | undefined> {
  return selectClientScopes(db, clientId);
}

/**
 * Records a user session as revoked in the caller's transaction: its access tokens are refused
 * once the caller announces it (`TokenSigner.announce`) and, meanwhile, on every read of
 * PostgreSQL.
 */
export function revokeSession(db: Db, sid: string, accountId: string): Promise<void> {
  return insertRevokedSession(db, sid, accountId, TOKEN_MEMORY_SECONDS);
}

/** A client as `holdfast client list` shows it: never its secret nor the secret's hash. */
export interface ClientListing {
  client_id: string;
  integrator_id: string;
  integrator: string;
  scopes: string[];
  operator: boolean;
  can_unblock: boolean;
  tos_signing: boolean;
  created_at: string;
  revoked_at: string | null;
}

/** Every client, oldest first, or only those of one integrator (its id). */
export async function listClients(em: EntityManager, integratorId?: string): Promise<ClientListing[]> {
  return (await selectClients(pooled(em), integratorId)).map((row) => ({
    client_id: row.id,
    integrator_id: row.integrator_id,
    integrator: row.integrator,
    scopes: row.scopes,
    operator: row.is_operator,
    can_unblock: row.can_unblock,
    tos_signing: row.tos_signing,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  }));
}
