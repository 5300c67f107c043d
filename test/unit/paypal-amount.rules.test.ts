import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fromPaypalAmount, toPaypalAmount, UnsupportedAmountError } from '../../src/rails/paypal-amount.rules.js';

describe('PayPal amounts: minor units to decimal strings, exactly', () => {
  it('writes cents as PayPal decimals, with no floating point at any size', () => {
    assert.deepEqual(toPaypalAmount(1, 'USD'), { currency: 'USD', value: '0.01' });
    assert.deepEqual(toPaypalAmount(10, 'USD'), { currency: 'USD', value: '0.10' });
    assert.deepEqual(toPaypalAmount(100, 'EUR'), { currency: 'EUR', value: '1.00' });
    assert.deepEqual(toPaypalAmount(123456789, 'USD'), { currency: 'USD', value: '1234567.89' });
    // 2^53 − 1 cents: a float division would round the last digits.
    assert.deepEqual(toPaypalAmount(9_007_199_254_740_991, 'USD'), { currency: 'USD', value: '90071992547409.91' });
  });

  it('takes currencies without decimals as whole units (JPY), and refuses a fraction PayPal cannot pay (HUF, TWD)', () => {
    assert.deepEqual(toPaypalAmount(500, 'JPY'), { currency: 'JPY', value: '500' });
    assert.deepEqual(toPaypalAmount(1, 'JPY'), { currency: 'JPY', value: '1' });
    assert.deepEqual(toPaypalAmount(12_300, 'HUF'), { currency: 'HUF', value: '123' });
    assert.throws(
      () => toPaypalAmount(12_345, 'HUF'),
      (e: unknown) => e instanceof UnsupportedAmountError && e.code === 'amount_not_supported',
    );
    assert.throws(() => toPaypalAmount(101, 'TWD'), UnsupportedAmountError);
  });

  it('refuses a currency PayPal does not pay out in, and amounts that are not positive whole minor units', () => {
    assert.throws(
      () => toPaypalAmount(100, 'KRW'),
      (e: unknown) => e instanceof UnsupportedAmountError && e.code === 'currency_not_supported',
    );
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 53])
      assert.throws(() => toPaypalAmount(bad, 'USD'), UnsupportedAmountError, String(bad));
  });

  it('reads PayPal amounts back to the same minor units', () => {
    assert.equal(fromPaypalAmount({ currency: 'USD', value: '1234567.89' }), 123456789);
    assert.equal(fromPaypalAmount({ currency: 'USD', value: '1.5' }), 150);
    assert.equal(fromPaypalAmount({ currency: 'JPY', value: '500' }), 500);
    assert.equal(fromPaypalAmount({ currency: 'HUF', value: '123' }), 12_300);
    assert.equal(fromPaypalAmount({ currency: 'USD', value: '1.234' }), undefined);
    assert.equal(fromPaypalAmount({ currency: 'USD', value: '-1.00' }), undefined);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.constantFrom('USD', 'EUR', 'JPY', 'GBP'), (n, currency) => {
        assert.equal(fromPaypalAmount(toPaypalAmount(n, currency)), n);
      }),
    );
  });
});
