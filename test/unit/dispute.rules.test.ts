import assert from 'node:assert/strict';
import {
  EVIDENCE_FIELD_MAX,
  EVIDENCE_FIELDS,
  EVIDENCE_TOTAL_MAX,
  closeDecision,
  disputedAmount,
  evidenceProblems,
  mergedEvidence,
  openPosting,
} from '../../src/disputes/dispute.rules.js';

describe('dispute rules', () => {
  it('names an evidence field over 20,000 characters; seven at the limit stay within 150,000 together', () => {
    assert.deepEqual(evidenceProblems({ product_description: 'a'.repeat(20_001) }), { product_description: ['TOO_LONG'] });
    assert.deepEqual(evidenceProblems({ product_description: 'a'.repeat(20_000) }), {});
    assert.ok(EVIDENCE_FIELDS.length * EVIDENCE_FIELD_MAX <= EVIDENCE_TOTAL_MAX);
  });

  it('merges evidence: sent fields replace, an empty string clears', () => {
    assert.deepEqual(mergedEvidence({ product_description: 'a', service_date: 'b' }, { service_date: '', uncategorized_text: 'c' }), {
      product_description: 'a',
      uncategorized_text: 'c',
    });
  });

  it('caps a notice at what the charge still has', () => {
    assert.deepEqual(disputedAmount(1000, 600), { amount: 600, capped: true });
    assert.deepEqual(disputedAmount(500, 600), { amount: 500, capped: false });
    assert.deepEqual(disputedAmount(500, 0), { amount: 0, capped: true });
  });

  it('closes an open dispute once; the same outcome again answers, the other is refused', () => {
    assert.equal(closeDecision('NEEDS_RESPONSE', 'LOST'), 'close');
    assert.equal(closeDecision('UNDER_REVIEW', 'WON'), 'close');
    assert.equal(closeDecision('WON', 'WON'), 'answer');
    assert.equal(closeDecision('WON', 'LOST'), 'refuse');
  });

  it('opens with the amount to holding and the fee to fees, from the wallet; a zero amount moves only the fee', () => {
    const accounts = { wallet: 'w', holding: 'h', fees: 'f', losses: 'l' };
    const p = openPosting({ id: 'dsp_1', integratorId: 'int', amount: 100, fee: 15, currency: 'USD' }, accounts);
    assert.equal(p.reference, 'dispute:dsp_1:open');
    assert.deepEqual(
      p.entries.map((e) => [e.account, e.amount]),
      [
        ['w', -115],
        ['h', 100],
        ['f', 15],
      ],
    );
    const zero = openPosting({ id: 'dsp_2', integratorId: 'int', amount: 0, fee: 15, currency: 'USD' }, accounts);
    assert.deepEqual(
      zero.entries.map((e) => [e.account, e.amount]),
      [
        ['w', -15],
        ['f', 15],
      ],
    );
  });
});
