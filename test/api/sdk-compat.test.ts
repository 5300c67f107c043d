/**
 * The request shapes of the reference service's Node SDK, replayed as it sends them: each is
 * answered as that SDK expects.
 */
import assert from 'node:assert/strict';
import { createClient } from '../../src/auth/auth.service.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { PLATFORMS } from '../../src/accounts/account.rules.js';
import { call, h, newClient, register, startExtraApp, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** The token request of the SDK, byte for byte: everything in the query, a stray JSON body. */
const SDK_TOKEN_BODY = '{"headers":{"Content-Type":"application/json"}}';
const sdkToken = (query: string, baseUrl?: string) =>
  call('POST', `/token?${query}`, { rawBody: SDK_TOKEN_BODY, headers: { 'content-type': 'application/json' }, baseUrl });

describe('reference SDK: POST /token with the parameters in the query and a stray JSON body', () => {
  let creds: { client_id: string; client_secret: string };
  before(async () => {
    const created = await createClient(h().orm.em.fork(), {
      integrator: unique('sdk-'),
      scopes: ['read_accounts', 'search_accounts', 'write_registrations'],
    });
    creds = { client_id: created.client_id, client_secret: created.client_secret };
  });

  it('issues a token narrowed to the comma-joined scopes, and the token works', async () => {
    const res = await sdkToken(
      `client_id=${creds.client_id}&client_secret=${creds.client_secret}&grant_type=client_credentials&scope=read_accounts,search_accounts`,
    );
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.scope, 'read_accounts search_accounts');
    const found = await call('GET', `/v1/user-info/search?username=${unique('nobody')}`, { token: res.body.access_token });
    assert.equal(found.status, 404, found.text);
  });

  it('ignores unknown query parameters too, and still checks the known ones', async () => {
    const extra = await sdkToken(
      `client_id=${creds.client_id}&client_secret=${creds.client_secret}&grant_type=client_credentials&audience=x&sdk_version=1.2`,
    );
    assert.equal(extra.status, 200, extra.text);
    const badScope = await sdkToken(
      `client_id=${creds.client_id}&client_secret=${creds.client_secret}&grant_type=client_credentials&scope=${'s'.repeat(1025)}`,
    );
    assert.equal(badScope.status, 400);
    assert.equal(badScope.body.error, 'invalid_request');
    const badBody = await call('POST', '/token', {
      body: { grant_type: 'client_credentials', client_id: 5, client_secret: creds.client_secret, headers: {} },
    });
    assert.equal(badBody.status, 400);
    assert.equal(badBody.body.error, 'invalid_request');
    const wrong = await sdkToken(`client_id=${creds.client_id}&client_secret=hfs_wrong&grant_type=client_credentials`);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'invalid_client');
  });

  it('with TOKEN_QUERY_CREDENTIALS=false the same request is refused naming client_secret', async () => {
    const app = await startExtraApp({ tokenQueryCredentials: false });
    try {
      const res = await sdkToken(
        `client_id=${creds.client_id}&client_secret=${creds.client_secret}&grant_type=client_credentials`,
        app.baseUrl,
      );
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error, 'invalid_request');
      assert.match(res.body.error_description, /^client_secret must not be sent in the query string/);
    } finally {
      await app.close();
    }
  });
});

describe('reference SDK: GET /{account_id}/payment_methods (no /v1)', () => {
  let client: TestClient;
  let accountId: string;
  before(async () => {
    client = await newClient();
    accountId = (await register(client)).account_id;
  });

  it('answers what GET /v1/{account_id}/payment_methods answers', async () => {
    const alias = await call('GET', `/${accountId}/payment_methods`, { token: client.token });
    assert.equal(alias.status, 200, alias.text);
    const v1 = await call('GET', `/v1/${accountId}/payment_methods`, { token: client.token });
    assert.deepEqual(alias.body, v1.body);
    assert.ok(alias.body.payload.some((m: any) => m.provider === 'wallet'));
  });

  it("keeps scopes and tenancy: another integrator's account is 404, a token without read_payment_methods 401", async () => {
    const other = await newClient();
    const theirs = await call('GET', `/${accountId}/payment_methods`, { token: other.token });
    assert.equal(theirs.status, 404, theirs.text);
    assert.deepEqual(theirs.body.codes, ['ACCOUNT_GET_ERROR']);
    const narrow = await newClient({ integrator: client.integrator, scopes: ['read_accounts'] });
    const noScope = await call('GET', `/${accountId}/payment_methods`, { token: narrow.token });
    assert.equal(noScope.status, 401, noScope.text);
    const noToken = await call('GET', `/${accountId}/payment_methods`);
    assert.equal(noToken.status, 401);
  });

  it("takes the account's own user password token, and answers 404 for any other account", async () => {
    const user = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
    const userToken = user.body.payload.token.access_token as string;
    const own = await call('GET', `/${accountId}/payment_methods`, { token: userToken });
    assert.equal(own.status, 200, own.text);
    const someoneElse = (await register(client)).account_id;
    const other = await call('GET', `/${someoneElse}/payment_methods`, { token: userToken });
    assert.equal(other.status, 404, other.text);
  });
});

describe('reference SDK: registration and update in the older shape', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });
  const name = () => unique('old');

  it('takes platform ids as top-level keys and country for country_iso', async () => {
    const steam = unique('st');
    const oculus = unique('oc');
    const res = await call('POST', '/register', {
      token: client.token,
      body: {
        username: name(),
        steam: { user_id: steam },
        oculus: { user_id: oculus },
        full_name: 'Ada Old',
        city: 'Leeds',
        state_province: 'West Yorkshire',
        country: 'GB',
      },
    });
    assert.equal(res.status, 200, res.text);
    const p = res.body.payload;
    assert.deepEqual(p.external_platforms, { oculus: { user_id: oculus }, steam: { user_id: steam } });
    assert.equal(p.country_iso, 'GB');
    assert.equal(p.country, undefined);
    assert.equal(p.steam, undefined);
    // Each platform id made a POBO method, as under external_platforms.
    const methods = (await call('GET', `/v1/${p.account_id}/payment_methods`, { token: client.token })).body.payload;
    assert.deepEqual(
      methods
        .filter((m: any) => m.provider === 'pobo')
        .map((m: any) => m.provider_data.platform)
        .sort(),
      ['oculus', 'steam'],
    );
  });

  it('takes every key of external_platforms at the top level, alone or beside external_platforms', async () => {
    for (const platform of PLATFORMS) {
      const id = unique(platform);
      const res = await call('POST', '/register', { token: client.token, body: { username: name(), [platform]: { user_id: id } } });
      assert.equal(res.status, 200, `${platform}: ${res.text}`);
      assert.deepEqual(res.body.payload.external_platforms, { [platform]: { user_id: id } });
    }
    const mixed = await call('POST', '/register', {
      token: client.token,
      body: { username: name(), sony: { user_id: unique('ps') }, external_platforms: { apple: { user_id: unique('ap') } } },
    });
    assert.equal(mixed.status, 200, mixed.text);
    assert.deepEqual(Object.keys(mixed.body.payload.external_platforms).sort(), ['apple', 'sony']);
  });

  it('refuses a field sent in both forms with 400 naming it', async () => {
    const country = await call('POST', '/register', {
      token: client.token,
      body: { username: name(), email: { address: `${name()}@example.com` }, state_province: 'X', country: 'GB', country_iso: 'GB' },
    });
    assert.equal(country.status, 400, country.text);
    assert.deepEqual(country.body.payload.errors, { country_iso: ['ALIAS_CONFLICT'] });
    const steam = await call('POST', '/register', {
      token: client.token,
      body: { username: name(), steam: { user_id: 'a' }, external_platforms: { steam: { user_id: 'a' } } },
    });
    assert.equal(steam.status, 400, steam.text);
    assert.deepEqual(steam.body.payload.errors, { 'external_platforms.steam': ['ALIAS_CONFLICT'] });
    // Authentication still comes first.
    const anonymous = await call('POST', '/register', { body: { username: name(), country: 'GB', country_iso: 'GB' } });
    assert.equal(anonymous.status, 401);
  });

  it("checks the spec's rules on the aliases: a bad platform id or country names the spec's field", async () => {
    const empty = await call('POST', '/register', { token: client.token, body: { username: name(), steam: { user_id: '' } } });
    assert.equal(empty.status, 400, empty.text);
    assert.deepEqual(Object.keys(empty.body.payload.errors), ['external_platforms.steam.user_id']);
    const lone = await call('POST', '/register', {
      token: client.token,
      body: { username: name(), email: { address: `${name()}@example.com` }, country: 'GB' },
    });
    assert.equal(lone.status, 400, lone.text);
    assert.deepEqual(lone.body.payload.errors, { state_province: ['REQUIRED'] });
  });

  it('update takes the older shape too', async () => {
    const account = await register(client);
    const sony = unique('ps');
    const res = await call('PUT', `/user-info/${account.account_id}`, {
      token: client.token,
      body: { sony: { user_id: sony }, country: 'FR', state_province: 'Paris' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.payload.external_platforms, { sony: { user_id: sony } });
    assert.equal(res.body.payload.country_iso, 'FR');
    const both = await call('PUT', `/user-info/${account.account_id}`, {
      token: client.token,
      body: { country: 'FR', country_iso: 'FR', state_province: 'Paris' },
    });
    assert.equal(both.status, 400, both.text);
    assert.deepEqual(both.body.payload.errors, { country_iso: ['ALIAS_CONFLICT'] });
  });
});

const line = (amount: number, currency: string, over: Record<string, unknown> = {}) => ({
  amount,
  currency,
  transaction_type: 'user_to_integrator',
  description: 'Sword',
  ...over,
});

describe('reference SDK: purchases', () => {
  let client: TestClient;
  let buyer: Party;
  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
  });

  it('takes metadata: null as absent, for the purchase and its lines, and echoes it as absent', async () => {
    for (const path of ['/v2/escrow', '/v2/invoice']) {
      const sent = await call('POST', path, {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          metadata: null,
          payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
          line_items: [line(500, 'USD', { metadata: null })],
        },
      });
      assert.equal(sent.status, 201, `${path}: ${sent.text}`);
      const absent = await call('POST', path, {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
          line_items: [line(500, 'USD')],
        },
      });
      assert.deepEqual(sent.body.payload.metadata, absent.body.payload.metadata);
      const invoiceId = sent.body.payload.escrow_invoice_id ?? sent.body.payload.invoice_id;
      const invoice = (await call('GET', `/v2/invoice/${invoiceId}`, { token: client.token })).body.payload;
      assert.deepEqual(invoice.metadata, {});
      assert.deepEqual((Object.values(invoice.line_items)[0] as any).metadata, {});
    }
    const authorized = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', metadata: null, line_items: [line(500, 'USD', { metadata: null })] },
    });
    assert.equal(authorized.status, 200, authorized.text);
    const invoice = (await call('GET', `/v2/invoice/${authorized.body.payload.authorized_invoice_id}`, { token: client.token })).body
      .payload;
    assert.deepEqual(invoice.metadata, {});
  });

  it('takes a single payment method without amount as paying the whole (escrow and invoice), and pays it', async () => {
    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: { account_id: buyer.account_id, payment_methods: [{ payment_method_id: buyer.card }], line_items: [line(1550, 'USD')] },
    });
    assert.equal(escrow.status, 201, escrow.text);
    const escrowInvoice = (await call('GET', `/v2/invoice/${escrow.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(escrowInvoice.payment_methods[buyer.card!].authorized_amount, 1550);
    const paid = await call('POST', `/v2/escrow/${escrow.body.payload.id}/pay`, { token: client.token });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.status, 'ESCROWED');

    const invoice = await call('POST', '/v2/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, payment_methods: [{ payment_method_id: buyer.card }], line_items: [line(700, 'USD')] },
    });
    assert.equal(invoice.status, 201, invoice.text);
    assert.equal(invoice.body.payload.payment_methods[buyer.card!].authorized_amount, 700);
  });

  it('pays a standard invoice and an escrow sent the JSON body null (Content-Type application/json) as with no body', async () => {
    const asSent = { rawBody: 'null', headers: { 'content-type': 'application/json' } };
    const invoice = await call('POST', '/v2/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, payment_methods: [{ payment_method_id: buyer.card }], line_items: [line(300, 'USD')] },
    });
    assert.equal(invoice.status, 201, invoice.text);
    const paid = await call('POST', `/v2/invoice/${invoice.body.payload.invoice_id}/pay`, { token: client.token, ...asSent });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: { account_id: buyer.account_id, payment_methods: [{ payment_method_id: buyer.card }], line_items: [line(300, 'USD')] },
    });
    assert.equal(escrow.status, 201, escrow.text);
    const held = await call('POST', `/v2/escrow/${escrow.body.payload.id}/pay`, { token: client.token, ...asSent });
    assert.equal(held.status, 200, held.text);
    assert.equal(held.body.payload.status, 'ESCROWED');
  });

  it("an authorized invoice's pay takes a single payment method without amount too", async () => {
    const authorized = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', line_items: [line(900, 'USD')] },
    });
    assert.equal(authorized.status, 200, authorized.text);
    const paid = await call('POST', `/v2/invoice/${authorized.body.payload.authorized_invoice_id}/pay`, {
      token: authorized.body.payload.password_token.access_token,
      body: { payment_methods: [{ payment_method_id: buyer.card }] },
    });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    assert.equal(paid.body.payload.payment_methods[buyer.card!].authorized_amount, 900);
  });

  it('an amount-less method beside a fixed one takes the remainder; two amount-less ones break the one-remainder rule', async () => {
    await fund(buyer, 'USD:fiat', 300);
    const split = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 300 }, { payment_method_id: buyer.card }],
        line_items: [line(1000, 'USD')],
      },
    });
    assert.equal(split.status, 201, split.text);
    const inv = (await call('GET', `/v2/invoice/${split.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(inv.payment_methods[buyer.card!].authorized_amount, 700);
    const two = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm }, { payment_method_id: buyer.card }],
        line_items: [line(1000, 'USD')],
      },
    });
    assert.equal(two.status, 400, two.text);
    assert.deepEqual(two.body.payload.errors, { payment_methods: ['EXACTLY_ONE_REMAINDER'] });
  });

  it('keeps payment_methods required in USD', async () => {
    const res = await call('POST', '/v2/escrow', {
      token: client.token,
      body: { account_id: buyer.account_id, line_items: [line(500, 'USD')] },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { payment_methods: ['REQUIRED'] });
  });

  it('answers an invoice_mechanism Holdfast does not offer with 400 naming the allowed values', async () => {
    const res = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, invoice_mechanism: 'redirect', line_items: [line(500, 'USD')] },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { invoice_mechanism: ['INVALID_VALUE'] });
    assert.match(res.body.message[0], /invoice_mechanism must be one of: widget, api\./);
    // A list as long as the country codes is left to the reference.
    const country = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('c'), email: { address: `${unique('c')}@example.com` }, state_province: 'X', country_iso: 'gb' },
    });
    assert.deepEqual(country.body.payload.errors, { country_iso: ['INVALID_VALUE'] });
    assert.equal(country.body.message[0], 'The request is invalid: country_iso must be one of: the values the API reference lists.');
  });
});

describe("reference SDK: token-currency purchases without payment_methods (the buyer's token wallets pay)", () => {
  let client: TestClient;
  before(async () => {
    const name = unique('sdkgem-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    client = await newClient({ integrator: name });
  });

  it('an escrow: standard tokens first, convertible ones for the rest; the pay takes them', async () => {
    const buyer = await party(client);
    await fund(buyer, 'GEM:standard', 300);
    await fund(buyer, 'GEM:convertible', 500);
    const res = await call('POST', '/v2/escrow', {
      token: client.token,
      body: { account_id: buyer.account_id, line_items: [line(600, 'GEM')] },
    });
    assert.equal(res.status, 201, res.text);
    const invoice = (await call('GET', `/v2/invoice/${res.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(invoice.invoice_type, 'user_purchase_escrow_virtual');
    const standard = buyer.wallets['GEM:standard'];
    const convertible = buyer.wallets['GEM:convertible'];
    assert.deepEqual(
      Object.fromEntries(Object.values(invoice.payment_methods).map((m: any) => [m.payment_method_id, m.authorized_amount])),
      { [standard.pm]: 300, [convertible.pm]: 300 },
    );
    const paid = await call('POST', `/v2/escrow/${res.body.payload.id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.status, 'ESCROWED', paid.text);
    assert.equal(await balance(standard.wallet), 0);
    assert.equal(await balance(convertible.wallet), 200);
  });

  it('a standard wallet that covers the total pays alone; a standard invoice is paid the same way', async () => {
    const buyer = await party(client);
    await fund(buyer, 'GEM:standard', 1000);
    await fund(buyer, 'GEM:convertible', 1000);
    const res = await call('POST', '/v2/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, line_items: [line(400, 'GEM')] },
    });
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body.payload.payment_methods), [buyer.wallets['GEM:standard'].pm]);
    const paid = await call('POST', `/v2/invoice/${res.body.payload.invoice_id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), 600);
    assert.equal(await balance(buyer.wallets['GEM:convertible'].wallet), 1000);
  });

  it("an authorized invoice's pay that names no methods is paid by the buyer's token wallets", async () => {
    const buyer = await party(client);
    await fund(buyer, 'GEM:standard', 200);
    await fund(buyer, 'GEM:convertible', 500);
    const authorized = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', line_items: [line(250, 'GEM')] },
    });
    assert.equal(authorized.status, 200, authorized.text);
    const paid = await call('POST', `/v2/invoice/${authorized.body.payload.authorized_invoice_id}/pay`, {
      token: authorized.body.payload.password_token.access_token,
    });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), 0);
    assert.equal(await balance(buyer.wallets['GEM:convertible'].wallet), 450);
  });

  it("an authorized invoice's pay sent the JSON body null, as the SDK sends it, is paid by the token wallets as with no body", async () => {
    const buyer = await party(client);
    await fund(buyer, 'GEM:standard', 300);
    const authorized = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', line_items: [line(250, 'GEM')] },
    });
    assert.equal(authorized.status, 200, authorized.text);
    const paid = await call('POST', `/v2/invoice/${authorized.body.payload.authorized_invoice_id}/pay`, {
      token: authorized.body.payload.password_token.access_token,
      rawBody: 'null',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), 50);
  });

  it("wallets that cannot cover the total make the pay fail, charging nothing; another integrator's buyer is 404", async () => {
    const buyer = await party(client);
    await fund(buyer, 'GEM:standard', 100);
    const res = await call('POST', '/v2/escrow', {
      token: client.token,
      body: { account_id: buyer.account_id, line_items: [line(600, 'GEM')] },
    });
    assert.equal(res.status, 201, res.text);
    const paid = await call('POST', `/v2/escrow/${res.body.payload.id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.status, 'ESCROW-FAILED', paid.text);
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), 100);

    const other = await newClient();
    const stranger = await call('POST', '/v2/escrow', {
      token: other.token,
      body: { account_id: buyer.account_id, line_items: [line(600, 'GEM')] },
    });
    assert.equal(stranger.status, 404, stranger.text);
  });
});
