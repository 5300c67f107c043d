/**
 * Requests no route answered: 405 with `Allow` when the path exists with other methods in the
 * OpenAPI documents, else 404 — both in the envelope.
 */
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.js';
import { httpMethods, pathMatcher, type OpenApiDocument } from './openapi.js';

export function notFoundHandler(doc: OpenApiDocument) {
  const routes = Object.entries(doc.paths).map(([template, item]) => ({
    matcher: pathMatcher(template),
    methods: httpMethods.filter((m) => item[m]).map((m) => m.toUpperCase()),
  }));
  return (req: Request, _res: Response, next: NextFunction): void => {
    const allowed = routes.filter((r) => r.matcher.test(req.path)).flatMap((r) => r.methods);
    if (allowed.length && !allowed.includes(req.method)) {
      next(
        new AppError('method_not_allowed', `${req.method} is not allowed here.`, {
          codes: ['METHOD_NOT_ALLOWED'],
          headers: { Allow: [...new Set(allowed)].join(', ') },
        }),
      );
      return;
    }
    next(AppError.notFound('NOT_FOUND', 'No such route.'));
  };
}
