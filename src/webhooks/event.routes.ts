import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { auditContextOf } from '../http/audit-context.js';
import { success } from '../envelope.js';
import { getEvent, listEvents, resendEvent } from './event.service.js';
import type { DeliveryQueue } from './relay.service.js';

/** The events API (`listEvents`, `getEvent`, `resendEvent`). Requests arrive validated. */
export function eventRoutes(router: Router, queue: DeliveryQueue): void {
  router.get('/v2/events', async (req, res) => {
    const q = req.query as Record<string, string | undefined>;
    res.json(
      success(
        await listEvents(req.em, principalOf(req), {
          type: q.type,
          account_id: q.account_id,
          created_after: q.created_after,
          created_before: q.created_before,
          limit: q.limit === undefined ? 20 : Number(q.limit),
          offset: q.offset === undefined ? 0 : Number(q.offset),
          sort: q.sort === 'asc' ? 'asc' : 'desc',
        }),
      ),
    );
  });
  router.get('/v2/events/:event_id', async (req, res) => {
    res.json(success(await getEvent(req.em, principalOf(req), req.params.event_id)));
  });
  router.post('/v2/events/:event_id/resend', async (req, res) => {
    const eventId = req.params.event_id;
    const answer = await resendEvent(req.em, queue, principalOf(req), eventId, req.body, auditContextOf(req));
    res
      .status(202)
      .location(`/v2/events/${encodeURIComponent(eventId)}`)
      .json(success(answer));
  });
}
