import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import type { CommandBus } from '../queues/command-bus.js';
import { sendCommand } from '../http/command-response.js';
import { success } from '../envelope.js';
import { createTokenExchange, executeTokenExchange, getTokenExchange } from './conversion.service.js';
import { DEFAULT_EXCHANGE_TTL_SECONDS } from './conversion.rules.js';
import { purchaseTokens } from './tokens.service.js';

/**
 * Token purchase (`purchaseTokens`) and conversion (`convertTokens`, `executeTokenExchange`,
 * `getTokenExchange`). Requests arrive validated.
 */
export function tokenRoutes(
  router: Router,
  bus: CommandBus,
  syncWaitMs: number,
  exchangeTtlSeconds: number = DEFAULT_EXCHANGE_TTL_SECONDS,
): void {
  router.post('/v2/token/purchase', async (req, res) => {
    await sendCommand(req, res, syncWaitMs, (opts) => purchaseTokens(req.em, bus, principalOf(req), req.body, opts));
  });
  router.post('/v2/token/convert', async (req, res) => {
    res.status(201).json(success(await createTokenExchange(req.em, principalOf(req), req.body, exchangeTtlSeconds)));
  });
  router.post('/v2/token/convert/:token_exchange_id', async (req, res) => {
    const id = String(req.params.token_exchange_id);
    await sendCommand(req, res, syncWaitMs, (opts) => executeTokenExchange(req.em, bus, principalOf(req), id, opts));
  });
  router.get('/v2/token/convert/:token_exchange_id', async (req, res) => {
    res.json(success(await getTokenExchange(req.em, principalOf(req), String(req.params.token_exchange_id))));
  });
}
