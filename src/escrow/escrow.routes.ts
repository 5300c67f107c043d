import { Router } from 'express';
import { success } from '../http/envelope.js';
import { createEscrow, getEscrow } from './escrow.service.js';

/** Invoicing API: escrows (spec §4.2). Requests arrive validated. */
export function escrowRoutes(): Router {
  const router = Router();
  router.post('/v2/escrow', async (req, res) => {
    res.status(201).json(success(await createEscrow(req.em, req.principal!, req.body)));
  });
  router.get('/v2/escrow/:escrow_id', async (req, res) => {
    res.json(success(await getEscrow(req.em, req.principal!, req.params.escrow_id)));
  });
  return router;
}
