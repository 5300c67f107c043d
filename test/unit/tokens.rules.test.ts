import assert from 'node:assert/strict';
import fc from 'fast-check';
import { conversionFee, conversionQuote } from '../../src/tokens/conversion.rules.js';
import { ceilRatio, exactRatio, MAX_AMOUNT, tokenQuote } from '../../src/tokens/tokens.rules.js';

const MAX = BigInt(MAX_AMOUNT);
/** Any amount the API takes, with the largest ones (where floating point rounds) drawn often. */
const amounts = fc.oneof(fc.integer({ min: 1, max: MAX_AMOUNT }), fc.integer({ min: MAX_AMOUNT - 1_000_000, max: MAX_AMOUNT }));
/** Rates as integrators set them (1 … 999,999,999 tokens per USD), small ones often. */
const rates = fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 999_999_999 }));

describe('token rules: tokens and cents meet in exact integers', () => {
  it('quotes exactly or refuses, at normal sizes (the rule is unchanged: refused, never rounded)', () => {
    assert.deepEqual(tokenQuote(500, 'GEM', 'GEM', 250), { ok: true, tokens: 500, cents: 200 });
    assert.deepEqual(tokenQuote(200, 'USD', 'GEM', 250), { ok: true, tokens: 500, cents: 200 });
    assert.deepEqual(tokenQuote(150, 'GEM', 'GEM', 100), { ok: true, tokens: 150, cents: 150 });
    assert.deepEqual(tokenQuote(3, 'GEM', 'GEM', 250), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(tokenQuote(100, 'GEM', 'GEM', 3), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(tokenQuote(150, 'USD', 'GEM', 3), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(tokenQuote(10, 'EUR', 'GEM', 250), { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' });
    assert.deepEqual(tokenQuote(0, 'GEM', 'GEM', 250), { ok: false, field: 'amount', code: 'TOO_SMALL' });
    assert.deepEqual(tokenQuote(1.5, 'GEM', 'GEM', 250), { ok: false, field: 'amount', code: 'NOT_EXACT' });
  });

  it('refuses what floating point took for exact, and prices exactly what it got wrong, near 2^53', () => {
    // 9007199254740033 × 3 / 100 is 270215977642200.99 tokens; in floating point the product rounded to a whole hundred.
    assert.deepEqual(tokenQuote(9_007_199_254_740_033, 'USD', 'GEM', 3), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(tokenQuote(9_007_199_254_740_989, 'GEM', 'GEM', 250), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    // Exact, but floating point charged a cent less (100 per USD) or refused it (250 per USD).
    assert.deepEqual(tokenQuote(9_007_199_254_740_990, 'GEM', 'GEM', 100), {
      ok: true,
      tokens: 9_007_199_254_740_990,
      cents: 9_007_199_254_740_990,
    });
    assert.deepEqual(tokenQuote(9_007_199_254_740_990, 'USD', 'GEM', 100), {
      ok: true,
      tokens: 9_007_199_254_740_990,
      cents: 9_007_199_254_740_990,
    });
    assert.deepEqual(tokenQuote(9_007_199_254_740_880, 'GEM', 'GEM', 250), {
      ok: true,
      tokens: 9_007_199_254_740_880,
      cents: 3_602_879_701_896_352,
    });
    // Exact, but more than any amount can be: refused naming the amount.
    assert.deepEqual(tokenQuote(MAX_AMOUNT, 'GEM', 'GEM', 1), { ok: false, field: 'amount', code: 'TOO_LARGE' });
    assert.deepEqual(tokenQuote(MAX_AMOUNT - 91, 'USD', 'GEM', 1000), { ok: false, field: 'amount', code: 'TOO_LARGE' });
  });

  it('for every amount up to 2^53 − 1 and every rate, the quote is exact (tokens × 100 = cents × rate) or refused naming the amount', () => {
    fc.assert(
      fc.property(amounts, rates, fc.constantFrom('GEM', 'USD'), (amount, rate, currency) => {
        const quote = tokenQuote(amount, currency, 'GEM', rate);
        const [multiplier, divisor] = currency === 'GEM' ? [100n, BigInt(rate)] : [BigInt(rate), 100n];
        const product = BigInt(amount) * multiplier;
        if (quote.ok) {
          assert.equal(currency === 'GEM' ? quote.tokens : quote.cents, amount);
          assert.equal(BigInt(quote.tokens) * 100n, BigInt(quote.cents) * BigInt(rate));
          assert.ok(Number.isSafeInteger(quote.tokens) && Number.isSafeInteger(quote.cents) && quote.tokens >= 1 && quote.cents >= 1);
        } else {
          assert.equal(quote.field, 'amount');
          if (quote.code === 'NOT_EXACT') assert.notEqual(product % divisor, 0n);
          else {
            assert.equal(quote.code, 'TOO_LARGE');
            assert.equal(product % divisor, 0n);
            assert.ok(product / divisor > MAX);
          }
        }
      }),
      {
        numRuns: 2000,
        examples: [
          [9_007_199_254_740_033, 3, 'USD'],
          [9_007_199_254_740_989, 250, 'GEM'],
          [9_007_199_254_740_990, 100, 'GEM'],
          [9_007_199_254_740_880, 1000, 'GEM'],
        ],
      },
    );
  });

  it('exactRatio and ceilRatio are exact where the product passes 2^53', () => {
    assert.deepEqual(exactRatio(MAX_AMOUNT, 100, 100), { ok: true, value: MAX_AMOUNT });
    assert.deepEqual(exactRatio(MAX_AMOUNT, 3, 3), { ok: true, value: MAX_AMOUNT });
    assert.deepEqual(exactRatio(MAX_AMOUNT, 2, 1), { ok: false, code: 'TOO_LARGE' });
    assert.deepEqual(exactRatio(MAX_AMOUNT, 2, 3), { ok: false, code: 'NOT_EXACT' });
    assert.equal(ceilRatio(MAX_AMOUNT, 9999, 10_000), 9_006_298_534_815_517);
    assert.equal(ceilRatio(1, 1, 10_000), 1);
    assert.equal(ceilRatio(10_000, 1, 10_000), 1);
  });

  it('the conversion fee is ceil(fiat × bps / 10000) exactly, never more than the fiat amount', () => {
    assert.equal(conversionFee(10_001, 1), 2);
    assert.equal(conversionFee(200, 10_000), 200);
    // Floating point gave the integrator a cent less than its fee.
    assert.equal(conversionFee(3_602_879_701_896_394, 9999), 3_602_519_413_926_205);
    fc.assert(
      fc.property(amounts, fc.integer({ min: 0, max: 10_000 }), (fiat, bps) => {
        const fee = BigInt(conversionFee(fiat, bps));
        const owed = BigInt(fiat) * BigInt(bps);
        assert.ok(fee <= BigInt(fiat));
        assert.ok(fee * 10_000n >= owed, 'never less than the rate');
        if (fee > 0n) assert.ok((fee - 1n) * 10_000n < owed, 'rounded up by less than a cent');
      }),
      {
        numRuns: 2000,
        examples: [
          [9_007_199_254_740_991, 9999],
          [3_602_879_701_896_394, 9999],
          [9_007_199_254_740_988, 2500],
        ],
      },
    );
  });

  it('a conversion quote is the token quote of the token currency, with its fee', () => {
    const gem = { tokenCurrency: 'GEM', tokensPerUsd: 250 };
    assert.deepEqual(conversionQuote(9_007_199_254_740_989, 'GEM', gem, 0), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(conversionQuote(9_007_199_254_740_985, 'GEM', gem, 9999), {
      ok: true,
      tokens: 9_007_199_254_740_985,
      fiat: 3_602_879_701_896_394,
      fee: 3_602_519_413_926_205,
    });
    assert.deepEqual(conversionQuote(0, 'GEM', gem, 0), { ok: false, field: 'amount', code: 'TOO_SMALL' });
    assert.deepEqual(conversionQuote(500, 'USD', gem, 0), { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' });
  });
});
