import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { systemAccount } from '../../src/ledger/ledger.service.js';
import { addCard, call, h, newClient, register, unique, type TestClient } from '../support/harness.js';

interface Party {
  account_id: string;
  usd_pm: string;
  usd_wallet: string;
  card_pm?: string;
}

async function party(client: TestClient, withCard = false): Promise<Party> {
  const account = await register(client);
  if (withCard) await addCard(client, account.account_id);
  const methods = (await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token })).body.payload;
  const wallet = methods.find((m: any) => m.provider === 'wallet' && m.processing_currency === 'USD');
  return {
    account_id: account.account_id,
    usd_pm: wallet.id,
    usd_wallet: wallet.provider_data.wallet_id,
    card_pm: methods.find((m: any) => m.provider === 'card')?.id,
  };
}

describe('POST /v2/escrow', () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;
  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    seller = await party(client);
  });

  const body = (over: Record<string, unknown> = {}) => ({
    account_id: buyer.account_id,
    reference_type: 'order',
    reference_id: unique('o'),
    description: 'A sword',
    payment_methods: [{ payment_method_id: buyer.card_pm, amount: 0 }],
    line_items: [
      {
        amount: 1550,
        currency: 'USD',
        transaction_type: 'user_to_user',
        product_sku: 'sword-1',
        description: 'Sword',
        recipients: [{ amount: 1200, currency: 'USD', destination_wallet_id: seller.usd_wallet }],
      },
    ],
    ...over,
  });

  it('creates an OPEN escrow with its escrow invoice (201, no integrator in the create response)', async () => {
    const res = await call('POST', '/v2/escrow', { token: client.token, body: body({ metadata: { order: 42 } }) });
    assert.equal(res.status, 201, res.text);
    const e = res.body.payload;
    assert.match(e.id, /^esc_/);
    assert.equal(e.status, 'OPEN');
    assert.equal(e.account_id, buyer.account_id);
    assert.match(e.escrow_invoice_id, /^inv_/);
    assert.equal(e.commit_invoice_id, '');
    assert.equal(e.cancel_invoice_id, '');
    assert.equal(e.integrator, undefined);
    assert.deepEqual(e.metadata, { order: 42 });
    const got = await call('GET', `/v2/escrow/${e.id}`, { token: client.token });
    assert.equal(got.body.payload.integrator, client.integrator);
    assert.equal(got.body.payload.status, 'OPEN');
  });

  it('writes the escrow invoice in the documented invoice shape, with display amounts', async () => {
    const res = await call('POST', '/v2/escrow', { token: client.token, body: body() });
    const inv = (await call('GET', `/v2/invoice/${res.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(inv.invoice_type, 'user_purchase_escrow');
    assert.equal(inv.state, 'OPEN');
    assert.deepEqual(inv.summary, { total_amount: 1550, currency: 'USD', display_amount: 'USD 15.50' });
    assert.deepEqual(inv.payment_methods[buyer.card_pm!], {
      payment_method_id: buyer.card_pm,
      authorized_amount: 1550,
      currency: 'USD',
      display_amount: 'USD 15.50',
      subitems: [],
    });
    const [line] = Object.values(inv.line_items) as any[];
    assert.equal(line.product_sku, 'sword-1');
    assert.deepEqual(line.subitems, [
      { amount: 1200, currency: 'USD', display_amount: 'USD 12.00', source_wallet_id: '', destination_wallet_id: seller.usd_wallet },
    ]);
    assert.equal(inv.failure_reason, '');
  });

  it('resolves the remainder: a fixed wallet share and a card taking the rest', async () => {
    const res = await call('POST', '/v2/escrow', {
      token: client.token,
      body: body({
        payment_methods: [
          { payment_method_id: buyer.usd_pm, amount: 500 },
          { payment_method_id: buyer.card_pm, amount: 0 },
        ],
      }),
    });
    assert.equal(res.status, 201, res.text);
    const inv = (await call('GET', `/v2/invoice/${res.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(inv.payment_methods[buyer.usd_pm].authorized_amount, 500);
    assert.equal(inv.payment_methods[buyer.card_pm!].authorized_amount, 1050);
  });

  it('uses the _virtual invoice type for a token currency', async () => {
    const name = unique('esc-tok-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 });
    const tc = await newClient({ integrator: name });
    const b = await register(tc);
    const s = await register(tc);
    const bm = (await call('GET', `/v1/${b.account_id}/payment_methods`, { token: tc.token })).body.payload;
    const sm = (await call('GET', `/v1/${s.account_id}/payment_methods`, { token: tc.token })).body.payload;
    const bw = bm.find((m: any) => m.processing_currency === 'VCD' && m.provider_data.wallet_type === 'convertible');
    const sw = sm.find((m: any) => m.processing_currency === 'VCD' && m.provider_data.wallet_type === 'standard');
    const res = await call('POST', '/v2/escrow', {
      token: tc.token,
      body: {
        account_id: b.account_id,
        payment_methods: [{ payment_method_id: bw.id, amount: 0 }],
        line_items: [
          {
            amount: 300,
            currency: 'VCD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 300, currency: 'VCD', destination_wallet_id: sw.provider_data.wallet_id }],
          },
        ],
      },
    });
    assert.equal(res.status, 201, res.text);
    const inv = (await call('GET', `/v2/invoice/${res.body.payload.escrow_invoice_id}`, { token: tc.token })).body.payload;
    assert.equal(inv.invoice_type, 'user_purchase_escrow_virtual');
    assert.equal(inv.summary.display_amount, 'VCD 300');
  });

  describe('money rules and references: 400 INPUT_ERROR naming the field, nothing written', () => {
    const line = (amount: number, extra: Record<string, unknown> = {}) => ({
      amount,
      currency: 'USD',
      transaction_type: 'user_to_integrator',
      ...extra,
    });
    const cases: Array<[string, () => Record<string, unknown>, string, string]> = [
      ['no line items', () => body({ line_items: [] }), 'line_items', 'TOO_SHORT'],
      ['a zero line amount', () => body({ line_items: [line(0)] }), 'line_items.0.amount', 'TOO_SMALL'],
      ['a fractional amount', () => body({ line_items: [line(10.5)] }), 'line_items.0.amount', 'INVALID_TYPE'],
      ['an amount beyond 2^53-1', () => body({ line_items: [line(2 ** 53)] }), 'line_items.0.amount', 'TOO_LARGE'],
      ['a total beyond 2^53-1', () => body({ line_items: [line(2 ** 53 - 1), line(1)] }), 'line_items', 'TOTAL_TOO_LARGE'],
      [
        'two currencies',
        () => body({ line_items: [line(100), { ...line(100), currency: 'EUR' }] }),
        'line_items.1.currency',
        'CURRENCY_MISMATCH',
      ],
      [
        'an unsupported currency',
        () => body({ line_items: [{ ...line(100), currency: 'EUR' }], payment_methods: [{ payment_method_id: buyer.card_pm, amount: 0 }] }),
        'line_items.0.currency',
        'UNSUPPORTED_CURRENCY',
      ],
      [
        'recipients above the line',
        () =>
          body({
            line_items: [
              line(100, {
                recipients: [
                  { amount: 60, currency: 'USD', destination_wallet_id: seller.usd_wallet },
                  { amount: 41, currency: 'USD', destination_wallet_id: seller.usd_wallet },
                ],
              }),
            ],
          }),
        'line_items.0.recipients',
        'EXCEEDS_LINE_AMOUNT',
      ],
      [
        'a recipient in another currency',
        () =>
          body({ line_items: [line(100, { recipients: [{ amount: 60, currency: 'EUR', destination_wallet_id: seller.usd_wallet }] })] }),
        'line_items.0.recipients.0.currency',
        'CURRENCY_MISMATCH',
      ],
      [
        'an unknown destination wallet',
        () => body({ line_items: [line(100, { recipients: [{ amount: 60, currency: 'USD', destination_wallet_id: 'wal_nope' }] })] }),
        'line_items.0.recipients.0.destination_wallet_id',
        'NOT_FOUND',
      ],
      [
        'an unknown source wallet',
        () =>
          body({
            line_items: [
              line(100, {
                recipients: [{ amount: 60, currency: 'USD', source_wallet_id: 'wal_nope', destination_wallet_id: seller.usd_wallet }],
              }),
            ],
          }),
        'line_items.0.recipients.0.source_wallet_id',
        'NOT_FOUND',
      ],
      [
        "a source wallet that is the recipient's own destination",
        () =>
          body({
            line_items: [
              line(100, {
                recipients: [
                  { amount: 60, currency: 'USD', source_wallet_id: seller.usd_wallet, destination_wallet_id: seller.usd_wallet },
                ],
              }),
            ],
          }),
        'line_items.0.recipients.0.source_wallet_id',
        'SAME_AS_DESTINATION',
      ],
      [
        'a source wallet the buyer pays with',
        () =>
          body({
            payment_methods: [{ payment_method_id: buyer.usd_pm, amount: 0 }],
            line_items: [
              line(100, {
                recipients: [{ amount: 60, currency: 'USD', source_wallet_id: buyer.usd_wallet, destination_wallet_id: seller.usd_wallet }],
              }),
            ],
          }),
        'line_items.0.recipients.0.source_wallet_id',
        'BUYER_WALLET',
      ],
      ['no payment methods', () => body({ payment_methods: [] }), 'payment_methods', 'TOO_SHORT'],
      [
        'one method not covering the total',
        () => body({ payment_methods: [{ payment_method_id: buyer.card_pm, amount: 100 }] }),
        'payment_methods.0.amount',
        'MUST_COVER_TOTAL',
      ],
      [
        'two methods with no remainder taker',
        () =>
          body({
            payment_methods: [
              { payment_method_id: buyer.card_pm, amount: 1000 },
              { payment_method_id: buyer.usd_pm, amount: 550 },
            ],
          }),
        'payment_methods',
        'EXACTLY_ONE_REMAINDER',
      ],
      [
        'two remainder takers',
        () =>
          body({
            payment_methods: [
              { payment_method_id: buyer.card_pm, amount: 0 },
              { payment_method_id: buyer.usd_pm, amount: 0 },
            ],
          }),
        'payment_methods',
        'EXACTLY_ONE_REMAINDER',
      ],
      [
        'fixed shares leaving no remainder',
        () =>
          body({
            payment_methods: [
              { payment_method_id: buyer.card_pm, amount: 0 },
              { payment_method_id: buyer.usd_pm, amount: 1550 },
            ],
          }),
        'payment_methods',
        'EXCEEDS_TOTAL',
      ],
      [
        'the same method twice',
        () =>
          body({
            payment_methods: [
              { payment_method_id: buyer.card_pm, amount: 0 },
              { payment_method_id: buyer.card_pm, amount: 5 },
            ],
          }),
        'payment_methods.1.payment_method_id',
        'DUPLICATE',
      ],
      [
        "another account's payment method",
        () => body({ payment_methods: [{ payment_method_id: seller.usd_pm, amount: 0 }] }),
        'payment_methods.0.payment_method_id',
        'NOT_FOUND',
      ],
      [
        'a negative payment amount',
        () => body({ payment_methods: [{ payment_method_id: buyer.card_pm, amount: -1 }] }),
        'payment_methods.0.amount',
        'TOO_SMALL',
      ],
      ['oversized metadata', () => body({ metadata: { blob: 'x'.repeat(9000) } }), 'metadata', 'TOO_LARGE'],
      ['an unknown field', () => body({ tip: 5 }), 'tip', 'UNKNOWN_FIELD'],
      [
        'a bad transaction type',
        () => body({ line_items: [line(100, { transaction_type: 'gift' })] }),
        'line_items.0.transaction_type',
        'INVALID_VALUE',
      ],
    ];
    for (const [what, make, field, code] of cases) {
      it(`${what} → ${field}: ${code}`, async () => {
        const count = async () => Number((await h().orm.em.fork().execute<Array<{ n: string }>>('select count(*) as n from escrow'))[0].n);
        const before = await count();
        const res = await call('POST', '/v2/escrow', { token: client.token, body: make() });
        assert.equal(res.status, 400, res.text);
        assert.ok(
          res.body.payload.errors[field]?.includes(code),
          `expected ${field}: ${code} in ${JSON.stringify(res.body.payload.errors)}`,
        );
        assert.equal(await count(), before);
      });
    }

    it('refuses a wallet in another currency than the escrow (INCOMPATIBLE_CURRENCY)', async () => {
      const name = unique('esc-cur-');
      await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 });
      const tc = await newClient({ integrator: name });
      const b = await register(tc);
      const usd = (await call('GET', `/v1/${b.account_id}/payment_methods`, { token: tc.token })).body.payload.find(
        (m: any) => m.processing_currency === 'USD',
      );
      const res = await call('POST', '/v2/escrow', {
        token: tc.token,
        body: {
          account_id: b.account_id,
          payment_methods: [{ payment_method_id: usd.id, amount: 0 }],
          line_items: [{ amount: 10, currency: 'VCD', transaction_type: 'user_to_integrator' }],
        },
      });
      assert.deepEqual(res.body.payload.errors, { 'payment_methods.0.payment_method_id': ['INCOMPATIBLE_CURRENCY'] });
    });

    it("refuses the integrator's own wallet as a destination (destinations are sellers' wallets)", async () => {
      const [{ id: integratorId }] = await h()
        .orm.em.fork()
        .execute<Array<{ id: string }>>('select id from integrator where name = ?', [client.integrator]);
      const publisherWallet = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
      const res = await call('POST', '/v2/escrow', {
        token: client.token,
        body: body({ line_items: [line(100, { recipients: [{ amount: 10, currency: 'USD', destination_wallet_id: publisherWallet }] })] }),
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { 'line_items.0.recipients.0.destination_wallet_id': ['NOT_FOUND'] });
      // The same wallet is a valid source: the line's amount lands there.
      const ok = await call('POST', '/v2/escrow', {
        token: client.token,
        body: body({
          line_items: [
            line(100, {
              recipients: [{ amount: 10, currency: 'USD', source_wallet_id: publisherWallet, destination_wallet_id: seller.usd_wallet }],
            }),
          ],
        }),
      });
      assert.equal(ok.status, 201, ok.text);
    });

    it('refuses a destination wallet of another integrator as unknown', async () => {
      const other = await newClient();
      const stranger = await party(other);
      const res = await call('POST', '/v2/escrow', {
        token: client.token,
        body: body({
          line_items: [line(100, { recipients: [{ amount: 10, currency: 'USD', destination_wallet_id: stranger.usd_wallet }] })],
        }),
      });
      assert.deepEqual(res.body.payload.errors, { 'line_items.0.recipients.0.destination_wallet_id': ['NOT_FOUND'] });
    });
  });
});
