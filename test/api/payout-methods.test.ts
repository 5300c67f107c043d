import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { db } from '../../src/db/sql.js';
import { fiatWalletOf, payoutDestination } from '../../src/payment-methods/payment-method.repository.js';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

const paypal = (email: string) => ({ type: 'paypal', paypal: { email } });

const addPaypal = (token: string, accountId: string, email: string) =>
  call('POST', `/v1/${accountId}/payment_methods`, { token, body: paypal(email) });

const methodsOf = async (token: string, accountId: string) =>
  (await call('GET', `/v1/${accountId}/payment_methods`, { token })).body.payload as Array<Record<string, any>>;

/** The stored rows of an account's PayPal methods. */
const paypalRows = (accountId: string) =>
  h()
    .orm.em.fork()
    .execute<Array<{ id: string; provider: string; processing_currency: string; details: Record<string, unknown> }>>(
      `select id, provider, processing_currency, details from payment_method where account_id = ? and provider = 'paypal' order by created_at`,
      [accountId],
    );

const countRows = async (table: string, accountId: string) =>
  Number(
    (await h().orm.em.fork().execute<Array<{ n: string }>>(`select count(*) as n from ${table} where account_id = ?`, [accountId]))[0].n,
  );

/** A user password token for the account, opened by the client. */
async function userToken(client: TestClient, accountId: string): Promise<string> {
  const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.token.access_token;
}

describe('PayPal payout methods (POST /v1/{account_id}/payment_methods, type paypal)', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it('adds a PayPal method (201): USD, its address lower-cased, listed like the others', async () => {
    const account = await register(client);
    const res = await addPaypal(client.token, account.account_id, 'Player.One@Example.COM');
    assert.equal(res.status, 201, res.text);
    const pm = res.body.payload;
    assert.match(pm.id, /^pm_/);
    assert.equal(pm.payment_method_id, pm.id);
    assert.equal(pm.account_id, account.account_id);
    assert.equal(pm.provider, 'paypal');
    assert.equal(pm.method_class, 'paypal');
    assert.equal(pm.processing_currency, 'USD');
    assert.equal(pm.pm_state, 'active');
    assert.equal(pm.integrator, client.integrator);
    assert.equal(pm.display_string, 'PayPal player.one@example.com');
    assert.deepEqual(pm.provider_data, { email: 'player.one@example.com' });
    assert.match(pm.psp_hash_code, /^[0-9a-f]{32}$/);
    assert.equal(pm.wallet_balance, undefined);
    const [row] = await paypalRows(account.account_id);
    assert.deepEqual(row.details, { email: 'player.one@example.com', sandbox_outcome: 'succeeds' });
    const list = await methodsOf(client.token, account.account_id);
    assert.deepEqual(
      list.map((m) => m.provider),
      ['wallet', 'paypal'],
    );
    assert.deepEqual(list[1], pm);
  });

  it('marks the documented sandbox address (in any case) as one whose payouts fail', async () => {
    const account = await register(client);
    const res = await addPaypal(client.token, account.account_id, 'Payout-Fails@Example.com');
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.payload.provider_data, { email: 'payout-fails@example.com' });
    const [row] = await paypalRows(account.account_id);
    assert.deepEqual(row.details, { email: 'payout-fails@example.com', sandbox_outcome: 'payout_fails' });
  });

  it('answers the method the account already has for the same address, also when added at once', async () => {
    const account = await register(client);
    const first = await addPaypal(client.token, account.account_id, 'twice@example.com');
    assert.equal(first.status, 201, first.text);
    const again = await addPaypal(client.token, account.account_id, 'TWICE@example.com');
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(again.body.payload, first.body.payload);
    const racing = await Promise.all(Array.from({ length: 6 }, () => addPaypal(client.token, account.account_id, 'racing@example.com')));
    assert.deepEqual(
      racing.map((r) => r.status),
      [201, 201, 201, 201, 201, 201],
    );
    assert.equal(new Set(racing.map((r) => r.body.payload.id)).size, 1);
    assert.equal((await paypalRows(account.account_id)).length, 2);
    // Another account of the integrator gets its own method for the same address.
    const other = await register(client);
    const theirs = await addPaypal(client.token, other.account_id, 'twice@example.com');
    assert.equal(theirs.status, 201);
    assert.notEqual(theirs.body.payload.id, first.body.payload.id);
    assert.equal(theirs.body.payload.psp_hash_code, first.body.payload.psp_hash_code);
  });

  const longEmail = `${'a'.repeat(60)}@${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.example.com`;
  const refused: Array<[string, unknown, Record<string, string[]>]> = [
    ['an address without @', paypal('not-an-email'), { 'paypal.email': ['INVALID_FORMAT'] }],
    ['an address with a space', paypal('a b@example.com'), { 'paypal.email': ['INVALID_FORMAT'] }],
    ['an empty address', paypal(''), { 'paypal.email': ['INVALID_FORMAT'] }],
    ['an address of 255 characters', paypal(longEmail), { 'paypal.email': ['TOO_LONG'] }],
    ['a number for an address', { type: 'paypal', paypal: { email: 42 } }, { 'paypal.email': ['INVALID_TYPE'] }],
    ['a missing address', { type: 'paypal', paypal: {} }, { 'paypal.email': ['REQUIRED'] }],
    ['a missing paypal object', { type: 'paypal' }, { paypal: ['REQUIRED'] }],
    ['card fields on a paypal body', { ...paypal('x@example.com'), card: { number: '4242424242424242' } }, { card: ['UNKNOWN_FIELD'] }],
    ['an unknown field in paypal', { type: 'paypal', paypal: { email: 'x@example.com', name: 'x' } }, { 'paypal.name': ['UNKNOWN_FIELD'] }],
    ['a missing type', { paypal: { email: 'x@example.com' } }, { type: ['REQUIRED'] }],
  ];
  for (const [what, body, errors] of refused) {
    it(`refuses ${what} (400 naming ${Object.keys(errors)[0]}) and adds nothing`, async () => {
      const account = await register(client);
      const res = await call('POST', `/v1/${account.account_id}/payment_methods`, { token: client.token, body });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, errors);
      assert.equal((await methodsOf(client.token, account.account_id)).length, 1);
    });
  }

  it('names both types when the type is another one', async () => {
    const account = await register(client);
    const res = await call('POST', `/v1/${account.account_id}/payment_methods`, {
      token: client.token,
      body: { type: 'bank', paypal: { email: 'x@example.com' } },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { type: ['INVALID_VALUE'] });
    assert.match(res.body.message.join(' '), /type must be one of: card, paypal\./);
  });

  it("answers 404 for another integrator's account and adds nothing there", async () => {
    const account = await register(client);
    const stranger = await newClient();
    const res = await addPaypal(stranger.token, account.account_id, 'intruder@example.com');
    assert.equal(res.status, 404, res.text);
    assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
    assert.equal((await paypalRows(account.account_id)).length, 0);
  });

  it("lets a user password token add its own account's method (write_payment_methods), not another's", async () => {
    const account = await register(client);
    const other = await register(client);
    const token = await userToken(client, account.account_id);
    const res = await addPaypal(token, account.account_id, 'me@example.com');
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.payload.provider, 'paypal');
    assert.equal((await methodsOf(token, account.account_id)).at(-1)!.id, res.body.payload.id);
    const elsewhere = await addPaypal(token, other.account_id, 'me@example.com');
    assert.equal(elsewhere.status, 404, elsewhere.text);
    assert.equal((await paypalRows(other.account_id)).length, 0);

    // A session opened by a client without write_payment_methods cannot add one.
    const narrow = await newClient({ integrator: client.integrator, scopes: ['read_payment_methods', 'write_user_tokens'] });
    const narrowToken = await userToken(narrow, other.account_id);
    const refused = await addPaypal(narrowToken, other.account_id, 'me@example.com');
    assert.equal(refused.status, 401, refused.text);
    assert.deepEqual(refused.body.codes, ['INSUFFICIENT_SCOPE']);
    assert.equal((await paypalRows(other.account_id)).length, 0);
  });

  it('gives the payouts module its destination and the USD wallet it pays from, for the account only', async () => {
    const owner = await party(client, true);
    const other = await party(client);
    const dest = (await addPaypal(client.token, owner.account_id, 'dest@example.com')).body.payload.id;
    const failing = (await addPaypal(client.token, owner.account_id, 'payout-fails@example.com')).body.payload.id;
    const pool = db(h().orm.em);
    assert.deepEqual(await payoutDestination(pool, owner.account_id, dest), {
      id: dest,
      email: 'dest@example.com',
      sandboxOutcome: 'succeeds',
    });
    assert.deepEqual(await payoutDestination(pool, owner.account_id, failing), {
      id: failing,
      email: 'payout-fails@example.com',
      sandboxOutcome: 'payout_fails',
    });
    assert.equal(await payoutDestination(pool, other.account_id, dest), undefined, "another account's");
    assert.equal(await payoutDestination(pool, owner.account_id, owner.card!), undefined, 'a card');
    assert.equal(await payoutDestination(pool, owner.account_id, owner.wallets['USD:fiat'].pm), undefined, 'a wallet');
    assert.equal(await payoutDestination(pool, owner.account_id, 'pm_unknown'), undefined);

    const usd = owner.wallets['USD:fiat'];
    assert.deepEqual(await fiatWalletOf(pool, owner.account_id, usd.pm), { id: usd.pm, ledgerAccountId: usd.wallet });
    assert.equal(await fiatWalletOf(pool, other.account_id, usd.pm), undefined, "another account's");
    assert.equal(await fiatWalletOf(pool, owner.account_id, dest), undefined, 'a PayPal method');
    assert.equal(await fiatWalletOf(pool, owner.account_id, owner.card!), undefined, 'a card');
  });

  it('gives no fiat wallet for a token wallet', async () => {
    const name = unique('ppgem-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    const tokenClient = await newClient({ integrator: name });
    const owner = await party(tokenClient);
    const pool = db(h().orm.em);
    assert.equal(await fiatWalletOf(pool, owner.account_id, owner.wallets['GEM:standard'].pm), undefined);
    assert.equal(await fiatWalletOf(pool, owner.account_id, owner.wallets['GEM:convertible'].pm), undefined);
    assert.ok(await fiatWalletOf(pool, owner.account_id, owner.wallets['USD:fiat'].pm));
  });
});

describe('a PayPal method never pays a purchase (400 PAYOUT_ONLY, nothing written)', () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;
  let paypalPm: string;
  const line = (amount: number) => ({
    amount,
    currency: 'USD',
    transaction_type: 'user_to_user',
    product_sku: 'sword',
    recipients: [{ amount: amount - 100, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
  });
  before(async () => {
    const name = unique('pppay-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    client = await newClient({ integrator: name });
    buyer = await party(client, true);
    seller = await party(client);
    await fund(buyer, 'USD:fiat', 5000);
    paypalPm = (await addPaypal(client.token, buyer.account_id, 'buyer@example.com')).body.payload.id;
  });

  /** The buyer's and seller's balances, and the buyer's escrows and invoices: nothing of them may change. */
  const state = async () => ({
    buyer: await balance(buyer.wallets['USD:fiat'].wallet),
    seller: await balance(seller.wallets['USD:fiat'].wallet),
    escrows: await countRows('escrow', buyer.account_id),
    invoices: await countRows('invoice', buyer.account_id),
  });

  const assertPayoutOnly = (res: { status: number; text: string; body: any }, field: string) => {
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { [field]: ['PAYOUT_ONLY'] });
  };

  it('POST /v2/escrow: alone or beside a card', async () => {
    const before = await state();
    assertPayoutOnly(
      await call('POST', '/v2/escrow', {
        token: client.token,
        body: { account_id: buyer.account_id, payment_methods: [{ payment_method_id: paypalPm }], line_items: [line(1000)] },
      }),
      'payment_methods.0.payment_method_id',
    );
    assertPayoutOnly(
      await call('POST', '/v2/escrow', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          payment_methods: [
            { payment_method_id: buyer.card, amount: 400 },
            { payment_method_id: paypalPm, amount: 0 },
          ],
          line_items: [line(1000)],
        },
      }),
      'payment_methods.1.payment_method_id',
    );
    assert.deepEqual(await state(), before);
  });

  it('POST /v2/invoice', async () => {
    const before = await state();
    assertPayoutOnly(
      await call('POST', '/v2/invoice', {
        token: client.token,
        body: { account_id: buyer.account_id, payment_methods: [{ payment_method_id: paypalPm, amount: 0 }], line_items: [line(1000)] },
      }),
      'payment_methods.0.payment_method_id',
    );
    assert.deepEqual(await state(), before);
  });

  it('POST /v2/invoice/{id}/pay of an authorized invoice and of an authorized escrow: the methods stay unchosen', async () => {
    for (const isEscrow of [false, true]) {
      const auth = await call('POST', '/v2/authorize/invoice', {
        token: client.token,
        body: { account_id: buyer.account_id, invoice_mechanism: 'api', is_escrow: isEscrow, line_items: [line(1000)] },
      });
      assert.equal(auth.status, 200, auth.text);
      const { authorized_invoice_id: invoiceId, password_token: token } = auth.body.payload;
      const before = await state();
      for (const bearer of [token.access_token, client.token]) {
        assertPayoutOnly(
          await call('POST', `/v2/invoice/${invoiceId}/pay`, {
            token: bearer,
            body: { payment_methods: [{ payment_method_id: paypalPm }] },
          }),
          'payment_methods.0.payment_method_id',
        );
      }
      assert.deepEqual(await state(), before);
      const invoice = (await call('GET', `/v2/invoice/${invoiceId}`, { token: client.token })).body.payload;
      assert.equal(invoice.state, 'OPEN');
      assert.deepEqual(invoice.payment_methods, {});
      // The card it may pay with still pays it: the refusal fixed nothing.
      const paid = await call('POST', `/v2/invoice/${invoiceId}/pay`, {
        token: token.access_token,
        body: { payment_methods: [{ payment_method_id: buyer.card }] },
      });
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.payload.state, 'SUCCESS');
    }
  });

  it('POST /v2/token/purchase names payment_method_id', async () => {
    const before = await state();
    const gemsBefore = await balance(buyer.wallets['GEM:standard'].wallet);
    assertPayoutOnly(
      await call('POST', '/v2/token/purchase', {
        token: client.token,
        body: { payment_method_id: paypalPm, amount: 100, currency: 'GEM' },
      }),
      'payment_method_id',
    );
    assert.deepEqual(await state(), before);
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), gemsBefore);
  });
});
