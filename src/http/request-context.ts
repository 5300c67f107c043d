/**
 * Per-request plumbing: a request id (X-Request-Id accepted when safe, always echoed), a child
 * logger carrying it, one access-log line per request, and a forked EntityManager.
 */
import type { NextFunction, Request, Response } from 'express';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../runtime/logger.js';
import { newId } from '../ids.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(orm: MikroORM, logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = req.get('X-Request-Id');
    req.id = given && SAFE_REQUEST_ID.test(given) ? given : newId('req');
    res.set('X-Request-Id', req.id);
    // Made on first use: many requests never need a child logger or an EntityManager.
    let log: Logger | undefined;
    let em: EntityManager | undefined;
    Object.defineProperty(req, 'log', { get: () => (log ??= logger.child({ req_id: req.id })) });
    Object.defineProperty(req, 'em', { get: () => (em ??= orm.em.fork()) });
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      // The path only: query strings may carry credentials (/token accepts them there).
      logger.info({ req_id: req.id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
