import assert from 'node:assert/strict';
import { declineReason } from '../../src/rails/stripe-card.adapter.js';

describe("Stripe's declines as Holdfast's failure reasons", () => {
  it('maps insufficient funds, authentication required and every other decline to the reasons the sandbox gives', () => {
    // A card attached before it ran dry declines its charge with this decline code (Stripe's test
    // cards that do it cannot be attached, so the suite meets it only here).
    assert.equal(declineReason({ code: 'card_declined', decline_code: 'insufficient_funds' }), 'insufficient_funds');
    assert.equal(declineReason({ code: 'authentication_required', decline_code: 'authentication_required' }), 'authentication_required');
    assert.equal(declineReason({ code: 'card_declined', decline_code: 'generic_decline' }), 'card_declined');
    assert.equal(declineReason({ code: 'expired_card' }), 'card_declined');
    assert.equal(declineReason({ code: 'card_declined', decline_code: 'lost_card' }), 'card_declined');
  });
});
