import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { createEndpoint, deleteEndpoint, enableEndpoint, getEndpoint, listEndpoints, rotateSecret } from './webhook.service.js';

/** Webhook endpoints. Requests arrive validated. */
export function webhookRoutes(router: Router, allowPrivateTargets: boolean): void {
  router.post('/v2/webhooks', async (req, res) => {
    res.status(201).json(success(await createEndpoint(req.em, principalOf(req), req.body, allowPrivateTargets)));
  });
  router.get('/v2/webhooks', async (req, res) => {
    res.json(success(await listEndpoints(req.em, principalOf(req))));
  });
  router.get('/v2/webhooks/:webhook_id', async (req, res) => {
    res.json(success(await getEndpoint(req.em, principalOf(req), req.params.webhook_id)));
  });
  router.delete('/v2/webhooks/:webhook_id', async (req, res) => {
    res.json(success(await deleteEndpoint(req.em, principalOf(req), req.params.webhook_id)));
  });
  router.post('/v2/webhooks/:webhook_id/rotate-secret', async (req, res) => {
    res.json(success(await rotateSecret(req.em, principalOf(req), req.params.webhook_id)));
  });
  router.post('/v2/webhooks/:webhook_id/enable', async (req, res) => {
    res.json(success(await enableEndpoint(req.em, principalOf(req), req.params.webhook_id)));
  });
}
