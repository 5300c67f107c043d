import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { tokenQuote } from '../../src/tokens/tokens.rules.js';
import { balances, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { addCard, call, h, newClient, register, unique, type TestClient } from '../support/harness.js';

describe('token purchase', () => {
  let client: TestClient;
  let integratorId: string;
  const wallets = async (accountId: string) => {
    const list = (await call('GET', `/v1/${accountId}/payment_methods`, { token: client.token })).body.payload;
    const find = (c: string, t: string) => list.find((m: any) => m.processing_currency === c && m.provider_data.wallet_type === t);
    return { usd: find('USD', 'fiat'), standard: find('GEM', 'standard'), convertible: find('GEM', 'convertible') };
  };

  before(async () => {
    const name = unique('tokbuy-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
    client = await newClient({ integrator: name });
  });

  it('quotes exactly or refuses', () => {
    assert.deepEqual(tokenQuote(500, 'GEM', 'GEM', 250), { ok: true, tokens: 500, cents: 200 });
    assert.deepEqual(tokenQuote(200, 'USD', 'GEM', 250), { ok: true, tokens: 500, cents: 200 });
    assert.deepEqual(tokenQuote(3, 'GEM', 'GEM', 250), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(tokenQuote(10, 'EUR', 'GEM', 250), { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' });
  });

  it('charges the card, pays the integrator in USD and credits standard tokens (201, token_purchase SUCCESS)', async () => {
    const buyer = await register(client);
    const card = await addCard(client, buyer.account_id);
    const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
    const before = (await balances(h().orm.em.fork(), [publisher])).get(publisher)!;
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: { payment_method_id: card, amount: 1000, currency: 'GEM' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.payload.invoice_type, 'token_purchase');
    assert.equal(res.body.payload.state, 'SUCCESS');
    assert.deepEqual(res.body.payload.summary, { total_amount: 400, currency: 'USD', display_amount: 'USD 4.00' });
    const w = await wallets(buyer.account_id);
    assert.equal(w.standard.wallet_balance, '1000');
    assert.equal(w.convertible.wallet_balance, '0');
    assert.equal((await balances(h().orm.em.fork(), [publisher])).get(publisher)! - before, 400);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('buys for another account (destination_account_id) with an amount in USD', async () => {
    const payer = await register(client);
    const friend = await register(client);
    const card = await addCard(client, payer.account_id);
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: { payment_method_id: card, amount: 200, currency: 'USD', destination_account_id: friend.account_id },
    });
    assert.equal(res.status, 201);
    assert.equal((await wallets(friend.account_id)).standard.wallet_balance, '500');
    assert.equal((await wallets(payer.account_id)).standard.wallet_balance, '0');
  });

  it('a declined card fails the purchase (FAILED) and issues nothing', async () => {
    const buyer = await register(client);
    const card = await addCard(client, buyer.account_id, '4000000000000002');
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: { payment_method_id: card, amount: 250, currency: 'GEM' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.payload.state, 'FAILED');
    assert.equal(res.body.payload.failure_reason, 'card_declined');
    assert.equal((await wallets(buyer.account_id)).standard.wallet_balance, '0');
  });

  const refused: Array<[string, (pm: string) => Record<string, unknown>, string, string]> = [
    ['an amount that does not convert exactly', (pm) => ({ payment_method_id: pm, amount: 3, currency: 'GEM' }), 'amount', 'NOT_EXACT'],
    ['another currency', (pm) => ({ payment_method_id: pm, amount: 100, currency: 'EUR' }), 'currency', 'UNSUPPORTED_CURRENCY'],
    ['an unknown payment method', () => ({ payment_method_id: 'pm_nope', amount: 250, currency: 'GEM' }), 'payment_method_id', 'NOT_FOUND'],
    ['a zero amount', (pm) => ({ payment_method_id: pm, amount: 0, currency: 'GEM' }), 'amount', 'TOO_SMALL'],
  ];
  for (const [what, body, field, code] of refused) {
    it(`refuses ${what} (400 naming ${field})`, async () => {
      const buyer = await register(client);
      const card = await addCard(client, buyer.account_id);
      const res = await call('POST', '/v2/token/purchase', { token: client.token, body: body(card) });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { [field]: [code] });
    });
  }

  it('refuses a token wallet as the payment method (INCOMPATIBLE_CURRENCY)', async () => {
    const buyer = await register(client);
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: { payment_method_id: (await wallets(buyer.account_id)).standard.id, amount: 250, currency: 'GEM' },
    });
    assert.deepEqual(res.body.payload.errors, { payment_method_id: ['INCOMPATIBLE_CURRENCY'] });
  });

  it('refuses when the integrator has no token currency', async () => {
    const plain = await newClient();
    const buyer = await register(plain);
    const usd = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: plain.token })).body.payload[0].id;
    const res = await call('POST', '/v2/token/purchase', {
      token: plain.token,
      body: { payment_method_id: usd, amount: 100, currency: 'USD' },
    });
    assert.deepEqual(res.body.payload.errors, { currency: ['UNSUPPORTED_CURRENCY'] });
  });
});

describe('token purchase: exact at every size', () => {
  /** A client of a new integrator selling GEM at `rate` per USD (alone, so no other test's money shares its accounts). */
  const gemClient = async (rate: number) => {
    const name = unique('tokexact-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: rate });
    return newClient({ integrator: name });
  };
  const invoicesOf = async (accountId: string) =>
    Number(
      (await h().orm.em.fork().execute<Array<{ n: string }>>('select count(*) as n from invoice where account_id = ?', [accountId]))[0].n,
    );

  it('refuses 9007199254740033 cents at 3 GEM per USD (270215977642200.99 tokens: 400 amount NOT_EXACT), writing nothing', async () => {
    const client = await gemClient(3);
    const buyer = await register(client);
    const card = await addCard(client, buyer.account_id);
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: { payment_method_id: card, amount: 9_007_199_254_740_033, currency: 'USD' },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { amount: ['NOT_EXACT'] });
    assert.match(res.body.message[0], /3 GEM per USD 1\.00/);
    assert.equal(await invoicesOf(buyer.account_id), 0);
  });

  it('sells 9007199254740990 GEM at 100 per USD for exactly 9007199254740990 cents, and issues exactly that many', async () => {
    const client = await gemClient(100);
    const buyer = await register(client);
    const card = await addCard(client, buyer.account_id);
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: { payment_method_id: card, amount: 9_007_199_254_740_990, currency: 'GEM' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.payload.state, 'SUCCESS');
    assert.deepEqual(res.body.payload.summary, {
      total_amount: 9_007_199_254_740_990,
      currency: 'USD',
      display_amount: 'USD 90071992547409.90',
    });
    const standard = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload.find(
      (m: any) => m.processing_currency === 'GEM' && m.provider_data.wallet_type === 'standard',
    );
    assert.equal(standard.wallet_balance, '9007199254740990');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});
