import { Router, type Request } from 'express';
import { AppError } from '../errors.js';
import { issueClientToken, type TokenSigner } from './auth.service.js';

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

/** `POST /token` (RFC 6749 §4.4): form, JSON or query parameters, or HTTP Basic. */
export function authRoutes(signer: TokenSigner): Router {
  const router = Router();
  router.post('/token', async (req, res) => {
    const basic = basicCredentials(req);
    if (basic && (param(req, 'client_id') || param(req, 'client_secret'))) {
      throw new AppError('invalid_input', 'Send client credentials either with HTTP Basic or as parameters, not both.', {
        codes: ['invalid_request'],
      });
    }
    const token = await issueClientToken(req.em, signer, {
      grantType: param(req, 'grant_type'),
      clientId: basic?.clientId ?? param(req, 'client_id'),
      clientSecret: basic?.clientSecret ?? param(req, 'client_secret'),
      scope: param(req, 'scope'),
    });
    res.set('Cache-Control', 'no-store').set('Pragma', 'no-cache').json(token);
  });
  return router;
}
