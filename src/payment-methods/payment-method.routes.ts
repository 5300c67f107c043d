import { principalOf } from '../http/auth.js';
import type { Router } from 'express';
import { success } from '../envelope.js';
import { addMethod, listPaymentMethods } from './payment-method.service.js';
import type { CardProcessor } from '../rails/card-processor.port.js';

/** Payments API: list payment methods, add a card (through `cards`) or a PayPal payout destination. Requests arrive validated. */
export function paymentMethodRoutes(router: Router, cards: CardProcessor): void {
  // `/{account_id}/payment_methods` (no `/v1`): an alias for clients that call it there.
  router.get(['/v1/:account_id/payment_methods', '/:account_id/payment_methods'], async (req, res) => {
    res.json(success(await listPaymentMethods(req.em, principalOf(req), String(req.params.account_id))));
  });
  router.post('/v1/:account_id/payment_methods', async (req, res) => {
    res.status(201).json(success(await addMethod(req.em, cards, principalOf(req), req.params.account_id, req.body)));
  });
}
