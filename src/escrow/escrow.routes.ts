import { principalOf } from '../http/auth.js';
import type { Router } from 'express';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { sendCommand } from '../http/command-response.js';
import { createEscrow, getEscrow, transitionEscrow } from './escrow.service.js';
import type { EscrowTransition } from './escrow.rules.js';

/** Invoicing API: escrows (`createEscrow`, `getEscrow`, `payEscrow`, `commitEscrow`, `cancelEscrow`). Requests arrive validated. */
export function escrowRoutes(router: Router, bus: CommandBus, syncWaitMs: number): void {
  router.post('/v2/escrow', async (req, res) => {
    res.status(201).json(success(await createEscrow(req.em, principalOf(req), req.body)));
  });
  router.get('/v2/escrow/:escrow_id', async (req, res) => {
    res.json(success(await getEscrow(req.em, principalOf(req), req.params.escrow_id)));
  });
  for (const transition of ['pay', 'commit', 'cancel'] as EscrowTransition[]) {
    router.post(`/v2/escrow/:escrow_id/${transition}`, async (req, res) => {
      await sendCommand(req, res, syncWaitMs, (opts) =>
        transitionEscrow(req.em, bus, principalOf(req), String(req.params.escrow_id), transition, opts),
      );
    });
  }
}
