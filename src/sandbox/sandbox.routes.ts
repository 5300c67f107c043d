import type { Router } from 'express';
import type { EntityManager } from '@mikro-orm/postgresql';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { advanceClock, getClock, resetClock } from './sandbox.service.js';

/**
 * The staging test clock; src/http/app.ts mounts these only in staging. `afterAdvance` runs
 * what must happen at once when a clock moves (retries now due are sent).
 */
export function sandboxRoutes(router: Router, opts: { afterAdvance: (em: EntityManager, integratorId: string) => Promise<unknown> }): void {
  router.get('/v2/sandbox/clock', async (req, res) => {
    res.json(success(await getClock(req.em, principalOf(req).integratorId)));
  });
  router.post('/v2/sandbox/clock', async (req, res) => {
    const integratorId = principalOf(req).integratorId;
    const clock = await advanceClock(req.em, integratorId, (req.body as { advance_seconds: number }).advance_seconds);
    await opts.afterAdvance(req.em, integratorId);
    res.json(success(clock));
  });
  router.delete('/v2/sandbox/clock', async (req, res) => {
    res.json(success(await resetClock(req.em, principalOf(req).integratorId)));
  });
}
