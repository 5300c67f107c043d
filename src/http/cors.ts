/**
 * CORS for the operations a client app calls with a user password token (those whose OpenAPI
 * `security` lists `user_auth`; the SDK calls them from the app's own origin). Any origin may:
 * the token travels in the Authorization header and no cookie is involved, so `*` lets a page
 * do nothing it could not do with the token anyway. Operations for servers (client
 * credentials) send no CORS headers: a browser should never hold those.
 */
import type { RequestHandler } from 'express';
import { httpMethods, pathMatcher, type OpenApiDocument } from './openapi.js';

export function userTokenCors(doc: OpenApiDocument): RequestHandler {
  const routes = Object.entries(doc.paths).flatMap(([template, item]) => {
    const methods = httpMethods
      .filter((m) => (item[m]?.security as Array<Record<string, unknown>> | undefined)?.some((s) => s.user_auth))
      .map((m) => m.toUpperCase());
    // Paths match as the API matches them: without regard to case, with or without a trailing slash.
    return methods.length ? [{ match: new RegExp(pathMatcher(template).source.replace(/\$$/, '/?$'), 'i'), methods }] : [];
  });
  return (req, res, next) => {
    const route = routes.find((r) => r.match.test(req.path));
    if (!route) return next();
    res.set('Access-Control-Allow-Origin', '*');
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.set({
        'Access-Control-Allow-Methods': route.methods.join(', '),
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, Prefer',
        'Access-Control-Max-Age': '600',
      });
      res.status(204).end();
      return;
    }
    res.set('Access-Control-Expose-Headers', 'Location, X-Command-Id, Idempotent-Replayed, X-Request-Id, Retry-After');
    next();
  };
}
