import type { Request, Router } from 'express';
import { AppError } from '../errors.js';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { keepForReplay } from '../http/idempotency.js';
import { issueClientToken, type TokenSigner } from './auth.service.js';
import { authorizeUser, refreshUserToken } from '../sessions/user-session.service.js';

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1: both parts form-urlencoded). */
function basicCredentials(req: Request): { clientId: string; clientSecret: string } | undefined {
  const header = req.headers.authorization;
  if (!header || !/^Basic /i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new AppError('unauthorized', 'Malformed HTTP Basic credentials.', { codes: ['invalid_client'] });
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s;
    }
  };
  return { clientId: decode(decoded.slice(0, colon)), clientSecret: decode(decoded.slice(colon + 1)) };
}

function param(req: Request, name: string): string | undefined {
  const fromBody = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>)[name] : undefined;
  const value = fromBody ?? req.query[name];
  return typeof value === 'string' ? value : undefined;
}

/** The secrets `/token` takes: in a query string they end up in proxies' and browsers' logs and histories. */
const SECRET_PARAMETERS = ['client_secret', 'refresh_token'] as const;

/** With `TOKEN_QUERY_CREDENTIALS=false`: a secret in the query string is refused (400 `invalid_request` naming it). */
function refuseQuerySecrets(req: Request): void {
  const name = SECRET_PARAMETERS.find((p) => req.query[p] !== undefined);
  if (name) {
    throw new AppError('invalid_input', `${name} must not be sent in the query string: send it in the body (or use HTTP Basic).`, {
      codes: ['invalid_request'],
    });
  }
}

/**
 * `POST /token` (RFC 6749 §4.4 client credentials, §6 refresh token): form, JSON or query
 * parameters, or HTTP Basic; secrets in the query string only while `queryCredentials` allows
 * them (discouraged, kept for clients that send them there). `POST /authorize/user`: user sessions.
 */
export function authRoutes(router: Router, signer: TokenSigner, webUrl: string, opts = { queryCredentials: true }): void {
  router.post('/token', async (req, res) => {
    if (!opts.queryCredentials) refuseQuerySecrets(req);
    const basic = basicCredentials(req);
    if (basic && (param(req, 'client_id') || param(req, 'client_secret'))) {
      throw new AppError('invalid_input', 'Send client credentials either with HTTP Basic or as parameters, not both.', {
        codes: ['invalid_request'],
      });
    }
    const credentials = {
      clientId: basic?.clientId ?? param(req, 'client_id'),
      clientSecret: basic?.clientSecret ?? param(req, 'client_secret'),
    };
    const grantType = param(req, 'grant_type');
    let token: Awaited<ReturnType<typeof issueClientToken>> | Awaited<ReturnType<typeof refreshUserToken>>;
    if (!grantType) throw new AppError('invalid_input', 'grant_type is required.', { codes: ['invalid_request'] });
    else if (grantType === 'client_credentials')
      token = await issueClientToken(req.em, signer, { ...credentials, scope: param(req, 'scope') });
    else if (grantType === 'refresh_token')
      token = await refreshUserToken(req.em, signer, { ...credentials, refreshToken: param(req, 'refresh_token') });
    else throw new AppError('invalid_input', `grant_type "${grantType}" is not supported.`, { codes: ['unsupported_grant_type'] });
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json(token);
  });
  // The answer carries a token or a nonce: never kept for a replay, which opens a new session instead.
  router.post('/authorize/user', async (req, res) => {
    const answer = await authorizeUser(req.em, signer, principalOf(req), req.body, webUrl);
    keepForReplay(res, {});
    res.set('Cache-Control', 'no-store').json(success(answer));
  });
}
