import assert from 'node:assert/strict';
import { canPayPurchases, normalisePaypalEmail } from '../../src/payment-methods/payment-method.rules.js';
import { paypalSandboxOutcome } from '../../src/rails/sandbox-payout.rules.js';
import { cardBrand, checkCard, isExpired, luhnValid } from '../../src/rails/sandbox-card.rules.js';

describe('card rules', () => {
  it('checks the Luhn digit', () => {
    assert.equal(luhnValid('4242424242424242'), true);
    assert.equal(luhnValid('4242424242424241'), false);
    assert.equal(luhnValid('79927398713'), true);
  });

  it('treats a card as valid through the end of its expiry month', () => {
    const now = new Date(Date.UTC(2026, 10, 30));
    assert.equal(isExpired(11, 2026, now), false);
    assert.equal(isExpired(10, 2026, now), true);
    assert.equal(isExpired(1, 2027, now), false);
    assert.equal(isExpired(12, 2025, now), true);
  });

  it('knows the sandbox test cards and refuses others', () => {
    const exp = { exp_month: 12, exp_year: 2099 };
    assert.deepEqual(checkCard({ number: '4242424242424242', ...exp }), { ok: true, outcome: 'succeeds' });
    assert.deepEqual(checkCard({ number: '4000000000000002', ...exp }), { ok: true, outcome: 'card_declined' });
    assert.deepEqual(checkCard({ number: '4000000000009995', ...exp }), { ok: true, outcome: 'insufficient_funds' });
    assert.deepEqual(checkCard({ number: '5555555555554444', ...exp }), { ok: false, fields: { 'card.number': 'NOT_A_TEST_CARD' } });
  });

  it('names the brand from the number', () => {
    assert.equal(cardBrand('4242424242424242'), 'visa');
    assert.equal(cardBrand('5555555555554444'), 'mastercard');
    assert.equal(cardBrand('378282246310005'), 'amex');
  });
});

describe('PayPal payout destination rules', () => {
  it('stores an address lower-cased, so one address in any case is one destination', () => {
    assert.equal(normalisePaypalEmail('Player.One@Example.COM'), 'player.one@example.com');
    assert.equal(normalisePaypalEmail('a@b.co'), 'a@b.co');
  });

  it('fails payouts to the documented failing sandbox address only', () => {
    assert.equal(paypalSandboxOutcome('payout-fails@example.com'), 'payout_fails');
    assert.equal(paypalSandboxOutcome(normalisePaypalEmail('PAYOUT-FAILS@EXAMPLE.COM')), 'payout_fails');
    assert.equal(paypalSandboxOutcome('payout-fails@example.org'), 'succeeds');
    assert.equal(paypalSandboxOutcome('player@example.com'), 'succeeds');
  });

  it('leaves payouts to the documented unclaimed sandbox address PROCESSING', () => {
    assert.equal(paypalSandboxOutcome('payout-unclaimed@example.com'), 'payout_unclaimed');
    assert.equal(paypalSandboxOutcome(normalisePaypalEmail('Payout-Unclaimed@Example.com')), 'payout_unclaimed');
  });

  it('lets every provider but PayPal pay purchases', () => {
    assert.equal(canPayPurchases('paypal'), false);
    for (const provider of ['wallet', 'card', 'pobo']) assert.equal(canPayPurchases(provider), true, provider);
  });
});
