import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { auditContextOf } from '../http/audit-context.js';
import { success } from '../envelope.js';
import type { Capability } from '../accounts/account-block.rules.js';
import { blockAccount, getBlocks, legacyBlock, legacyUnblock, unblockCapability } from './block.service.js';

/**
 * Blocks: the v2 block response is not wrapped in the envelope (the contract defines
 * it as the 200 body); the earlier generation answers `{is_blocked}` in the envelope.
 */
export function blockRoutes(router: Router): void {
  router.post('/v2/block', async (req, res) => {
    res.json(await blockAccount(req.em, principalOf(req), req.body, auditContextOf(req)));
  });
  router.delete('/v2/block/:account_id/capability/:block_capability', async (req, res) => {
    res.json(
      await unblockCapability(
        req.em,
        principalOf(req),
        req.params.account_id,
        req.params.block_capability as Capability,
        auditContextOf(req),
      ),
    );
  });
  router.get('/v2/block/:account_id', async (req, res) => {
    res.json(await getBlocks(req.em, principalOf(req), req.params.account_id));
  });
  router.post('/v1/:account_id/user-info/block', async (req, res) => {
    res.json(success(await legacyBlock(req.em, principalOf(req), req.params.account_id, req.body ?? {}, auditContextOf(req))));
  });
  router.post('/v1/:account_id/user-info/unblock', async (req, res) => {
    res.json(success(await legacyUnblock(req.em, principalOf(req), req.params.account_id, auditContextOf(req))));
  });
}
