import assert from 'node:assert/strict';
import { type StripeCardMove, stripeCardMoveMismatch } from '../../src/invoices/stripe-card-check.rules.js';
import { refundSightSupersedes } from '../../src/invoices/stripe-refund-snapshot.rules.js';

const charge: StripeCardMove = {
  kind: 'charge',
  invoiceId: 'inv_1',
  paymentMethodId: 'pm_1',
  amount: 1000,
  currency: 'USD',
  paidInvoiceId: null,
  escrowCancelled: false,
};
const refund: StripeCardMove = { ...charge, kind: 'refund', invoiceId: 'inv_r', paidInvoiceId: 'inv_1' };
const intent = (snapshot: Record<string, unknown>) => ({
  objectId: 'pi_1',
  objectType: 'payment_intent',
  snapshot: { amount: 1000, currency: 'usd', status: 'succeeded', ...snapshot },
});
const stripeRefund = (snapshot: Record<string, unknown>) => ({
  objectId: 're_1',
  objectType: 'refund',
  snapshot: { amount: 1000, currency: 'usd', status: 'succeeded', ...snapshot },
});

describe('Stripe card moves against their stored objects (ledger verify)', () => {
  it('a charge stands on one succeeded PaymentIntent of its amount and currency', () => {
    assert.equal(stripeCardMoveMismatch(charge, [intent({})]), null);
    assert.equal(
      stripeCardMoveMismatch(charge, [intent({ status: 'requires_capture' })]),
      'invoice inv_1: card charge of payment method pm_1 (1000 USD): its stored PaymentIntent pi_1 is 1000 USD requires_capture (expected 1000 USD succeeded)',
    );
    assert.match(stripeCardMoveMismatch(charge, [intent({ currency: 'eur' })])!, /is 1000 EUR succeeded/);
    assert.match(stripeCardMoveMismatch(charge, [])!, /has 0 stored Stripe PaymentIntents \(expected 1\)$/);
    assert.match(stripeCardMoveMismatch(charge, [intent({}), { ...intent({}), objectId: 'pi_2' }])!, /has 2 stored/);
  });

  it('a released hold is accepted only for an escrow that was cancelled', () => {
    assert.match(stripeCardMoveMismatch(charge, [intent({ status: 'canceled' })])!, /canceled/);
    assert.equal(stripeCardMoveMismatch({ ...charge, escrowCancelled: true }, [intent({ status: 'canceled' })]), null);
    // The cancel's refund part then has no Refund: its charge's intent was released.
    assert.equal(stripeCardMoveMismatch(refund, [], intent({ status: 'canceled' })), null);
    assert.match(stripeCardMoveMismatch(refund, [], intent({}))!, /has 0 stored Stripe Refunds \(expected 1\)$/);
  });

  it('a refund recorded as done stands on one succeeded or pending Refund of its amount', () => {
    assert.equal(stripeCardMoveMismatch(refund, [stripeRefund({})]), null);
    assert.equal(stripeCardMoveMismatch(refund, [stripeRefund({ status: 'pending' })]), null);
    assert.equal(
      stripeCardMoveMismatch(refund, [stripeRefund({ status: 'failed' })]),
      'refund invoice inv_r: card refund to payment method pm_1 (1000 USD): its stored Refund re_1 is 1000 USD failed (expected 1000 USD succeeded or pending)',
    );
    assert.match(stripeCardMoveMismatch(refund, [stripeRefund({ amount: 400 })])!, /is 400 USD succeeded/);
  });

  it('a reversed refund part stands on no Refund or a failed one, never on one Stripe took', () => {
    const reversed = { ...refund, reversed: true };
    assert.equal(stripeCardMoveMismatch(reversed, []), null);
    assert.equal(stripeCardMoveMismatch(reversed, [stripeRefund({ status: 'failed' })]), null);
    assert.equal(stripeCardMoveMismatch(reversed, [stripeRefund({ status: 'canceled' })]), null);
    assert.equal(
      stripeCardMoveMismatch(reversed, [stripeRefund({})]),
      'refund invoice inv_r: card refund to payment method pm_1 (1000 USD) was reversed, but its stored Refund re_1 is 1000 USD succeeded (expected failed or canceled)',
    );
    assert.match(stripeCardMoveMismatch(reversed, [stripeRefund({ status: 'pending' })])!, /was reversed/);
  });

  it('a Refund sight replaces the stored one only when further along', () => {
    assert.equal(refundSightSupersedes('pending', 'succeeded'), true);
    assert.equal(refundSightSupersedes('succeeded', 'failed'), true);
    assert.equal(refundSightSupersedes('pending', 'failed'), true);
    assert.equal(refundSightSupersedes('succeeded', 'succeeded'), false);
    assert.equal(refundSightSupersedes('failed', 'succeeded'), false);
    assert.equal(refundSightSupersedes('failed', 'pending'), false);
    assert.equal(refundSightSupersedes('succeeded', 'pending'), false);
    assert.equal(refundSightSupersedes('succeeded', 'unheard_of'), false);
  });
});
