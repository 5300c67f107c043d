/**
 * Operations endpoints: Bull Board at `/admin/queues` (every queue; the webhooks queue's failed
 * jobs are the dead letters, retryable from there) behind HTTP Basic `ADMIN_USER` /
 * `ADMIN_PASSWORD`, and Prometheus metrics at `/metrics` (behind the same password when one is
 * set). Without a password the dashboard is open in staging and off in production.
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

/** HTTP Basic against one user and password, compared in constant time. */
function basicAuth(user: string, password: string) {
  const expected = digest(`${user}:${password}`);
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.headers.authorization ?? '';
    const given = /^Basic (.+)$/i.exec(header)?.[1];
    const decoded = given ? Buffer.from(given, 'base64').toString('utf8') : '';
    if (given && timingSafeEqual(digest(decoded), expected)) return next();
    res
      .set('WWW-Authenticate', 'Basic realm="holdfast-admin", charset="UTF-8"')
      .status(401)
      .json(failure(['The queue dashboard needs the admin user and password.'], ['UNAUTHORIZED'], null));
  };
}

/** Whether the dashboard is served, and how it is guarded. */
export function dashboardMode(appEnv: 'staging' | 'production', password: string | undefined): 'password' | 'open' | 'off' {
  if (password) return 'password';
  return appEnv === 'production' ? 'off' : 'open';
}

export function operationsRoutes(opts: {
  queues: Queue[];
  appEnv: 'staging' | 'production';
  adminUser: string;
  adminPassword: string | undefined;
}): Router {
  const router = Router();
  const mode = dashboardMode(opts.appEnv, opts.adminPassword);
  const guard = mode === 'password' ? [basicAuth(opts.adminUser, opts.adminPassword!)] : [];
  // Metrics hold counts, never data; with an admin password set they need it too.
  router.get('/metrics', ...guard, async (_req: Request, res: Response) => {
    res.set('Content-Type', registry.contentType).send(await registry.metrics());
  });
  if (mode !== 'off') {
    const serverAdapter = new ExpressAdapter();
    serverAdapter.setBasePath(DASHBOARD_PATH);
    createBullBoard({ queues: opts.queues.map((q) => new BullMQAdapter(q)), serverAdapter });
    router.use(DASHBOARD_PATH, ...guard, serverAdapter.getRouter());
  }
  return router;
}
