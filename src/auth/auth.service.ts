/**
 * Integrators, clients and access tokens: client credentials in, signed JWT out, and the
 * verification every authenticated request goes through.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { AppError } from '../errors.js';
import type { IIntegrator } from './integrator.entity.js';
import {
  ensureIntegratorNamed,
  ensureIntegratorTokens,
  ensureSigningKey,
  findClientById,
  findIntegratorByName,
  getIntegrator,
  insertClient,
  insertIntegrator,
} from './auth.repository.js';
import { ACCESS_TOKEN_TTL_SECONDS, grantScopes, parseScopeList } from './auth.rules.js';

/** Who is calling: the verified content of a client access token. */
export interface Principal {
  clientId: string;
  integratorId: string;
  scopes: string[];
  isOperator: boolean;
  /** The publisher's licence to unblock blocks it issued. */
  canUnblock: boolean;
  /**
   * Set for a user password token: the one account it acts for. Such a token's `scopes` are
   * those of the client that opened its session (read when it was minted); the operations
   * that accept it require them as they do of client tokens.
   */
  accountId?: string;
}

/**
 * A user password token's claims: its account, and the scopes of the client that opened its
 * session (never operator or unblock rights). A token minted before user tokens carried scopes
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
const PRIMARY_KEY_ID = 'key_primary';

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** How many verified tokens a process remembers (tokens are immutable until they expire). */
const VERIFIED_CACHE_SIZE = 10_000;

/** Signs and verifies access tokens with the HMAC key shared through PostgreSQL. */
export class TokenSigner {
  /** Verified tokens → principal and expiry (s); saves an HMAC per request for a reused token. */
  private readonly verified = new Map<string, { principal: Principal; exp: number }>();

  private constructor(
    private readonly kid: string,
    private readonly key: CryptoKey,
  ) {}

  /** Loads the signing key, creating it on the very first boot (safe when processes race). */
  static async load(em: EntityManager): Promise<TokenSigner> {
    const row = await ensureSigningKey(em, PRIMARY_KEY_ID, randomBytes(32).toString('base64url'));
    const key = await crypto.subtle.importKey('raw', Buffer.from(row.secret, 'base64url'), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ]);
    return new TokenSigner(row.id, key);
  }

  async sign(principal: Principal, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): Promise<string> {
    const claims = principal.accountId
      ? userTokenClaims(principal)
      : { int: principal.integratorId, scope: principal.scopes.join(' '), op: principal.isOperator, unb: principal.canUnblock };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: this.kid, typ: 'JWT' })
      .setIssuer(ISSUER)
      .setAudience(principal.accountId ? USER_AUDIENCE : AUDIENCE)
      .setSubject(principal.clientId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
      .sign(this.key);
  }

  /** The token's principal; throws AppError `unauthorized` saying why the token is refused. */
  async verify(token: string): Promise<Principal> {
    const cached = this.verified.get(token);
    if (cached && cached.exp > Date.now() / 1000) return cached.principal;
    if (cached) this.verified.delete(token);
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: [AUDIENCE, USER_AUDIENCE], algorithms: ['HS256'] });
      const user = payload.aud === USER_AUDIENCE;
      if (
        typeof payload.sub !== 'string' ||
        typeof payload.int !== 'string' ||
        typeof payload.scope !== 'string' ||
        typeof payload.exp !== 'number' ||
        (user && typeof payload.acct !== 'string')
      ) {
        throw new AppError('unauthorized', 'The access token is malformed.', { codes: ['UNAUTHORIZED'] });
      }
      const principal: Principal = user
        ? userTokenPrincipal(payload.sub, payload.int, payload.acct as string, payload.scope)
        : {
            clientId: payload.sub,
            integratorId: payload.int,
            scopes: parseScopeList(payload.scope),
            isOperator: payload.op === true,
            canUnblock: payload.unb === true,
          };
      if (this.verified.size >= VERIFIED_CACHE_SIZE) this.verified.delete(this.verified.keys().next().value!);
      this.verified.set(token, { principal, exp: payload.exp });
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

export interface IntegratorProfile {
  id: string;
  name: string;
  tokenCurrency: string | null;
  tokensPerUsd: number | null;
}

/** Integrators never change once made (there is no way to): each process remembers them. */
const integrators = new Map<string, IntegratorProfile>();

/** The integrator's name and token currency. */
export async function integratorProfile(em: EntityManager, integratorId: string): Promise<IntegratorProfile> {
  const known = integrators.get(integratorId);
  if (known) return known;
  const row = await getIntegrator(em, integratorId);
  const profile = { id: row.id, name: row.name, tokenCurrency: row.tokenCurrency ?? null, tokensPerUsd: row.tokensPerUsd ?? null };
  integrators.set(integratorId, profile);
  return profile;
}

/** The integrator (its entity, for a unit of work that references it); it must exist. */
export function loadIntegrator(em: EntityManager, integratorId: string): Promise<IIntegrator> {
  return getIntegrator(em, integratorId);
}

/** Creates an integrator; a taken name is a conflict. */
export async function createIntegrator(
  em: EntityManager,
  input: { name: string; tokenCurrency?: string; tokensPerUsd?: number },
): Promise<IIntegrator> {
  if (await findIntegratorByName(em, input.name)) {
    throw new AppError('conflict', `An integrator named "${input.name}" already exists.`, { codes: ['INTEGRATOR_EXISTS'] });
  }
  return insertIntegrator(em, { name: input.name, tokenCurrency: input.tokenCurrency ?? null, tokensPerUsd: input.tokensPerUsd ?? null });
}

/** Makes the named integrator with this token currency, or gives it one when it has none. */
export function ensureIntegratorTokenCurrency(em: EntityManager, name: string, tokenCurrency: string, tokensPerUsd: number): Promise<void> {
  return ensureIntegratorTokens(em, name, tokenCurrency, tokensPerUsd);
}

/** Creates a client of the named integrator (creating a missing integrator with no token currency). */
export async function createClient(
  em: EntityManager,
  input: { integrator: string; scopes: string[]; isOperator?: boolean; canUnblock?: boolean; tosSigning?: boolean },
): Promise<{ client_id: string; client_secret: string; integrator: string; scopes: string[] }> {
  return em.transactional(async (tx) => {
    const integrator = await ensureIntegratorNamed(tx, input.integrator);
    const secret = `hfs_${randomBytes(32).toString('base64url')}`;
    const client = await insertClient(tx, {
      integrator,
      secretHash: hashSecret(secret),
      scopes: input.scopes,
      isOperator: input.isOperator ?? false,
      canUnblock: input.canUnblock ?? false,
      tosSigning: input.tosSigning ?? false,
    });
    return { client_id: client.id, client_secret: secret, integrator: integrator.name, scopes: client.scopes };
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
  if (!client || !sameHash(client.secretHash, hashSecret(clientSecret))) {
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
