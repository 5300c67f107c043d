import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { pageOf } from '../escrow/escrow.rules.js';
import { accountBalances, accountStatement } from './statement.service.js';

/** Payments API: an account's balances and statement (`getAccountBalances`, `getAccountStatement`). Requests arrive validated. */
export function statementRoutes(router: Router): void {
  router.get('/v1/:account_id/balances', async (req, res) => {
    res.json(success(await accountBalances(req.em, principalOf(req), String(req.params.account_id))));
  });
  router.get('/v1/:account_id/statement', async (req, res) => {
    const q = req.query as { from?: string; to?: string; sort?: 'asc' | 'desc' };
    const query = { ...pageOf(req.query), from: q.from, to: q.to, sort: q.sort ?? 'desc' };
    res.json(success(await accountStatement(req.em, principalOf(req), String(req.params.account_id), query)));
  });
}
