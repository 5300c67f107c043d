import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import type { CommandBus } from '../queues/command-bus.js';
import { sendCommand } from '../http/command-response.js';
import { purchaseTokens } from './tokens.service.js';

/** Token purchase (`purchaseTokens`). Requests arrive validated. */
export function tokenRoutes(router: Router, bus: CommandBus, syncWaitMs: number): void {
  router.post('/v2/token/purchase', async (req, res) => {
    await sendCommand(req, res, syncWaitMs, (opts) => purchaseTokens(req.em, bus, principalOf(req), req.body, opts));
  });
}
