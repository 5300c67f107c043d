import assert from 'node:assert/strict';
import { verificationSessionOutcome, verificationSessionSnapshot } from '../../src/rails/verification-session.rules.js';

describe("Stripe Identity's VerificationSession in the identity port's terms", () => {
  it('reads each status as the outcome of the same name, keeping the error code', () => {
    assert.deepEqual(verificationSessionOutcome('verified', null), { outcome: 'verified', errorCode: null });
    assert.deepEqual(verificationSessionOutcome('processing', null), { outcome: 'processing', errorCode: null });
    assert.deepEqual(verificationSessionOutcome('canceled', null), { outcome: 'canceled', errorCode: null });
    assert.deepEqual(verificationSessionOutcome('requires_input', 'document_expired'), {
      outcome: 'requires_input',
      errorCode: 'document_expired',
    });
    assert.deepEqual(verificationSessionOutcome('requires_input', null), { outcome: 'requires_input', errorCode: null });
    assert.equal(verificationSessionOutcome('redacted', null), null);
  });

  it('reads a person who left their own verification (abandoned, consent declined) as their cancel, not a review', () => {
    assert.deepEqual(verificationSessionOutcome('requires_input', 'abandoned'), { outcome: 'canceled', errorCode: 'abandoned' });
    assert.deepEqual(verificationSessionOutcome('requires_input', 'consent_declined'), {
      outcome: 'canceled',
      errorCode: 'consent_declined',
    });
  });

  it('keeps no URL, client secret, verified outputs or provided details of a session', () => {
    const kept = verificationSessionSnapshot({
      id: 'vs_1',
      object: 'identity.verification_session',
      status: 'verified',
      url: 'https://verify.stripe.com/start/secret',
      client_secret: 'vs_1_secret_x',
      verified_outputs: { first_name: 'Ada' },
      provided_details: { email: 'ada@example.com' },
      last_error: null,
      metadata: { kyc_id: 'kyc_1' },
    });
    assert.deepEqual(kept, {
      id: 'vs_1',
      object: 'identity.verification_session',
      status: 'verified',
      last_error: null,
      metadata: { kyc_id: 'kyc_1' },
    });
  });
});
