/**
 * The `svc_auth` and `user_auth` check: verifies the bearer token and the scopes that the
 * OpenAPI operation lists for its kind of token, so the documents are the only place scopes are
 * declared. Refusals are 401 with an RFC 6750 `WWW-Authenticate` challenge.
 */
import type { Request } from 'express';
import { AppError } from '../errors.js';
import { missingScopes } from '../auth/auth.rules.js';
import { blockedError } from '../blocks/block.service.js';
import type { Principal } from '../integrators/principal.js';
import type { TokenSigner } from '../auth/auth.service.js';
import type { SecurityCheck } from './request-validation.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function refuse(message: string, code: 'UNAUTHORIZED' | 'INSUFFICIENT_SCOPE', challenge: { error?: string; scope?: string } = {}): never {
  const parts = ['Bearer realm="holdfast"'];
  if (challenge.error) parts.push(`error="${challenge.error}"`, `error_description="${message.replace(/"/g, "'")}"`);
  if (challenge.scope) parts.push(`scope="${challenge.scope}"`);
  throw new AppError('unauthorized', message, { codes: [code], payload: null, headers: { 'WWW-Authenticate': parts.join(', ') } });
}

/** Refuses a token that lacks one of the operation's scopes. */
function requireScopes(held: readonly string[], required: string[], token: string, why = ''): void {
  const missing = missingScopes(held, required);
  if (missing.length) {
    refuse(`The ${token} lacks the scope ${missing.join(' ')}${why}.`, 'INSUFFICIENT_SCOPE', {
      error: 'insufficient_scope',
      scope: required.join(' '),
    });
  }
}

/**
 * The check run for every operation that declares `svc_auth` or `user_auth`; sets `req.principal`. A user
 * password token passes only where the operation also declares `user_auth`, only with the
 * scopes listed there (it holds those of the token that opened its session, as far as the
 * client still holds them), only while its account is not login-blocked (403 otherwise) and
 * only if it is newer than the account's latest login block (401 otherwise). Revoked clients
 * and sessions are refused by `signer.verify` (401).
 */
export function bearerAuthentication(
  signer: TokenSigner,
  sessionState: (req: Request, principal: Principal) => Promise<'active' | 'blocked' | 'revoked'>,
): SecurityCheck {
  return async (req: Request, scopes: string[] | undefined, userScopes: string[] | undefined) => {
    const header = req.headers.authorization;
    if (!header) refuse('An access token is required.', 'UNAUTHORIZED');
    const match = BEARER.exec(header);
    if (!match) refuse('The Authorization header must be "Bearer <token>".', 'UNAUTHORIZED', { error: 'invalid_token' });
    let principal: Awaited<ReturnType<typeof signer.verify>>;
    try {
      principal = await signer.verify(match[1]);
    } catch (err) {
      refuse(err instanceof AppError ? err.message : 'The access token is invalid.', 'UNAUTHORIZED', { error: 'invalid_token' });
    }
    if (principal.accountId) {
      if (!userScopes)
        refuse('A user password token cannot call this operation; use a client token.', 'UNAUTHORIZED', { error: 'invalid_token' });
      const session = await sessionState(req, principal);
      if (session === 'blocked') throw blockedError(principal.accountId);
      if (session === 'revoked') refuse('The access token was revoked.', 'UNAUTHORIZED', { error: 'invalid_token' });
      requireScopes(
        principal.scopes,
        userScopes,
        'user password token',
        ' (it holds the scopes of the token that opened its session, as far as its client still holds them)',
      );
      req.principal = principal;
      return;
    }
    // An operation for the person alone (it declares only `user_auth`) takes no client token.
    if (!scopes) refuse("This operation takes the account's own user password token, not a client token.", 'UNAUTHORIZED');
    requireScopes(principal.scopes, scopes, 'access token');
    req.principal = principal;
  };
}

/**
 * For a route whose scopes depend on its request (an export's `kind`): refuses the caller's
 * client token, as the bearer check refuses one lacking the operation's scopes (401
 * `INSUFFICIENT_SCOPE`, the challenge naming every scope `required`), unless it holds them all.
 */
export function requireRequestScopes(req: Request, required: string[], why = ''): void {
  requireScopes(principalOf(req).scopes, required, 'access token', why);
}

/**
 * The caller of an authenticated route. Fails closed: a route reached without the bearer check
 * (an operation missing from the OpenAPI documents) answers 401, never runs unauthenticated.
 */
export function principalOf(req: Request): Principal {
  if (!req.principal) refuse('An access token is required.', 'UNAUTHORIZED');
  // A user password token acts for its one account: any other answers as if it did not exist.
  const accountId = req.params?.account_id;
  if (req.principal.accountId && accountId !== undefined && accountId !== req.principal.accountId) {
    throw AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');
  }
  return req.principal;
}
