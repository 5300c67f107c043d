import type { Router } from 'express';
import { sendCommand } from '../http/command-response.js';
import { principalOf } from '../http/auth.js';
import { auditContextOf } from '../http/audit-context.js';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { executePayoutNow, getPayout, listPayouts, requestPayout, reversePayout } from './payout.service.js';

/** Payouts API (`requestPayout`, `listPayouts`, `getPayout`, `reversePayout`; `executePayoutNow` outside production). Requests arrive validated. */
export function payoutRoutes(router: Router, deps: { bus: CommandBus; syncWaitMs: number; staging: boolean }): void {
  router.post('/v2/:account_id/payout', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) =>
      requestPayout(req.em, deps.bus, principal, String(req.params.account_id), req.body, opts),
    );
  });
  router.get('/v2/:account_id/payouts', async (req, res) => {
    const q = req.query as { limit?: string; offset?: string };
    res.json(
      success(
        await listPayouts(req.em, principalOf(req), String(req.params.account_id), {
          limit: q.limit === undefined ? 20 : Number(q.limit),
          offset: q.offset === undefined ? 0 : Number(q.offset),
        }),
      ),
    );
  });
  router.get('/v2/:account_id/payout/:payout_status_id', async (req, res) => {
    res.json(success(await getPayout(req.em, principalOf(req), String(req.params.account_id), String(req.params.payout_status_id))));
  });
  router.delete('/v2/:account_id/payout/:payout_status_id', async (req, res) => {
    const principal = principalOf(req);
    await sendCommand(req, res, deps.syncWaitMs, (opts) =>
      reversePayout(req.em, deps.bus, principal, String(req.params.account_id), String(req.params.payout_status_id), opts),
    );
  });
  // Approve and execute at once, or apply a rail outcome: a testing shortcut, absent in production (404).
  if (deps.staging) {
    router.patch('/v2/:account_id/payout/:payout_status_id', async (req, res) => {
      const principal = principalOf(req);
      await sendCommand(req, res, deps.syncWaitMs, (opts) =>
        executePayoutNow(
          req.em,
          deps.bus,
          principal,
          String(req.params.account_id),
          String(req.params.payout_status_id),
          req.body && typeof req.body === 'object' ? req.body : undefined,
          opts,
          auditContextOf(req),
        ),
      );
    });
  }
}
