import type { Router } from 'express';
import { sendCommand } from '../http/command-response.js';
import { principalOf } from '../http/auth.js';
import { auditContextOf } from '../http/audit-context.js';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { RefundStatus } from './refund.rules.js';
import { refundSummaryOf, requestLineItemRefund, requestRefund } from './refund.service.js';

/** Refunds (`refundInvoice`, `refundLineItem`, `getInvoiceRefunds`). Requests arrive validated. */
export function refundRoutes(router: Router, deps: { bus: CommandBus; syncWaitMs: number }): void {
  router.get('/v2/invoice/:invoice_id/refunds', async (req, res) => {
    const status = (req.query as { status?: RefundStatus }).status;
    res.json(success(await refundSummaryOf(req.em, principalOf(req), String(req.params.invoice_id), status)));
  });
  router.post('/v2/refund', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) => requestRefund(req.em, deps.bus, principal, req.body, opts, auditContextOf(req)));
  });
  router.post('/v2/line-item/refund', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) =>
      requestLineItemRefund(req.em, deps.bus, principal, req.body, opts, auditContextOf(req)),
    );
  });
}
