import type { Router } from 'express';
import { sendCommand } from '../http/command-response.js';
import { principalOf } from '../http/auth.js';
import { auditContextOf } from '../http/audit-context.js';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { CardProcessor } from '../rails/card-processor.port.js';
import type { DisputeFlag, DisputeStatus } from './dispute.rules.js';
import { closeSandboxDispute, getDispute, getDisputes, openSandboxDispute, submitEvidence } from './dispute.service.js';

/** Disputes API (`listDisputes`, `getDispute`, `submitDisputeEvidence`: a Stripe dispute's evidence through `cards`). Requests arrive validated. */
export function disputeRoutes(router: Router, deps: { cards: CardProcessor }): void {
  router.get('/v2/disputes', async (req, res) => {
    const q = req.query as {
      status?: DisputeStatus;
      account_id?: string;
      invoice_id?: string;
      flag?: DisputeFlag;
      limit?: string;
      offset?: string;
    };
    res.json(
      success(
        await getDisputes(
          req.em,
          principalOf(req),
          { status: q.status, accountId: q.account_id, invoiceId: q.invoice_id, flag: q.flag },
          { limit: q.limit === undefined ? 20 : Number(q.limit), offset: q.offset === undefined ? 0 : Number(q.offset) },
        ),
      ),
    );
  });
  router.get('/v2/disputes/:dispute_id', async (req, res) => {
    res.json(success(await getDispute(req.em, principalOf(req), String(req.params.dispute_id))));
  });
  router.post('/v2/disputes/:dispute_id/evidence', async (req, res) => {
    res.json(
      success(await submitEvidence(req.em, principalOf(req), String(req.params.dispute_id), req.body, deps.cards, auditContextOf(req))),
    );
  });
}

/** The sandbox processor's disputes (staging only: src/http/app.ts mounts these with the test clock). */
export function sandboxDisputeRoutes(router: Router, deps: { bus: CommandBus; syncWaitMs: number }): void {
  router.post('/v2/sandbox/disputes', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) => openSandboxDispute(req.em, deps.bus, principal, req.body, opts));
  });
  router.post('/v2/sandbox/disputes/:dispute_id/close', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) =>
      closeSandboxDispute(
        req.em,
        deps.bus,
        principal,
        String(req.params.dispute_id),
        (req.body as { outcome: 'won' | 'lost' }).outcome,
        opts,
      ),
    );
  });
}
