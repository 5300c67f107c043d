import { principalOf } from '../http/auth.js';
import type { Router } from 'express';
import { success } from '../envelope.js';
import { getCurrentTos, getTosStatus, signTos, unsignTos } from './tos.service.js';

/** ToS endpoints. Unsign exists only in staging. */
export function tosRoutes(router: Router, opts: { allowUnsign: boolean }): void {
  router.get('/v1/tos', async (req, res) => {
    res.json(await getCurrentTos(req.em));
  });
  router.get('/user-info/:account_id/tos/svc', async (req, res) => {
    res.json(await getTosStatus(req.em, principalOf(req), req.params.account_id));
  });
  router.post('/user-info/:account_id/tos/svc', async (req, res) => {
    res.json(success(await signTos(req.em, principalOf(req), req.params.account_id)));
  });
  if (opts.allowUnsign) {
    router.delete('/user-info/:account_id/tos/svc', async (req, res) => {
      res.json(success(await unsignTos(req.em, principalOf(req), req.params.account_id)));
    });
  }
}
