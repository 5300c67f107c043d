import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { getKyc, submitKyc, type KycVerification } from './kyc.service.js';

/** KYC API (`getKyc`, `submitKyc`). Requests arrive validated; submissions go to the app's identity verifier. */
export function kycRoutes(router: Router, verification: KycVerification): void {
  router.get('/v1/kyc/:account_id', async (req, res) => {
    res.json(success(await getKyc(req.em, principalOf(req), String(req.params.account_id))));
  });
  router.post('/v1/kyc/:account_id', async (req, res) => {
    res.json(success(await submitKyc(req.em, principalOf(req), String(req.params.account_id), req.body ?? {}, verification)));
  });
}
