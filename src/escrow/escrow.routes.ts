import { principalOf } from '../http/auth.js';
import type { Router } from 'express';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { sendCommand } from '../http/command-response.js';
import { createEscrow, escrowOfInvoice, findEscrowsByReference, getEscrow, transitionEscrow } from './escrow.service.js';
import { pageOf, type EscrowTransition } from './escrow.rules.js';

type Sort = 'asc' | 'desc';
type SortField = 'created' | 'updated';

/**
 * Invoicing API: escrows (`createEscrow`, `getEscrow`, `payEscrow`, `commitEscrow`,
 * `cancelEscrow`) and their lookups (`getEscrowsByReference`, `getEscrowByInvoice`). Requests
 * arrive validated.
 */
export function escrowRoutes(router: Router, bus: CommandBus, syncWaitMs: number): void {
  router.post('/v2/escrow', async (req, res) => {
    res.status(201).json(success(await createEscrow(req.em, principalOf(req), req.body)));
  });
  router.get('/v2/escrow/reference/:reference_id', async (req, res) => {
    const q = req.query as { status?: string; sort?: Sort; sortField?: SortField };
    const page = { ...pageOf(req.query), sort: q.sort ?? 'desc', sortField: q.sortField ?? 'created' };
    res.json(success(await findEscrowsByReference(req.em, principalOf(req), String(req.params.reference_id), q.status, page)));
  });
  router.get('/v2/escrow/by_invoice/:invoice_id', async (req, res) => {
    res.json(success(await escrowOfInvoice(req.em, principalOf(req), String(req.params.invoice_id))));
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
