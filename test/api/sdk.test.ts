import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HoldfastSdk, type Invoice, type UserToken } from '../../packages/sdk/src/index.js';
import { SDK_DOCUMENTS, generatedOperations, generatedTypes, operationsFile, typesFile } from '../../packages/sdk/scripts/generate.js';
import { call, h, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** Every callback an SDK flow made, in order. */
function recorder() {
  const calls: Array<[string, ...unknown[]]> = [];
  const record =
    (name: string) =>
    (...args: unknown[]) => {
      calls.push([name, ...args]);
    };
  return {
    calls,
    checkout: { completed: record('completed'), update: record('update'), canceled: record('canceled'), error: record('error') },
    flow: { completed: record('completed'), canceled: record('canceled'), error: record('error') },
    methods: { success: record('success'), failure: record('failure') },
  };
}

describe('client SDK against a running Holdfast', () => {
  let client: TestClient;
  let buyer: Party;
  let sdk: HoldfastSdk;
  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    sdk = new HoldfastSdk({ baseUrl: h().baseUrl });
  });

  const authorize = async (amount = 700) =>
    (
      await call('POST', '/v2/authorize/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          invoice_mechanism: 'api',
          line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'gem-pack' }],
        },
      })
    ).body.payload as { authorized_invoice_id: string; password_token: UserToken };

  it('keeps its types equal to what the OpenAPI documents generate', async () => {
    for (const name of SDK_DOCUMENTS) {
      assert.equal(
        readFileSync(typesFile(name), 'utf8'),
        await generatedTypes(name),
        `packages/sdk/src/types/${name}.ts is stale: run npm run sdk:types`,
      );
    }
    assert.equal(
      readFileSync(operationsFile, 'utf8'),
      await generatedOperations(),
      'packages/sdk/src/server/operations.ts is stale: run npm run sdk:types',
    );
  });

  it('checks out an authorized invoice with the chosen payment methods: completed(invoiceId, invoice); a retry pays nothing more', async () => {
    await fund(buyer, 'USD:fiat', 700);
    const auth = await authorize();
    const r = recorder();
    const input = {
      authorizedInvoiceId: auth.authorized_invoice_id,
      passwordToken: auth.password_token,
      paymentMethods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }],
    };
    await sdk.checkout(input, r.checkout);
    assert.equal(r.calls.length, 1, JSON.stringify(r.calls));
    const [name, invoiceId, invoice] = r.calls[0] as [string, string, Invoice];
    assert.deepEqual([name, invoiceId, invoice.state], ['completed', auth.authorized_invoice_id, 'SUCCESS']);
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 0);
    await sdk.checkout(input, r.checkout);
    assert.equal(r.calls[1][0], 'completed');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 0, 'paid once');
  });

  it('follows a payment the API accepted for later (202): update(invoice), then completed', async () => {
    const app = await startExtraApp({ syncWaitMs: 0 });
    try {
      const auth = await authorize(300);
      const r = recorder();
      await new HoldfastSdk({ baseUrl: app.baseUrl }).checkout(
        {
          authorizedInvoiceId: auth.authorized_invoice_id,
          passwordToken: auth.password_token,
          paymentMethods: [{ payment_method_id: buyer.card!, amount: 0 }],
        },
        r.checkout,
      );
      assert.equal(r.calls[0][0], 'update', JSON.stringify(r.calls));
      assert.equal((r.calls[0][1] as Invoice).state, 'OPEN');
      const last = r.calls[r.calls.length - 1];
      assert.deepEqual([last[0], last[1], (last[2] as Invoice).state], ['completed', auth.authorized_invoice_id, 'SUCCESS']);
    } finally {
      await app.close();
    }
  });

  it('reports a refused payment as error(402, [failure_reason]) and an API refusal with its status and messages', async () => {
    const declined = await authorize();
    const r = recorder();
    await sdk.checkout(
      {
        authorizedInvoiceId: declined.authorized_invoice_id,
        passwordToken: declined.password_token.access_token,
        paymentMethods: [{ payment_method_id: buyer.declined!, amount: 0 }],
      },
      r.checkout,
    );
    assert.deepEqual(r.calls, [['error', 402, ['card_declined']]]);
    const other = await authorize();
    const s = recorder();
    await sdk.checkout(
      {
        authorizedInvoiceId: other.authorized_invoice_id,
        passwordToken: other.password_token,
        paymentMethods: [{ payment_method_id: buyer.card!, amount: 5 }],
      },
      s.checkout,
    );
    assert.equal(s.calls[0][0], 'error');
    assert.equal(s.calls[0][1], 400);
    const t = recorder();
    await sdk.checkout({ authorizedInvoiceId: other.authorized_invoice_id, passwordToken: other.password_token }, t.checkout);
    assert.deepEqual(
      t.calls,
      [['error', 400, ['Give paymentMethods, or a container to show the hosted checkout in.']]],
      'no hosted checkout outside a browser',
    );
    const unreachable = recorder();
    await new HoldfastSdk({ baseUrl: 'http://127.0.0.1:9' }).checkout(
      {
        authorizedInvoiceId: other.authorized_invoice_id,
        passwordToken: other.password_token,
        paymentMethods: [{ payment_method_id: buyer.card!, amount: 0 }],
      },
      unreachable.checkout,
    );
    assert.equal(unreachable.calls[0][0], 'error');
    assert.equal(unreachable.calls[0][1], 0);
  });

  it("lists the user's transaction history newest first and shows one receipt; another user's receipt is not found", async () => {
    const session = await call('POST', '/authorize/user', {
      token: client.token,
      body: { account_id: buyer.account_id, return_token: true },
    });
    const token = session.body.payload.token;
    const r = recorder();
    await sdk.transactionHistory(token, r.flow, { limit: 3 });
    const [[name, invoices]] = r.calls as Array<[string, Invoice[]]>;
    assert.equal(name, 'completed');
    assert.equal(invoices.length, 3);
    assert.ok(invoices.every((i) => i.account_id === buyer.account_id));
    assert.deepEqual(
      invoices.map((i) => i.invoice_id),
      [...invoices.map((i) => i.invoice_id)].sort().reverse(),
      'newest first',
    );
    const receipt = recorder();
    await sdk.receipt(invoices[0].invoice_id, token, receipt.flow);
    assert.deepEqual(receipt.calls, [['completed', invoices[0]]]);
    const stranger = await register(client);
    const theirs = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: stranger.account_id, return_token: true } })
    ).body.payload.token;
    const refused = recorder();
    await sdk.receipt(invoices[0].invoice_id, theirs, refused.flow);
    assert.deepEqual(refused.calls, [['error', 404, ['Invoice not found.']]]);
  });

  it("gets the payment methods with the SDK's own token, or the one given; a client token is not a user's", async () => {
    const token = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id, return_token: true } })
    ).body.payload.token;
    const mine = new HoldfastSdk({ baseUrl: h().baseUrl, token });
    const r = recorder();
    await mine.getPaymentMethods(r.methods);
    assert.equal(r.calls[0][0], 'success');
    assert.ok((r.calls[0][1] as Array<{ id: string }>).some((m) => m.id === buyer.card));
    const s = recorder();
    await sdk.getPaymentMethods(s.methods);
    assert.deepEqual(s.calls, [['failure', 401, ['A user password token is needed.']]]);
    const t = recorder();
    await sdk.getPaymentMethods(t.methods, client.token);
    assert.deepEqual(t.calls, [['failure', 401, ['A user password token is needed.']]]);
  });
});

describe('GET /v1/{account_id}/invoices', () => {
  it('pages newest first with limit, starting_after and has_more, and keeps a user token to its own account', async () => {
    const client = await newClient();
    const buyer = await party(client, true);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call('POST', '/v2/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          payment_methods: [{ payment_method_id: buyer.card!, amount: 0 }],
          line_items: [{ amount: 100 + i, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      });
      made.push(res.body.payload.invoice_id);
    }
    const first = await call('GET', `/v1/${buyer.account_id}/invoices?limit=2`, { token: client.token });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.payload.invoices.map((i: Invoice) => i.invoice_id),
      [made[4], made[3]],
    );
    assert.equal(first.body.payload.has_more, true);
    const rest = await call('GET', `/v1/${buyer.account_id}/invoices?limit=10&starting_after=${made[3]}`, { token: client.token });
    assert.deepEqual(
      rest.body.payload.invoices.map((i: Invoice) => i.invoice_id),
      [made[2], made[1], made[0]],
    );
    assert.equal(rest.body.payload.has_more, false);
    assert.equal((await call('GET', `/v1/${buyer.account_id}/invoices?limit=101`, { token: client.token })).status, 400);
    const other = await register(client);
    const token = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: other.account_id, return_token: true } })
    ).body.payload.token;
    assert.equal((await call('GET', `/v1/${buyer.account_id}/invoices`, { token: token.access_token })).status, 404);
    const own = await call('GET', `/v1/${other.account_id}/invoices`, { token: token.access_token });
    assert.deepEqual([own.status, own.body.payload], [200, { invoices: [], has_more: false }]);
  });
});

describe('CORS for the operations a user password token calls', () => {
  const preflight = (path: string, method: string) =>
    fetch(`${h().baseUrl}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization,content-type',
      },
    });

  it('lets any origin call them with a bearer token, and gives server-only operations no CORS at all', async () => {
    const pay = await preflight('/v2/invoice/inv_1/pay', 'POST');
    assert.equal(pay.status, 204);
    assert.equal(pay.headers.get('access-control-allow-origin'), '*');
    assert.equal(pay.headers.get('access-control-allow-methods'), 'POST');
    assert.match(pay.headers.get('access-control-allow-headers') ?? '', /Authorization/);
    assert.equal(pay.headers.get('access-control-allow-credentials'), null, 'never with cookies');
    assert.equal((await preflight('/v1/acct_1/payment_methods', 'GET')).headers.get('access-control-allow-methods'), 'GET, POST');
    for (const [path, method] of [
      ['/v2/escrow', 'POST'],
      ['/v2/authorize/invoice', 'POST'],
      ['/token', 'POST'],
      ['/register', 'POST'],
    ]) {
      const res = await preflight(path, method);
      assert.equal(res.headers.get('access-control-allow-origin'), null, `${method} ${path}`);
    }
    const client = await newClient();
    const account = await register(client);
    const listed = await fetch(`${h().baseUrl}/v1/${account.account_id}/payment_methods`, {
      headers: { authorization: `Bearer ${client.token}`, origin: 'https://app.example' },
    });
    assert.equal(listed.headers.get('access-control-allow-origin'), '*');
    assert.match(listed.headers.get('access-control-expose-headers') ?? '', /X-Command-Id/);
  });
});
