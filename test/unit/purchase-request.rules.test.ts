import assert from 'node:assert/strict';
import { methodRefusal, normalisePurchaseRequest, tokenWalletShares } from '../../src/invoices/purchase-request.rules.js';
import { accountBodyInSpecShape } from '../../src/accounts/account.rules.js';

describe('purchase requests in the older shapes (rules)', () => {
  const line = { amount: 100, currency: 'USD', transaction_type: 'user_to_integrator' as const };

  it('drops null metadata and gives an amount-less method amount 0; omitted methods stay omitted', () => {
    const out = normalisePurchaseRequest({
      account_id: 'acc_1',
      metadata: null,
      payment_methods: [{ payment_method_id: 'pm_1' }],
      line_items: [{ ...line, metadata: null }],
    });
    assert.equal('metadata' in out, false);
    assert.equal('metadata' in out.line_items[0], false);
    assert.deepEqual(out.payment_methods, [{ payment_method_id: 'pm_1', amount: 0 }]);
    assert.equal(normalisePurchaseRequest({ account_id: 'acc_1', line_items: [line] }).payment_methods, undefined);
    assert.deepEqual(normalisePurchaseRequest({ account_id: 'acc_1', metadata: { a: 1 }, line_items: [line] }).metadata, { a: 1 });
  });

  it('token wallets pay standard first, then convertible; the last one needed pays the remainder', () => {
    const wallets = (standard: number, convertible: number) => [
      { payment_method_id: 'conv', wallet_kind: 'convertible' as const, balance: convertible },
      { payment_method_id: 'std', wallet_kind: 'standard' as const, balance: standard },
    ];
    assert.deepEqual(tokenWalletShares(500, wallets(800, 800)), [{ payment_method_id: 'std', amount: 0 }]);
    assert.deepEqual(tokenWalletShares(500, wallets(200, 800)), [
      { payment_method_id: 'std', amount: 200 },
      { payment_method_id: 'conv', amount: 0 },
    ]);
    assert.deepEqual(tokenWalletShares(500, wallets(0, 800)), [{ payment_method_id: 'conv', amount: 0 }]);
    // Not enough: the shares the client would name; the pay then fails.
    assert.deepEqual(tokenWalletShares(500, wallets(100, 100)), [
      { payment_method_id: 'std', amount: 100 },
      { payment_method_id: 'conv', amount: 0 },
    ]);
    assert.deepEqual(tokenWalletShares(500, []), []);
  });
});

describe('registration in the older shape (rules)', () => {
  it('moves top-level platform ids into external_platforms and country to country_iso', () => {
    assert.deepEqual(
      accountBodyInSpecShape({ username: 'a', steam: { user_id: '1' }, country: 'GB', external_platforms: { sony: { user_id: '2' } } }),
      {
        ok: true,
        body: { username: 'a', country_iso: 'GB', external_platforms: { sony: { user_id: '2' }, steam: { user_id: '1' } } },
      },
    );
    const plain = { username: 'a', email: { address: 'a@example.com' } };
    assert.deepEqual(accountBodyInSpecShape(plain), { ok: true, body: plain });
  });

  it('refuses a field in both forms, naming the spec field', () => {
    const out = accountBodyInSpecShape({
      country: 'GB',
      country_iso: 'GB',
      oculus: { user_id: '1' },
      external_platforms: { oculus: { user_id: '1' } },
    });
    assert.equal(out.ok, false);
    assert.deepEqual(out.ok ? {} : { ...out.fields }, { country_iso: ['ALIAS_CONFLICT'], 'external_platforms.oculus': ['ALIAS_CONFLICT'] });
  });

  it('leaves a malformed external_platforms for the validation to name', () => {
    const out = accountBodyInSpecShape({ steam: { user_id: '1' }, external_platforms: 'x' });
    assert.deepEqual(out, { ok: true, body: { external_platforms: 'x' } });
  });
});

describe('whether a named payment method can pay a purchase (rules)', () => {
  it('refuses a missing method, then a payout-only one, then one of another currency', () => {
    assert.equal(methodRefusal(undefined, 'USD'), 'NOT_FOUND');
    assert.equal(methodRefusal({ provider: 'paypal', processing_currency: 'USD' }, 'USD'), 'PAYOUT_ONLY');
    assert.equal(methodRefusal({ provider: 'paypal', processing_currency: 'USD' }, 'GEM'), 'PAYOUT_ONLY');
    assert.equal(methodRefusal({ provider: 'card', processing_currency: 'USD' }, 'GEM'), 'INCOMPATIBLE_CURRENCY');
    assert.equal(methodRefusal({ provider: 'wallet', processing_currency: 'GEM' }, 'USD'), 'INCOMPATIBLE_CURRENCY');
  });

  it('lets cards, POBO and wallets of the currency pay', () => {
    assert.equal(methodRefusal({ provider: 'card', processing_currency: 'USD' }, 'USD'), null);
    assert.equal(methodRefusal({ provider: 'pobo', processing_currency: 'USD' }, 'USD'), null);
    assert.equal(methodRefusal({ provider: 'wallet', processing_currency: 'GEM' }, 'GEM'), null);
  });
});
