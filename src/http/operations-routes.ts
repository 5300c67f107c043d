/**
 * Operations endpoints: Bull Board at `/admin/queues` (every queue; the webhooks queue's failed
 * jobs are the dead letters, retryable from there) behind HTTP Basic `ADMIN_USER` /
 * `ADMIN_PASSWORD`, and Prometheus metrics at `/metrics`, behind the same password or a
 * scraper's `METRICS_TOKEN` (`Authorization: Bearer <token>`) when either is set. Without them
 * both are open in staging and off (404) in production: the dashboard's job views show command
 * results with every integrator's invoices, and each scrape reads Redis and PostgreSQL.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { Queue } from 'bullmq';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import { registry } from '../runtime/metrics.js';
import { failure } from '../envelope.js';

export const DASHBOARD_PATH = '/admin/queues';

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Compared in constant time (digests of equal length). */
const same = (given: string, expected: Buffer) => timingSafeEqual(digest(given), expected);

/**
 * HTTP Basic against one user and password, and/or a bearer token: the first that the request's
 * Authorization header matches lets it through; otherwise 401 with a challenge for each.
 */
function credentialsGuard(accept: { basic?: { user: string; password: string }; bearer?: string }, refusal: string) {
  const basic = accept.basic ? digest(`${accept.basic.user}:${accept.basic.password}`) : undefined;
  const bearer = accept.bearer ? digest(accept.bearer) : undefined;
  const challenges = [
    ...(basic ? ['Basic realm="holdfast-admin", charset="UTF-8"'] : []),
    ...(bearer ? ['Bearer realm="holdfast-metrics"'] : []),
  ];
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const basicGiven = /^Basic (.+)$/i.exec(header)?.[1];
    if (basic && basicGiven && same(Buffer.from(basicGiven, 'base64').toString('utf8'), basic)) return next();
    const bearerGiven = /^Bearer +(\S+) *$/i.exec(header)?.[1];
    if (bearer && bearerGiven && same(bearerGiven, bearer)) return next();
    res
      .set('WWW-Authenticate', challenges.join(', '))
      .status(401)
      .json(failure([refusal], ['UNAUTHORIZED'], null));
  };
}

/** Whether the dashboard is served, and how it is guarded. */
export function dashboardMode(appEnv: 'staging' | 'production', password: string | undefined): 'password' | 'open' | 'off' {
  if (password) return 'password';
  return appEnv === 'production' ? 'off' : 'open';
}

/** Whether `/metrics` is served, and how it is guarded: the admin password and/or a scraper's token. */
export function metricsMode(
  appEnv: 'staging' | 'production',
  password: string | undefined,
  token: string | undefined,
): 'password' | 'token' | 'password or token' | 'open' | 'off' {
  if (password && token) return 'password or token';
  if (password) return 'password';
  if (token) return 'token';
  return appEnv === 'production' ? 'off' : 'open';
}

export function operationsRoutes(opts: {
  queues: Queue[];
  appEnv: 'staging' | 'production';
  adminUser: string;
  adminPassword: string | undefined;
  metricsToken?: string;
}): Router {
  const router = Router();
  const admin = opts.adminPassword ? { user: opts.adminUser, password: opts.adminPassword } : undefined;
  if (metricsMode(opts.appEnv, opts.adminPassword, opts.metricsToken) !== 'off') {
    const guard =
      admin || opts.metricsToken
        ? [
            credentialsGuard(
              { basic: admin, bearer: opts.metricsToken },
              'The metrics need the admin user and password or the metrics token.',
            ),
          ]
        : [];
    router.get('/metrics', ...guard, async (_req: Request, res: Response) => {
      res.set('Content-Type', registry.contentType).send(await registry.metrics());
    });
  }
  const mode = dashboardMode(opts.appEnv, opts.adminPassword);
  if (mode !== 'off') {
    const guard = admin ? [credentialsGuard({ basic: admin }, 'The queue dashboard needs the admin user and password.')] : [];
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(DASHBOARD_PATH);
    createBullBoard({ queues: opts.queues.map((q) => new BullMQAdapter(q)), serverAdapter });
    router.use(DASHBOARD_PATH, ...guard, serverAdapter.getRouter());
  }
  return router;
}
