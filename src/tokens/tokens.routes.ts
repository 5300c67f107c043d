import { Router } from 'express';
import { principalOf } from '../http/auth.js';
import type { CommandBus } from '../queues/command-bus.js';
import { prefersAsync } from '../invoices/invoice.routes.js';
import { purchaseTokens } from './tokens.service.js';

/** Token purchase (DESIGN §4 Virtual tokens). Requests arrive validated. */
export function tokenRoutes(bus: CommandBus, syncWaitMs: number): Router {
  const router = Router();
  router.post('/v2/token/purchase', async (req, res) => {
    const respondAsync = prefersAsync(req);
    const result = await purchaseTokens(req.em, bus, principalOf(req), req.body, { respondAsync, syncWaitMs });
    if (respondAsync && result.status === 202) res.set('Preference-Applied', 'respond-async');
    res.set(result.headers ?? {}).status(result.status).json(result.body);
  });
  return router;
}
