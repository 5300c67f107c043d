import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { listAudit } from './audit.service.js';

/** The audit trail API (`listAudit`): the caller's integrator's records only. Requests arrive validated. */
export function auditRoutes(router: Router): void {
  router.get('/v2/audit', async (req, res) => {
    const q = req.query as {
      action?: string;
      target_id?: string;
      actor?: string;
      from?: string;
      to?: string;
      limit?: string;
      offset?: string;
    };
    res.json(
      success(
        await listAudit(
          req.em,
          {
            integratorId: principalOf(req).integratorId,
            action: q.action,
            targetId: q.target_id,
            actor: q.actor,
            from: q.from === undefined ? undefined : new Date(q.from),
            to: q.to === undefined ? undefined : new Date(q.to),
          },
          { limit: q.limit === undefined ? 20 : Number(q.limit), offset: q.offset === undefined ? 0 : Number(q.offset) },
        ),
      ),
    );
  });
}
