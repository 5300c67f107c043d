import assert from 'node:assert/strict';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { call, newClient, register, unique } from '../support/harness.js';
import { operations, sampleRequest, type Operation } from '../support/operations.js';

const scoped = (await operations()).filter((op) => op.scopes && op.scopes.length > 0);
const anyToken = (await operations()).filter((op) => op.scopes && op.scopes.length === 0);

describe('scope matrix: every operation demands its scope', () => {
  it('covers every operation that names a scope', () => {
    const ids = scoped.map((op) => op.operationId).sort();
    assert.deepEqual(ids, [
      'addPaymentMethod', 'getAccountProfile', 'getTosStatus', 'listPaymentMethods', 'registerAccount', 'searchAccountByUsername',
      'signTos', 'unsignTos', 'updateAccount',
    ]);
  });

  for (const op of scoped) {
    describe(`${op.method} ${op.template} (${op.scopes!.join(' ')})`, () => {
      let owner: Awaited<ReturnType<typeof newClient>>;
      let account: { account_id: string; username: string };
      const integrator = unique('scope-');
      before(async () => {
        owner = await newClient({ integrator });
        account = await register(owner);
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
      const account = await register(owner);
      const req = sampleRequest(op, account);
      const noScopes = await newClient({ integrator: owner.integrator, scopes: [] });
      assert.equal((await call(op.method, req.path, { token: noScopes.token })).status, 200);
      assert.equal((await call(op.method, req.path)).status, 401);
    });
  }
});

describe('tenant matrix: another integrator\'s account is not found', () => {
  const accountOps: Operation[] = [];
  before(async () => {
    accountOps.push(...(await operations()).filter((op) => op.template.includes('{account_id}') || op.operationId === 'searchAccountByUsername'));
  });
  let a: Awaited<ReturnType<typeof newClient>>;
  let b: Awaited<ReturnType<typeof newClient>>;
  let account: { account_id: string; username: string };
  before(async () => {
    a = await newClient();
    b = await newClient();
    account = await register(a);
  });

  it('covers every account endpoint', () => {
    assert.equal(accountOps.length, 9);
  });

  it('answers 404 ACCOUNT_GET_ERROR to the other integrator and 200 to the owner, on every account endpoint', async () => {
    for (const op of accountOps) {
      const req = sampleRequest(op, account);
      const other = await call(op.method, req.path, { token: b.token, body: req.body });
      assert.equal(other.status, 404, `${op.method} ${op.template}: ${other.text}`);
      assert.deepEqual(other.body.codes, ['ACCOUNT_GET_ERROR']);
      assert.equal(other.body.payload, null);
      const missing = await call(op.method, req.path.replace(account.account_id, 'acct_00000000000000000000000000'), { token: b.token, body: req.body });
      if (op.template.includes('{account_id}')) assert.deepEqual(missing.body, other.body, 'other tenant must look exactly like a missing account');
      const own = await call(op.method, req.path, { token: a.token, body: req.body });
      assert.equal(own.status, req.status, `${op.method} ${op.template}: ${own.text}`);
    }
  });

  it('does not let the other integrator register a username that only exists elsewhere as a conflict', async () => {
    const res = await call('POST', '/register', { token: b.token, body: { username: account.username, email: { address: `${unique('o')}@example.com` } } });
    assert.equal(res.status, 200);
  });
});
