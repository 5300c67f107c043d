import assert from 'node:assert/strict';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { call, newClient, unique } from '../support/harness.js';
import { fixtureFor, operations, sampleRequest, type Fixture, type Operation } from '../support/operations.js';

const scoped = (await operations()).filter((op) => op.scopes && op.scopes.length > 0);
const anyToken = (await operations()).filter((op) => op.scopes && op.scopes.length === 0);

describe('scope matrix: every operation demands its scope', () => {
  it('covers every operation that names a scope', () => {
    const ids = scoped.map((op) => op.operationId).sort();
    assert.deepEqual(ids, [
      'addPaymentMethod',
      'advanceSandboxClock',
      'authorizeInvoice',
      'authorizeUser',
      'blockAccount',
      'blockAccountLegacy',
      'cancelEscrow',
      'closeSandboxDispute',
      'commitEscrow',
      'convertTokens',
      'createEscrow',
      'createInvoice',
      'createWebhook',
      'deleteWebhook',
      'enableWebhook',
      'executePayoutNow',
      'executeTokenExchange',
      'exportRows',
      'getAccountBalances',
      'getAccountBlocks',
      'getAccountProfile',
      'getAccountStatement',
      'getDispute',
      'getEscrow',
      'getEscrowByInvoice',
      'getEscrowsByReference',
      'getEvent',
      'getInvoice',
      'getInvoiceRefunds',
      'getKyc',
      'getPayout',
      'getSandboxClock',
      'getSettlementReport',
      'getTokenExchange',
      'getTosStatus',
      'getWebhook',
      'listAccountInvoices',
      'listAudit',
      'listDisputes',
      'listEvents',
      'listInvoices',
      'listPaymentMethods',
      'listPaymentMethodsAlias',
      'listPayouts',
      'listWebhooks',
      'mergeAccounts',
      'openSandboxDispute',
      'payEscrow',
      'payInvoice',
      'purchaseTokens',
      'refundInvoice',
      'refundLineItem',
      'registerAccount',
      'requestPayout',
      'resendEvent',
      'resetSandboxClock',
      'reversePayout',
      'rotateWebhookSecret',
      'searchAccountByUsername',
      'signTos',
      'submitDisputeEvidence',
      'unblockAccount',
      'unblockAccountLegacy',
      'unsignTos',
      'updateAccount',
    ]);
  });

  for (const op of scoped) {
    describe(`${op.method} ${op.template} (${op.scopes!.join(' ')})`, () => {
      let account: Fixture;
      const integrator = unique('scope-');
      before(async () => {
        account = await fixtureFor(await newClient({ integrator }));
      });

      it('answers 401 insufficient_scope with every other scope', async () => {
        const lacking = await newClient({ integrator, scopes: ALL_SCOPES.filter((s) => !op.scopes!.includes(s)) });
        const req = sampleRequest(op, account);
        const res = await call(op.method, req.path, { token: lacking.token, body: req.body });
        assert.equal(res.status, 401);
        assert.deepEqual(res.body.codes, ['INSUFFICIENT_SCOPE']);
        const challenge = res.headers.get('www-authenticate') ?? '';
        assert.match(challenge, /error="insufficient_scope"/);
        assert.match(challenge, new RegExp(`scope="${op.scopes!.join(' ')}"`));
      });

      it('succeeds with only that scope', async () => {
        const only = await newClient({ integrator, scopes: op.scopes! });
        const req = sampleRequest(op, account);
        const res = await call(op.method, req.path, { token: only.token, body: req.body });
        assert.equal(res.status, req.status, res.text);
      });
    });
  }

  for (const op of anyToken) {
    it(`${op.method} ${op.template} takes any valid token and refuses none`, async () => {
      const owner = await newClient();
      const account = await fixtureFor(owner);
      const req = sampleRequest(op, account);
      const noScopes = await newClient({ integrator: owner.integrator, scopes: [] });
      assert.equal((await call(op.method, req.path, { token: noScopes.token })).status, 200);
      assert.equal((await call(op.method, req.path)).status, 401);
    });
  }
});

describe("tenant matrix: another integrator's resources are not found", () => {
  const NOT_FOUND: Record<string, string> = {
    '{account_id}': 'ACCOUNT_GET_ERROR',
    '{escrow_id}': 'ESCROW_GET_ERROR',
    '{invoice_id}': 'INVOICE_GET_ERROR',
    '{command_id}': 'COMMAND_GET_ERROR',
    '{webhook_id}': 'WEBHOOK_GET_ERROR',
    '{event_id}': 'EVENT_GET_ERROR',
  };
  const owned: Operation[] = [];
  let a: Awaited<ReturnType<typeof newClient>>;
  let b: Awaited<ReturnType<typeof newClient>>;
  let fixture: Fixture;
  before(async () => {
    owned.push(
      ...(await operations()).filter(
        (op) =>
          // Operations for the person alone (user tokens only) are in the user-token matrix.
          op.scopes !== undefined &&
          (/\{(account|escrow|invoice|command|webhook|event)_id\}/.test(op.template) ||
            [
              'searchAccountByUsername',
              'createEscrow',
              'createInvoice',
              'blockAccount',
              'mergeAccounts',
              'authorizeUser',
              'authorizeInvoice',
              'refundInvoice',
              'refundLineItem',
              'convertTokens',
            ].includes(op.operationId)),
      ),
    );
    a = await newClient();
    b = await newClient();
    fixture = await fixtureFor(a);
  });

  it('covers every endpoint that names an account, escrow, invoice, command, webhook endpoint or event', () => {
    assert.equal(owned.length, 48);
  });

  it("answers the resource's 404 to the other integrator, exactly as for a missing one, and success to the owner", async () => {
    for (const op of owned) {
      const req = sampleRequest(op, fixture);
      const other = await call(op.method, req.path, { token: b.token, body: req.body });
      assert.equal(other.status, 404, `${op.method} ${op.template}: ${other.text}`);
      const param = Object.keys(NOT_FOUND).find((p) => op.template.includes(p));
      // An operation naming its resource in the body answers that resource's 404 (an account's unless named here).
      const bodyCode =
        op.operationId === 'refundInvoice'
          ? 'INVOICE_GET_ERROR'
          : op.operationId === 'refundLineItem'
            ? 'LINE_ITEM_NOT_FOUND'
            : 'ACCOUNT_GET_ERROR';
      assert.deepEqual(other.body.codes, [param ? NOT_FOUND[param] : bodyCode]);
      assert.equal(other.body.payload, null);
      if (param) {
        const missing = await call(
          op.method,
          op.template
            .replace(param, 'zz_00000000000000000000000000')
            .replace(/\{[a-z_]+\}/g, (p) => sampleRequest({ ...op, template: p }, fixture).path),
          { token: b.token, body: req.body },
        );
        assert.deepEqual(missing.body, other.body, "another integrator's resource must look exactly like a missing one");
      }
      const own = await call(op.method, req.path, { token: a.token, body: req.body });
      assert.equal(own.status, req.status, `${op.method} ${op.template}: ${own.text}`);
    }
  });

  it('does not let the other integrator register a username that only exists elsewhere as a conflict', async () => {
    const res = await call('POST', '/register', {
      token: b.token,
      body: { username: fixture.username, email: { address: `${unique('o')}@example.com` } },
    });
    assert.equal(res.status, 200);
  });
});
