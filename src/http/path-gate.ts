/**
 * A router that serves only some paths (the console's, the hosted pages', the probes'…) is
 * mounted behind a gate: every other request passes it after one string check, instead of a walk
 * over each of its routes (Express tries every layer of a router a request enters; the console
 * alone has thirty). Matching follows Express's defaults: case-insensitive, a prefix matches the
 * path itself and anything under it.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Whether `path` is one of `prefixes` or under one of them (`/ui` takes `/ui` and `/ui/x`, not `/uix`). */
export function underAny(path: string, prefixes: readonly string[]): boolean {
  const lower = path.toLowerCase();
  return prefixes.some((prefix) => lower === prefix || (lower.startsWith(prefix) && lower[prefix.length] === '/'));
}

/** `router`, run only for requests whose path is under one of `prefixes` (lower-case, no trailing slash). */
export function servingOnly(prefixes: readonly string[], router: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => (underAny(req.path, prefixes) ? router(req, res, next) : next());
}
