import type { Router } from 'express';
import { sendCommand } from '../http/command-response.js';
import { principalOf } from '../http/auth.js';
import { success } from '../http/envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { createInvoice, getInvoice, payInvoice } from './invoice.service.js';

/** Invoicing API: invoices (spec §4.2, DESIGN §4 Invoices). Requests arrive validated. */
export function invoiceRoutes(router: Router, bus: CommandBus, syncWaitMs: number): void {
  router.post('/v2/invoice', async (req, res) => {
    res.status(201).json(success(await createInvoice(req.em, principalOf(req), req.body)));
  });
  router.get('/v2/invoice/:invoice_id', async (req, res) => {
    res.json(success(await getInvoice(req.em, principalOf(req), req.params.invoice_id)));
  });
  router.post('/v2/invoice/:invoice_id/pay', async (req, res) => {
    await sendCommand(req, res, syncWaitMs, (opts) => payInvoice(req.em, bus, principalOf(req), String(req.params.invoice_id), opts));
  });
}
