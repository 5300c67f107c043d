/**
 * The `svc_auth` security handler: verifies the bearer token and checks the scopes that the
 * OpenAPI operation lists, so the documents are the only place scopes are declared.
 */
import type { Request } from 'express';
import { AppError } from '../errors.js';
import { missingScopes } from '../auth/auth.rules.js';
import type { TokenSigner } from '../auth/auth.service.js';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

function refuse(req: Request, failure: Request['authFailure'], message: string): never {
  req.authFailure = failure;
  throw Object.assign(new Error(message), { status: 401 });
}

/** Returns the express-openapi-validator handler for the `svc_auth` scheme. */
export function bearerTokenHandler(signer: TokenSigner) {
  return async (req: Request, scopes: string[]): Promise<boolean> => {
    const header = req.headers.authorization;
    if (!header) refuse(req, {}, 'An access token is required.');
    const match = BEARER.exec(header);
    if (!match) refuse(req, { error: 'invalid_token', description: 'The Authorization header must be "Bearer <token>".' }, 'bad header');
    let principal;
    try {
      principal = await signer.verify(match[1]);
    } catch (err) {
      const description = err instanceof AppError ? err.message : 'The access token is invalid.';
      refuse(req, { error: 'invalid_token', description }, description);
    }
    const missing = missingScopes(principal.scopes, scopes);
    if (missing.length) {
      refuse(req, {
        error: 'insufficient_scope',
        description: `The access token lacks the scope ${missing.join(' ')}.`,
        scope: scopes.join(' '),
      }, 'insufficient scope');
    }
    req.principal = principal;
    return true;
  };
}
