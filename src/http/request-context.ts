/**
 * Per-request plumbing: a request id (X-Request-Id accepted when safe, always echoed), one
 * access-log line per request, and — made on first use, since many requests never need
 * them — a child logger carrying the request id and a forked EntityManager; and `db`, plain
 * SQL on the pool, shared by every request.
 */
import type { Express, NextFunction, Request, Response } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { accessLogger, type Logger } from '../runtime/logger.js';
import { newId } from '../ids.js';
import { httpDuration } from '../runtime/metrics.js';
import { db } from '../db/sql.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface Lazy {
  _log?: Logger;
  _em?: EntityManager;
}

export function requestContext(app: Express, orm: MikroORM, logger: Logger) {
  const access = accessLogger(logger);
  // Getters on the app's request prototype: defining properties per request costs more.
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & Lazy) {
      this._log ??= logger.child({ req_id: this.id });
      return this._log;
    },
  });
  const pooled = db(orm.em);
  Object.defineProperty(app.request, 'db', { configurable: true, value: pooled });
  Object.defineProperty(app.request, 'em', {
    configurable: true,
    get(this: Request & Lazy) {
      this._em ??= orm.em.fork();
      return this._em;
    },
  });
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : newId('req');
    res.setHeader('X-Request-Id', req.id);
    const started = performance.now();
    res.on('finish', () => {
      // The path only: query strings may carry credentials (/token accepts them there); and
      // never a hosted-session nonce or a console set-password token, which a path carries (it
      // may still be unspent).
      const path = req.originalUrl.split('?', 1)[0].replace(/^(\/(?:ui\/appauth|console\/set-password)\/)[^/]+/i, '$1[redacted]');
      const ms = performance.now() - started;
      access.info({ req_id: req.id, method: req.method, path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
      // The route template (`/v2/escrow/:escrow_id/pay`), never the raw path: ids would explode the label set.
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      httpDuration.observe(
        { method: req.method, route: typeof route === 'string' ? route : 'unmatched', status: String(res.statusCode) },
        ms / 1000,
      );
    });
    next();
  };
}
