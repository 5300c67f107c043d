import { principalOf } from '../http/auth.js';
import { Router } from 'express';
import { success } from '../http/envelope.js';
import { getInvoice } from './invoice.service.js';

/** Invoicing API: invoices (spec §4.2). Requests arrive validated. */
export function invoiceRoutes(): Router {
  const router = Router();
  router.get('/v2/invoice/:invoice_id', async (req, res) => {
    res.json(success(await getInvoice(req.em, principalOf(req), req.params.invoice_id)));
  });
  return router;
}
