import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { post, systemAccount } from '../../src/ledger/ledger.service.js';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';

const nextYear = new Date().getUTCFullYear() + 1;
const card = (number: string, extra: Record<string, unknown> = {}) => ({
  type: 'card',
  card: { number, exp_month: 12, exp_year: nextYear, cvc: '123', ...extra },
});

describe('payment methods', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it("lists a new account's USD wallet with a zero balance, as the contract shows it", async () => {
    const account = await register(client);
    const res = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.payload.length, 1);
    const wallet = res.body.payload[0];
    assert.equal(wallet.provider, 'wallet');
    assert.equal(wallet.processing_currency, 'USD');
    assert.equal(wallet.account_id, account.account_id);
    assert.equal(wallet.integrator, client.integrator);
    assert.equal(wallet.wallet_balance, '0');
    assert.equal(wallet.payment_method_id, wallet.id);
    assert.deepEqual(wallet.provider_data, { wallet_id: wallet.provider_data.wallet_id, wallet_balance: '0', wallet_type: 'fiat' });
    assert.match(wallet.provider_data.wallet_id, /^wal_/);
  });

  it('shows the wallet balance from the ledger, as a string of minor units', async () => {
    const account = await register(client);
    const list = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token });
    const walletId = list.body.payload[0].provider_data.wallet_id;
    const [acct] = await h()
      .orm.em.fork()
      .execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [account.account_id]);
    const clearing = await systemAccount(h().orm.em.fork(), acct.integrator_id, 'card_clearing', 'USD');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: acct.integrator_id,
          reference: unique('fund-'),
          description: 'fund',
          entries: [
            { account: clearing, currency: 'USD', amount: -2599 },
            { account: walletId, currency: 'USD', amount: 2599 },
          ],
        }),
      );
    const after = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token });
    assert.equal(after.body.payload[0].wallet_balance, '2599');
    assert.equal(after.body.payload[0].provider_data.wallet_balance, '2599');
  });

  it('lists standard and convertible token wallets and POBO methods', async () => {
    const name = unique('pmtok-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    const tokenClient = await newClient({ integrator: name });
    const reg = await call('POST', '/register', {
      token: tokenClient.token,
      body: { username: unique('t'), external_platforms: { steam: { user_id: unique('s') } } },
    });
    const res = await call('GET', `/v1/${reg.body.payload.account_id}/payment_methods`, { token: tokenClient.token });
    const kinds = res.body.payload
      .map((m: any) => `${m.provider}:${m.processing_currency}:${m.provider_data.wallet_type ?? m.provider_data.platform}`)
      .sort();
    assert.deepEqual(kinds, ['pobo:USD:steam', 'wallet:GEM:convertible', 'wallet:GEM:standard', 'wallet:USD:fiat']);
  });

  it('adds a sandbox card (201) keeping only brand, last four, expiry and a fingerprint', async () => {
    const account = await register(client);
    const res = await call('POST', `/v1/${account.account_id}/payment_methods`, {
      token: client.token,
      body: { ...card('4242424242424242'), full_name: 'Card Holder' },
    });
    assert.equal(res.status, 201);
    const pm = res.body.payload;
    assert.equal(pm.provider, 'card');
    assert.equal(pm.display_string, 'Visa •••• 4242');
    assert.deepEqual(pm.provider_data, { brand: 'visa', last4: '4242', exp_month: 12, exp_year: nextYear });
    assert.match(pm.psp_hash_code, /^[0-9a-f]{32}$/);
    assert.equal(pm.wallet_balance, undefined);
    const [row] = await h().orm.em.fork().execute<Array<Record<string, unknown>>>('select * from payment_method where id = ?', [pm.id]);
    const stored = JSON.stringify(row);
    assert.equal(stored.includes('4242424242424242'), false, 'the full number is never stored');
    assert.equal(stored.includes('"123"'), false, 'the CVC is never stored');
    const list = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token });
    assert.deepEqual(
      list.body.payload.map((m: any) => m.provider),
      ['wallet', 'card'],
    );
  });

  it('gives the same card the same fingerprint', async () => {
    const account = await register(client);
    const a = await call('POST', `/v1/${account.account_id}/payment_methods`, { token: client.token, body: card('4000000000000002') });
    const b = await call('POST', `/v1/${account.account_id}/payment_methods`, { token: client.token, body: card('4000000000000002') });
    assert.equal(a.body.payload.psp_hash_code, b.body.payload.psp_hash_code);
    assert.notEqual(a.body.payload.id, b.body.payload.id);
  });

  const refused: Array<[string, unknown, string, string]> = [
    ['a number failing the Luhn check', card('4242424242424241'), 'card.number', 'INVALID_VALUE'],
    ['a real-looking card that is not a test card', card('4111111111111111'), 'card.number', 'NOT_A_TEST_CARD'],
    ['an expired card', card('4242424242424242', { exp_year: 2020 }), 'card.exp_year', 'EXPIRED'],
    ['a number with spaces', card('4242 4242 4242 4242'), 'card.number', 'INVALID_VALUE'],
    ['a month 13', card('4242424242424242', { exp_month: 13 }), 'card.exp_month', 'TOO_LARGE'],
    ['a CVC of 5 digits', card('4242424242424242', { cvc: '12345' }), 'card.cvc', 'INVALID_VALUE'],
    ['a missing CVC', { type: 'card', card: { number: '4242424242424242', exp_month: 1, exp_year: nextYear } }, 'card.cvc', 'REQUIRED'],
    ['another type', { ...card('4242424242424242'), type: 'bank' }, 'type', 'INVALID_VALUE'],
    ['an unknown field', { ...card('4242424242424242'), nickname: 'x' }, 'nickname', 'UNKNOWN_FIELD'],
  ];
  for (const [what, body, field, code] of refused) {
    it(`refuses ${what} (400 naming ${field}) and adds nothing`, async () => {
      const account = await register(client);
      const res = await call('POST', `/v1/${account.account_id}/payment_methods`, { token: client.token, body });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { [field]: [code] });
      const list = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token });
      assert.equal(list.body.payload.length, 1);
    });
  }
});
