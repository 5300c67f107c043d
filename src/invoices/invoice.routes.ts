import type { EntityManager } from '@mikro-orm/postgresql';
import type { Router } from 'express';
import { sendCommand } from '../http/command-response.js';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { payInvoice } from './invoice-pay.service.js';
import { createInvoice, getInvoice, listAccountInvoices, listInvoices } from './invoice.service.js';
import { normalisePaymentMethods } from './purchase-request.rules.js';
import type { ReturnUrlPolicy } from './invoice.rules.js';
import { transitionEscrow } from '../escrow/escrow.service.js';

/** Invoicing API: invoices (`createInvoice`, `getInvoice`, `listInvoices`, `listAccountInvoices`, `payInvoice`). Requests arrive validated. */
export function invoiceRoutes(
  router: Router,
  deps: {
    bus: CommandBus;
    syncWaitMs: number;
    returnUrls?: ReturnUrlPolicy;
    /** What `GET /v2/invoice/{invoice_id}` adds to a purchase invoice from other modules (its disputes), given where the app is put together. */
    extras?: (em: EntityManager, invoice: { invoice_id: string; invoice_type: string }) => Promise<Record<string, unknown>>;
  },
): void {
  const policy = deps.returnUrls ?? { publicUrl: 'http://localhost', patterns: [] };
  router.post('/v2/invoice', async (req, res) => {
    res.status(201).json(success(await createInvoice(req.em, principalOf(req), req.body)));
  });
  router.get('/v1/:account_id/invoices', async (req, res) => {
    const { limit, starting_after: startingAfter } = req.query as { limit?: string; starting_after?: string };
    res.json(
      success(
        await listInvoices(req.em, principalOf(req), String(req.params.account_id), { limit: limit ? Number(limit) : 20, startingAfter }),
      ),
    );
  });
  router.get('/v2/invoice/account/:account_id', async (req, res) => {
    const q = req.query as {
      states?: string;
      invoice_types?: string;
      sort_field?: 'created' | 'updated';
      sort?: 'asc' | 'desc';
      limit?: string;
      offset?: string;
    };
    const split = (v?: string) => (v ? [...new Set(v.split(','))] : undefined);
    res.json(
      success(
        await listAccountInvoices(req.em, principalOf(req), String(req.params.account_id), {
          states: split(q.states),
          invoiceTypes: split(q.invoice_types),
          sortField: q.sort_field ?? 'created',
          sort: q.sort ?? 'desc',
          limit: q.limit === undefined ? 20 : Number(q.limit),
          offset: q.offset === undefined ? 0 : Number(q.offset),
        }),
      ),
    );
  });
  router.get('/v2/invoice/:invoice_id', async (req, res) => {
    const invoice = await getInvoice(req.em, principalOf(req), req.params.invoice_id);
    res.json(success({ ...invoice, ...(deps.extras ? await deps.extras(req.em, invoice) : {}) }));
  });
  router.post('/v2/invoice/:invoice_id/pay', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) =>
      payInvoice(
        req.em,
        deps.bus,
        principal,
        String(req.params.invoice_id),
        normalisePaymentMethods(req.body?.payment_methods),
        opts,
        (escrowId, escrowOpts) => transitionEscrow(req.em, deps.bus, principal, escrowId, 'pay', escrowOpts),
        { returnUrl: typeof req.body?.return_url === 'string' ? req.body.return_url : undefined, policy },
      ),
    );
  });
}
