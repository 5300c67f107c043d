import assert from 'node:assert/strict';
import { call, newClient, register, unique, type TestClient } from '../support/harness.js';

describe('account lookups', () => {
  let client: TestClient;
  let account: any;
  before(async () => {
    client = await newClient();
    account = await register(client, { username: `${unique('p')}+tag@home` });
  });

  it('GET /v1/user-info/{account_id} answers the profile', async () => {
    const res = await call('GET', `/v1/user-info/${account.account_id}`, { token: client.token });
    assert.equal(res.status, 200);
    const p = res.body.payload;
    assert.equal(p.account_id, account.account_id);
    assert.equal(p.username, account.username);
    assert.equal(p.email, account.email.address);
    assert.equal(p.is_blocked, false);
    assert.deepEqual(p.blocked_capabilities, {});
    assert.equal(p.integrator, client.integrator);
    assert.deepEqual(p.tags, []);
    assert.ok(!Number.isNaN(Date.parse(p.created)));
  });

  it('answers 404 ACCOUNT_GET_ERROR for an unknown account', async () => {
    const res = await call('GET', '/v1/user-info/acct_01ZZZZZZZZZZZZZZZZZZZZZZZZ', { token: client.token });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { status: 'Failure', message: ['Account not found.'], codes: ['ACCOUNT_GET_ERROR'], payload: null });
  });

  for (const bad of ['a'.repeat(37), 'acct_bad%24chars', 'acct%20x']) {
    it(`answers 404 like an unknown account for a path id that cannot be an id (${bad.slice(0, 12)}…)`, async () => {
      const res = await call('GET', `/v1/user-info/${bad}`, { token: client.token });
      assert.equal(res.status, 404);
      assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
    });
  }

  it('finds the account by username with plus and at-sign URL-encoded', async () => {
    const res = await call('GET', `/v1/user-info/search?username=${encodeURIComponent(account.username)}`, { token: client.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.payload.account_id, account.account_id);
  });

  it('matches the username without regard to case', async () => {
    const res = await call('GET', `/v1/user-info/search?username=${encodeURIComponent(account.username.toUpperCase())}`, {
      token: client.token,
    });
    assert.equal(res.body.payload.account_id, account.account_id);
  });

  it('reads an unencoded plus as a space (form encoding), so only the encoded name finds the account', async () => {
    const res = await call('GET', `/v1/user-info/search?username=${account.username.replace('@', '%40')}`, { token: client.token });
    assert.equal(res.status, 404);
  });

  it('finds names with characters encodeURIComponent leaves as they are', async () => {
    const odd = await register(client, { username: `${unique('o')}(it's)!*~` });
    const res = await call('GET', `/v1/user-info/search?username=${encodeURIComponent(odd.username)}`, { token: client.token });
    assert.equal(res.body.payload.account_id, odd.account_id);
    const form = await call('GET', `/v1/user-info/search?${new URLSearchParams({ username: odd.username })}`, { token: client.token });
    assert.equal(form.body.payload.account_id, odd.account_id);
  });

  it('answers 404 for an unknown username and 400 without one', async () => {
    assert.equal((await call('GET', '/v1/user-info/search?username=nobody-here', { token: client.token })).status, 404);
    const missing = await call('GET', '/v1/user-info/search', { token: client.token });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.payload.errors, { username: ['REQUIRED'] });
  });

  it('refuses unknown query parameters naming them', async () => {
    const res = await call('GET', `/v1/user-info/search?username=x&limit=5`, { token: client.token });
    assert.equal(res.status, 400);
    assert.ok(res.body.payload.errors.limit, JSON.stringify(res.body.payload.errors));
  });

  it('GET /v1/{account_id}/user-info answers the earlier-generation profile', async () => {
    const res = await call('GET', `/v1/${account.account_id}/user-info`, { token: client.token });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body.payload).sort(), ['account_id', 'created', 'email', 'integrator', 'is_blocked', 'username']);
    assert.equal(res.body.payload.integrator, client.integrator);
  });

  it('shows a null email for an account registered with a platform id only', async () => {
    const res = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('np'), external_platforms: { apple: { user_id: unique('ap') } } },
    });
    const profile = await call('GET', `/v1/user-info/${res.body.payload.account_id}`, { token: client.token });
    assert.equal(profile.body.payload.email, null);
  });
});
