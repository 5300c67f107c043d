import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { auditContextOf } from '../http/audit-context.js';
import { sendCommand } from '../http/command-response.js';
import type { CommandBus } from '../queues/command-bus.js';
import { requestMerge } from './merge.service.js';

/** `POST /v2/merge-accounts` (`mergeAccounts`), run as a command. Requests arrive validated. */
export function mergeRoutes(router: Router, bus: CommandBus, syncWaitMs: number): void {
  router.post('/v2/merge-accounts', async (req, res) => {
    await sendCommand(req, res, syncWaitMs, (opts) => requestMerge(req.em, bus, principalOf(req), req.body, opts, auditContextOf(req)));
  });
}
