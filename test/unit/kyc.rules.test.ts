import assert from 'node:assert/strict';
import { canReopen, canSubmit, isFinal, kycRequirements, verifierOutcomeState, type KycStanding } from '../../src/kyc/kyc.rules.js';

describe('KYC rules', () => {
  const standing = (state: KycStanding['state'], decidedBy: KycStanding['decidedBy'] = null): KycStanding => ({ state, decidedBy });

  it("a DENY and an operator's CANCEL are final until reopened; the user's own CANCEL is not", () => {
    assert.equal(isFinal(standing('DENY', 'verifier')), true);
    assert.equal(isFinal(standing('DENY', 'operator')), true);
    assert.equal(isFinal(standing('CANCEL', 'operator')), true);
    // Every CANCEL before deciders were recorded was an operator's.
    assert.equal(isFinal(standing('CANCEL', null)), true);
    assert.equal(isFinal(standing('CANCEL', 'user')), false);
    assert.equal(isFinal(standing('CANCEL', 'verifier')), false);
    for (const state of ['NODATA', 'PROCESSING', 'MANUAL_REVIEW', 'ACCEPT'] as const)
      assert.equal(isFinal(standing(state, 'operator')), false);
  });

  it('takes a submission only in NODATA and after the user abandoned their verification; lists the fields then', () => {
    assert.equal(canSubmit(standing('NODATA')), true);
    assert.equal(canSubmit(standing('NODATA', 'operator')), true, 'reopened');
    assert.equal(canSubmit(standing('CANCEL', 'user')), true);
    assert.equal(canSubmit(standing('CANCEL', 'operator')), false);
    assert.equal(canSubmit(standing('CANCEL', null)), false);
    for (const state of ['PROCESSING', 'MANUAL_REVIEW', 'ACCEPT', 'DENY'] as const)
      assert.equal(canSubmit(standing(state, 'user')), false, state);
    assert.equal(kycRequirements(standing('CANCEL', 'user')).length, 5);
    assert.deepEqual(kycRequirements(standing('CANCEL', 'operator')), []);
  });

  it('reopens only a final check', () => {
    assert.equal(canReopen(standing('DENY', 'verifier')), true);
    assert.equal(canReopen(standing('CANCEL', 'operator')), true);
    assert.equal(canReopen(standing('CANCEL', 'user')), false);
    assert.equal(canReopen(standing('NODATA')), false);
    assert.equal(canReopen(standing('ACCEPT', 'operator')), false);
  });

  it("maps a verifier's outcome onto a PROCESSING check only, and never to the state it has", () => {
    assert.equal(verifierOutcomeState('PROCESSING', 'verified', null), 'ACCEPT');
    assert.equal(verifierOutcomeState('PROCESSING', 'canceled', null), 'CANCEL');
    assert.equal(verifierOutcomeState('PROCESSING', 'requires_input', 'document_expired'), 'MANUAL_REVIEW');
    assert.equal(verifierOutcomeState('PROCESSING', 'requires_input', null), null);
    assert.equal(verifierOutcomeState('PROCESSING', 'processing', null), null);
    for (const state of ['NODATA', 'MANUAL_REVIEW', 'ACCEPT', 'DENY', 'CANCEL'] as const) {
      for (const outcome of ['verified', 'requires_input', 'canceled', 'processing'] as const) {
        assert.equal(verifierOutcomeState(state, outcome, 'x'), null, `${state} ${outcome}`);
      }
    }
  });
});
