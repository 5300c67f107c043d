/**
 * The sandbox card processor (CARD_PROCESSOR=sandbox, staging's default): the test card numbers
 * decide at once what a charge and a refund do (sandbox-card.rules.ts). No provider, no network:
 * charges are decided synchronously, so the batched escrow path pays nothing for the port.
 */
import { createHash } from 'node:crypto';
import type { AddCardOutcome, CardInput, CardOwner, CardProcessor, StoredCard } from './card-processor.port.js';
import { cardBrand, cardChargeFailure, cardRefundFailure, checkCard } from './sandbox-card.rules.js';

/** The fingerprint of a card number (`psp_hash_code`): the same per integrator, never the number. */
function fingerprintOf(integratorId: string, number: string): string {
  return createHash('sha256').update(`${integratorId}:${number}`).digest('hex').slice(0, 32);
}

async function addCard(input: CardInput, owner: CardOwner): Promise<AddCardOutcome> {
  if (input.stripe_payment_method !== undefined)
    return {
      ok: false,
      fields: { 'card.stripe_payment_method': 'NOT_ALLOWED' },
      message: 'The sandbox card processor takes a test card number, not a Stripe PaymentMethod.',
    };
  // The request schema holds both shapes: the sandbox's fields are required here.
  const missing = (['number', 'exp_month', 'exp_year', 'cvc'] as const).filter((f) => input[f] === undefined);
  if (missing.length) return { ok: false, fields: Object.fromEntries(missing.map((f) => [`card.${f}`, 'REQUIRED'])) };
  const card = { number: input.number!, exp_month: input.exp_month!, exp_year: input.exp_year! };
  const checked = checkCard(card);
  if (!checked.ok) return { ok: false, fields: checked.fields, message: 'The card is not acceptable.' };
  return {
    ok: true,
    card: {
      brand: cardBrand(card.number),
      last4: card.number.slice(-4),
      exp_month: card.exp_month,
      exp_year: card.exp_year,
      fingerprint: fingerprintOf(owner.integratorId, card.number),
      pspReference: null,
      details: { sandbox_outcome: checked.outcome },
    },
  };
}

/** The sandbox card processor. */
export const sandboxCardProcessor: CardProcessor = {
  name: 'sandbox',
  addCard,
  chargeFailure: (card: StoredCard) => cardChargeFailure(card.sandbox_outcome as string | undefined),
  refundFailure: (card: StoredCard) => cardRefundFailure(card.sandbox_outcome as string | undefined),
};
