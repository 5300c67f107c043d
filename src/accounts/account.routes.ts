import { principalOf } from '../http/auth.js';
import type { Router } from 'express';
import { success } from '../envelope.js';
import { inSpecShape } from './account-aliases.js';
import { findProfileByUsername, getLegacyProfile, getProfile } from './account.service.js';
import { registerAccount, updateAccount } from '../registration/registration.service.js';

/** Accounts API: registration, lookups, update. Requests arrive validated. */
export function accountRoutes(router: Router): void {
  router.post('/register', async (req, res) => {
    res.json(success(await registerAccount(req.em, principalOf(req), inSpecShape(req.body))));
  });
  router.get('/v1/user-info/search', async (req, res) => {
    res.json(success(await findProfileByUsername(req.db, principalOf(req), String(req.query.username))));
  });
  router.get('/v1/user-info/:account_id', async (req, res) => {
    res.json(success(await getProfile(req.db, principalOf(req), req.params.account_id)));
  });
  router.put('/user-info/:account_id', async (req, res) => {
    res.json(success(await updateAccount(req.em, principalOf(req), req.params.account_id, inSpecShape(req.body))));
  });
  router.get('/v1/:account_id/user-info', async (req, res) => {
    res.json(success(await getLegacyProfile(req.db, principalOf(req), req.params.account_id)));
  });
}
