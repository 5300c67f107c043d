import type { Router } from 'express';
import type { TokenSigner } from '../auth/auth.service.js';
import { principalOf } from '../http/auth.js';
import { keepForReplay } from '../http/idempotency.js';
import { success } from '../envelope.js';
import { authorizeInvoice, reopenAuthorization, type AuthorizedIds } from './invoice-authorization.service.js';

/** Invoicing API: invoice authorization (`authorizeInvoice`). Requests arrive validated. */
export function invoiceAuthorizationRoutes(router: Router, deps: { signer: TokenSigner; webUrl: string }): void {
  // The answer carries a password token or a session nonce: never cached, never kept for a replay.
  router.post('/v2/authorize/invoice', async (req, res) => {
    const principal = principalOf(req);
    const answer = req.idempotentReplay
      ? await reopenAuthorization(req.em, deps.signer, principal, req.body, req.idempotentReplay as AuthorizedIds, deps.webUrl)
      : await authorizeInvoice(req.em, deps.signer, principal, req.body, deps.webUrl);
    keepForReplay(res, {
      authorized_invoice_id: answer.authorized_invoice_id,
      ...(answer.escrow_id ? { escrow_id: answer.escrow_id } : {}),
    });
    res.set('Cache-Control', 'no-store').json(success(answer));
  });
}
