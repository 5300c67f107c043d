import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { getKyc, submitKyc } from './kyc.service.js';

/** KYC API (`getKyc`, `submitKyc`). Requests arrive validated. */
export function kycRoutes(router: Router): void {
  router.get('/v1/kyc/:account_id', async (req, res) => {
    res.json(success(await getKyc(req.em, principalOf(req), String(req.params.account_id))));
  });
  router.post('/v1/kyc/:account_id', async (req, res) => {
    res.json(success(await submitKyc(req.em, principalOf(req), String(req.params.account_id), req.body ?? {})));
  });
}
