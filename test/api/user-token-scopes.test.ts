import assert from 'node:assert/strict';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { addCard, call, h, newClient, register, type ApiResponse, type TestClient } from '../support/harness.js';
import { fixtureFor, operations, sampleRequest, type Fixture } from '../support/operations.js';

const userOps = (await operations()).filter((op) => op.userScopes !== undefined);

/** A user password token for the account, opened by the client (`POST /authorize/user` with `return_token`). */
async function userToken(client: TestClient, accountId: string) {
  const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.token as { access_token: string; refresh_token: string };
}

function assertInsufficientScope(res: ApiResponse, scope: string, what: string) {
  assert.equal(res.status, 401, `${what}: ${res.text}`);
  assert.deepEqual(res.body.codes, ['INSUFFICIENT_SCOPE'], what);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /error="insufficient_scope"/, what);
  assert.match(challenge, new RegExp(`scope="${scope}"`), what);
}

const card = () => ({
  type: 'card',
  card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' },
});

describe('user password tokens carry the scopes of the client that opened their session', () => {
  it('every operation that accepts user tokens lists for them the scopes it asks of client tokens', () => {
    assert.deepEqual(userOps.map((op) => op.operationId).sort(), [
      'addPaymentMethod',
      'convertTokens',
      'executeTokenExchange',
      'getAccountBalances',
      'getAccountStatement',
      'getInvoice',
      'getKyc',
      'getPayout',
      'getTokenExchange',
      'getTosStatus',
      'listAccountInvoices',
      'listInvoices',
      'listPaymentMethods',
      'listPaymentMethodsAlias',
      'listPayouts',
      'payInvoice',
      'requestPayout',
      'reversePayout',
      'signTos',
      'submitKyc',
    ]);
    for (const op of userOps) {
      assert.ok(op.userScopes!.length > 0, `${op.operationId}: user_auth names no scope`);
      // Operations for the person alone (submitting personal data) take no client token at all.
      if (op.scopes !== undefined || op.operationId !== 'submitKyc')
        assert.deepEqual(op.userScopes, op.scopes, `${op.operationId}: user_auth and svc_auth scopes differ`);
    }
  });

  describe('scope matrix for user tokens', () => {
    for (const op of userOps) {
      describe(`${op.method} ${op.template} (${op.userScopes!.join(' ')})`, () => {
        let owner: TestClient;
        let fixture: Fixture;
        before(async () => {
          owner = await newClient();
          fixture = await fixtureFor(owner);
        });

        it('refuses a user token whose client holds every other scope (401 insufficient_scope)', async () => {
          const lacking = await newClient({ integrator: owner.integrator, scopes: ALL_SCOPES.filter((s) => !op.userScopes!.includes(s)) });
          const token = await userToken(lacking, fixture.account_id);
          const req = sampleRequest(op, fixture);
          const res = await call(op.method, req.path, { token: token.access_token, body: req.body });
          assertInsufficientScope(res, op.userScopes!.join(' '), op.operationId);
        });

        it("accepts a user token whose client holds only write_user_tokens and the operation's scopes", async () => {
          const only = await newClient({ integrator: owner.integrator, scopes: ['write_user_tokens', ...op.userScopes!] });
          const token = await userToken(only, fixture.account_id);
          const req = sampleRequest(op, fixture);
          const res = await call(op.method, req.path, { token: token.access_token, body: req.body });
          // A user token pays only invoices authorized for its account: the fixture's escrow invoice is not one.
          const expected = op.operationId === 'payInvoice' ? 404 : req.status;
          assert.equal(res.status, expected, res.text);
        });
      });
    }
  });

  describe('a client with only write_user_tokens', () => {
    let full: TestClient;
    let narrow: TestClient;
    let account: { account_id: string };
    let token: { access_token: string; refresh_token: string };
    before(async () => {
      full = await newClient();
      narrow = await newClient({ integrator: full.integrator, scopes: ['write_user_tokens'], tosSigning: true });
      account = await register(full);
      token = await userToken(narrow, account.account_id);
    });

    it('mints a user token that cannot list invoices or payment methods, add a card or sign the ToS', async () => {
      const id = account.account_id;
      const cases: Array<[string, string, string, unknown]> = [
        ['GET', `/v1/${id}/invoices`, 'read_invoices', undefined],
        ['GET', `/v1/${id}/payment_methods`, 'read_payment_methods', undefined],
        ['POST', `/v1/${id}/payment_methods`, 'write_payment_methods', card()],
        ['POST', `/user-info/${id}/tos/svc`, 'sign_tos', undefined],
        ['GET', `/user-info/${id}/tos/svc`, 'read_accounts', undefined],
      ];
      for (const [method, path, scope, body] of cases) {
        assertInsufficientScope(await call(method, path, { token: token.access_token, body }), scope, `${method} ${path}`);
      }
      const methods = await call('GET', `/v1/${id}/payment_methods`, { token: full.token });
      assert.equal(methods.body.payload.filter((m: { provider: string }) => m.provider === 'card').length, 0, 'no card was added');
      assert.equal((await call('GET', `/user-info/${id}/tos/svc`, { token: full.token })).body.signed_tos, false, 'not signed');
    });

    it('mints a user token that cannot pay an invoice authorized for its account', async () => {
      const buyerCard = await addCard(full, account.account_id, '4242424242424242');
      const auth = await call('POST', '/v2/authorize/invoice', {
        token: full.token,
        body: {
          account_id: account.account_id,
          invoice_mechanism: 'api',
          line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'sword' }],
        },
      });
      assert.equal(auth.status, 200, auth.text);
      const invoiceId = auth.body.payload.authorized_invoice_id;
      const paid = await call('POST', `/v2/invoice/${invoiceId}/pay`, {
        token: token.access_token,
        body: { payment_methods: [{ payment_method_id: buyerCard, amount: 0 }] },
      });
      assertInsufficientScope(paid, 'write_invoices', 'payInvoice');
      const invoice = await call('GET', `/v2/invoice/${invoiceId}`, { token: full.token });
      assert.equal(invoice.body.payload.state, 'OPEN', 'nothing was paid');
    });

    it('opens hosted-page sessions whose token is refused the same way', async () => {
      const res = await call('POST', '/authorize/user', { token: narrow.token, body: { account_id: account.account_id } });
      assert.equal(res.status, 200, res.text);
      const nonce = res.body.payload.redirect.split('/').pop();
      const opened = await fetch(`${h().baseUrl}/ui/appauth/${nonce}`, { redirect: 'manual' });
      assert.equal(opened.status, 303);
      const fragment = new URLSearchParams(new URL(opened.headers.get('location')!, h().baseUrl).hash.slice(1));
      const hosted = fragment.get('token')!;
      assertInsufficientScope(
        await call('GET', `/v1/${account.account_id}/payment_methods`, { token: hosted }),
        'read_payment_methods',
        'hosted session',
      );
    });
  });

  it('ToS signing by a user token needs the client to have ToS signing enabled, besides sign_tos', async () => {
    const client = await newClient({ tosSigning: false });
    const account = await register(client);
    const token = await userToken(client, account.account_id);
    const res = await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: token.access_token });
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(res.body.codes, ['TOS_SIGNING_NOT_ENABLED']);
    assert.equal((await call('GET', `/user-info/${account.account_id}/tos/svc`, { token: token.access_token })).body.signed_tos, false);
  });

  it('a client holding the scopes: its user token still acts for its own account, and finds no other', async () => {
    const client = await newClient({
      scopes: [
        'write_user_tokens',
        'read_invoices',
        'read_payment_methods',
        'write_payment_methods',
        'sign_tos',
        'read_accounts',
        'write_invoices',
      ],
      tosSigning: true,
    });
    const full = await newClient({ integrator: client.integrator });
    const account = await register(full);
    const other = await register(full);
    const token = (await userToken(client, account.account_id)).access_token;
    const mine = account.account_id;
    assert.equal((await call('GET', `/v1/${mine}/invoices`, { token })).status, 200);
    assert.equal((await call('GET', `/v1/${mine}/payment_methods`, { token })).status, 200);
    const added = await call('POST', `/v1/${mine}/payment_methods`, { token, body: card() });
    assert.equal(added.status, 201, added.text);
    assert.equal((await call('POST', `/user-info/${mine}/tos/svc`, { token })).status, 200);
    assert.equal((await call('GET', `/user-info/${mine}/tos/svc`, { token })).body.signed_tos, true);
    const auth = await call('POST', '/v2/authorize/invoice', {
      token: full.token,
      body: {
        account_id: mine,
        invoice_mechanism: 'api',
        line_items: [{ amount: 500, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'sword' }],
      },
    });
    const paid = await call('POST', `/v2/invoice/${auth.body.payload.authorized_invoice_id}/pay`, {
      token,
      body: { payment_methods: [{ payment_method_id: added.body.payload.id, amount: 0 }] },
    });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    for (const [method, path, body] of [
      ['GET', `/v1/${other.account_id}/invoices`, undefined],
      ['GET', `/v1/${other.account_id}/payment_methods`, undefined],
      ['POST', `/v1/${other.account_id}/payment_methods`, card()],
      ['POST', `/user-info/${other.account_id}/tos/svc`, undefined],
    ] as const) {
      const res = await call(method, path, { token, body });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
      assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
    }
  });

  it("a refresh mints an access token with the client's scopes as they are then", async () => {
    const client = await newClient();
    const account = await register(client);
    const first = await userToken(client, account.account_id);
    assert.equal((await call('GET', `/v1/${account.account_id}/invoices`, { token: first.access_token })).status, 200);
    await h().orm.em.fork().execute(`update client set scopes = array_remove(scopes, 'read_invoices') where id = ?`, [client.clientId]);
    const refreshed = await call('POST', '/token', {
      rawBody: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(refreshed.status, 200, refreshed.text);
    const second = refreshed.body.access_token;
    assertInsufficientScope(await call('GET', `/v1/${account.account_id}/invoices`, { token: second }), 'read_invoices', 'after refresh');
    assert.equal((await call('GET', `/v1/${account.account_id}/payment_methods`, { token: second })).status, 200);
  });

  it('refuses a user token without a scope claim, as minted before user tokens carried scopes', async () => {
    const client = await newClient();
    const account = await register(client);
    const legacy = await h().signer.sign(
      {
        clientId: client.clientId,
        integratorId: (
          await h()
            .orm.em.fork()
            .execute<Array<{ id: string }>>('select integrator_id as id from account where id = ?', [account.account_id])
        )[0].id,
        scopes: [],
        isOperator: false,
        canUnblock: false,
        accountId: account.account_id,
        sessionId: 'rtf_legacy',
      },
      3600,
    );
    assertInsufficientScope(
      await call('GET', `/v1/${account.account_id}/payment_methods`, { token: legacy }),
      'read_payment_methods',
      'legacy token',
    );
  });
});

/** A client access token narrowed to `scope` (`POST /token` with `scope=`). */
async function narrowedToken(client: TestClient, scope: string): Promise<string> {
  const res = await call('POST', '/token', {
    rawBody: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
      scope,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.scope, scope);
  return res.body.access_token;
}

/** Spends a session redirect (`/ui/appauth/<nonce>…`) as the hosted pages do: their user token. */
async function hostedToken(redirect: string): Promise<string> {
  const link = new URL(redirect, h().baseUrl);
  const opened = await fetch(`${h().baseUrl}${link.pathname}${link.search}`, { redirect: 'manual' });
  assert.equal(opened.status, 303, await opened.text());
  return new URLSearchParams(new URL(opened.headers.get('location')!, h().baseUrl).hash.slice(1)).get('token')!;
}

async function refresh(refreshToken: string): Promise<{ access_token: string; refresh_token: string }> {
  const res = await call('POST', '/token', {
    rawBody: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

describe('user password tokens never hold more than the token that opened their session', () => {
  let full: TestClient;
  let account: { account_id: string };
  const status = async (method: string, path: string, token: string) => (await call(method, path, { token })).status;
  before(async () => {
    full = await newClient();
    account = await register(full);
  });

  it('a token narrowed to write_user_tokens opens a session (return_token) holding no other scope', async () => {
    const narrow = await narrowedToken(full, 'write_user_tokens');
    const id = account.account_id;
    assertInsufficientScope(await call('GET', `/v1/${id}/payment_methods`, { token: narrow }), 'read_payment_methods', 'client token');
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: id, return_token: true } });
    assert.equal(opened.status, 200, opened.text);
    const user = opened.body.payload.token.access_token;
    assertInsufficientScope(await call('GET', `/v1/${id}/payment_methods`, { token: user }), 'read_payment_methods', 'user token');
    assertInsufficientScope(await call('GET', `/v1/${id}/invoices`, { token: user }), 'read_invoices', 'user token');
  });

  it('a session holds exactly the scopes its token was narrowed to, of those the client holds', async () => {
    const narrow = await narrowedToken(full, 'write_user_tokens read_payment_methods');
    const id = account.account_id;
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: id, return_token: true } });
    const user = opened.body.payload.token.access_token;
    assert.equal(await status('GET', `/v1/${id}/payment_methods`, user), 200);
    assertInsufficientScope(await call('GET', `/v1/${id}/invoices`, { token: user }), 'read_invoices', 'not granted');
  });

  it('a token narrowed to write_user_tokens opens a hosted-page session (nonce) holding no other scope', async () => {
    const narrow = await narrowedToken(full, 'write_user_tokens');
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: account.account_id } });
    assert.equal(opened.status, 200, opened.text);
    const hosted = await hostedToken(opened.body.payload.redirect);
    assertInsufficientScope(
      await call('GET', `/v1/${account.account_id}/payment_methods`, { token: hosted }),
      'read_payment_methods',
      'hosted session',
    );
  });

  it("a token narrowed to write_invoices authorizes invoices whose buyer's tokens hold no other scope", async () => {
    const narrow = await narrowedToken(full, 'write_invoices');
    const id = account.account_id;
    const authorize = (invoice_mechanism: 'api' | 'widget') =>
      call('POST', '/v2/authorize/invoice', {
        token: narrow,
        body: {
          account_id: id,
          invoice_mechanism,
          line_items: [{ amount: 700, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'sword' }],
        },
      });
    const api = await authorize('api');
    assert.equal(api.status, 200, api.text);
    const password = api.body.payload.password_token.access_token;
    assertInsufficientScope(await call('GET', `/v1/${id}/payment_methods`, { token: password }), 'read_payment_methods', 'password_token');
    assertInsufficientScope(
      await call('GET', `/v2/invoice/${api.body.payload.authorized_invoice_id}`, { token: password }),
      'read_invoices',
      'password_token',
    );
    const widget = await authorize('widget');
    assert.equal(widget.status, 200, widget.text);
    const hosted = await hostedToken(widget.body.payload.redirect);
    assertInsufficientScope(await call('GET', `/v1/${id}/payment_methods`, { token: hosted }), 'read_payment_methods', 'widget session');
  });

  it('a refresh keeps the narrowing, refresh after refresh', async () => {
    const narrow = await narrowedToken(full, 'write_user_tokens read_payment_methods');
    const id = account.account_id;
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: id, return_token: true } });
    let token = opened.body.payload.token as { access_token: string; refresh_token: string };
    for (const round of [1, 2]) {
      token = await refresh(token.refresh_token);
      assert.equal(await status('GET', `/v1/${id}/payment_methods`, token.access_token), 200, `refresh ${round}`);
      assertInsufficientScope(await call('GET', `/v1/${id}/invoices`, { token: token.access_token }), 'read_invoices', `refresh ${round}`);
    }
  });

  it('a scope the client loses leaves the session at the next refresh; the narrowing stays', async () => {
    const client = await newClient({ integrator: full.integrator });
    const narrow = await narrowedToken(client, 'write_user_tokens read_payment_methods read_invoices');
    const id = account.account_id;
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: id, return_token: true } });
    const first = opened.body.payload.token as { access_token: string; refresh_token: string };
    assert.equal(await status('GET', `/v1/${id}/invoices`, first.access_token), 200);
    const em = h().orm.em.fork();
    await em.execute(`update client set scopes = array_remove(scopes, 'read_invoices') where id = ?`, [client.clientId]);
    const second = await refresh(first.refresh_token);
    assertInsufficientScope(await call('GET', `/v1/${id}/invoices`, { token: second.access_token }), 'read_invoices', 'lost by the client');
    assert.equal(await status('GET', `/v1/${id}/payment_methods`, second.access_token), 200, 'still granted');
    assertInsufficientScope(
      await call('GET', `/user-info/${id}/tos/svc`, { token: second.access_token }),
      'read_accounts',
      'held by the client, never granted',
    );
    // Given back to the client, the scope returns: the session was opened with it.
    await em.execute(`update client set scopes = array_append(scopes, 'read_invoices') where id = ?`, [client.clientId]);
    const third = await refresh(second.refresh_token);
    assert.equal(await status('GET', `/v1/${id}/invoices`, third.access_token), 200);
    assertInsufficientScope(await call('GET', `/user-info/${id}/tos/svc`, { token: third.access_token }), 'read_accounts', 'never granted');
  });

  it('a nonce narrows to the scopes its client still holds when it is spent', async () => {
    const client = await newClient({ integrator: full.integrator });
    const narrow = await narrowedToken(client, 'write_user_tokens read_payment_methods read_invoices');
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: account.account_id } });
    await h().orm.em.fork().execute(`update client set scopes = array_remove(scopes, 'read_invoices') where id = ?`, [client.clientId]);
    const hosted = await hostedToken(opened.body.payload.redirect);
    assert.equal(await status('GET', `/v1/${account.account_id}/payment_methods`, hosted), 200);
    assertInsufficientScope(
      await call('GET', `/v1/${account.account_id}/invoices`, { token: hosted }),
      'read_invoices',
      'lost by the client',
    );
  });

  it("a session recorded before sessions kept their scopes gets the client's scopes, as such sessions always did", async () => {
    const client = await newClient({ integrator: full.integrator });
    const id = account.account_id;
    const narrow = await narrowedToken(client, 'write_user_tokens');
    const opened = await call('POST', '/authorize/user', { token: narrow, body: { account_id: id, return_token: true } });
    const first = opened.body.payload.token as { access_token: string; refresh_token: string };
    const em = h().orm.em.fork();
    const familyOf = async (refreshToken: string) =>
      (
        await em.execute<Array<{ family_id: string; scopes: string[] | null }>>(
          `select family_id, scopes from refresh_token where token_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')`,
          [refreshToken],
        )
      )[0];
    const { family_id } = await familyOf(first.refresh_token);
    await em.execute('update refresh_token set scopes = null where family_id = ?', [family_id]);
    await em.execute(`update client set scopes = array_remove(scopes, 'read_invoices') where id = ?`, [client.clientId]);
    const second = await refresh(first.refresh_token);
    assert.equal(await status('GET', `/v1/${id}/payment_methods`, second.access_token), 200, "the client's scope");
    assertInsufficientScope(await call('GET', `/v1/${id}/invoices`, { token: second.access_token }), 'read_invoices', 'the client lost it');
    assert.equal((await familyOf(second.refresh_token)).scopes, null, 'the family stays as it was recorded');
  });
});
