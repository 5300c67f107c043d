import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { advanceClock, getClock, resetClock } from './sandbox.service.js';

/** The staging test clock; src/http/app.ts mounts these only in staging. */
export function sandboxRoutes(router: Router): void {
  router.get('/v2/sandbox/clock', async (req, res) => {
    res.json(success(await getClock(req.em, principalOf(req).integratorId)));
  });
  router.post('/v2/sandbox/clock', async (req, res) => {
    res.json(success(await advanceClock(req.em, principalOf(req).integratorId, (req.body as { advance_seconds: number }).advance_seconds)));
  });
  router.delete('/v2/sandbox/clock', async (req, res) => {
    res.json(success(await resetClock(req.em, principalOf(req).integratorId)));
  });
}
