import { Router, type Request } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../http/envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { createInvoice, getInvoice, payInvoice } from './invoice.service.js';

/** RFC 7240: does the caller prefer an asynchronous answer? */
export function prefersAsync(req: Request): boolean {
  return String(req.headers.prefer ?? '').split(',').some((p) => p.trim().toLowerCase() === 'respond-async');
}

/** Invoicing API: invoices (spec §4.2, DESIGN §4 Invoices). Requests arrive validated. */
export function invoiceRoutes(bus: CommandBus, syncWaitMs: number): Router {
  const router = Router();
  router.post('/v2/invoice', async (req, res) => {
    res.status(201).json(success(await createInvoice(req.em, principalOf(req), req.body)));
  });
  router.get('/v2/invoice/:invoice_id', async (req, res) => {
    res.json(success(await getInvoice(req.em, principalOf(req), req.params.invoice_id)));
  });
  router.post('/v2/invoice/:invoice_id/pay', async (req, res) => {
    const respondAsync = prefersAsync(req);
    const result = await payInvoice(req.em, bus, principalOf(req), String(req.params.invoice_id), { respondAsync, syncWaitMs });
    if (respondAsync && result.status === 202) res.set('Preference-Applied', 'respond-async');
    res.set(result.headers ?? {}).status(result.status).json(result.body);
  });
  return router;
}
