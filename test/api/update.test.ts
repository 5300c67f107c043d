import assert from 'node:assert/strict';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';

async function poboMethods(accountId: string) {
  return h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<{ details: any }>>(`select details from payment_method where account_id = ? and provider = 'pobo' order by created_at`, [
      accountId,
    ]);
}

describe('PUT /user-info/{account_id}', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it('changes only the fields sent and answers the update form (no username)', async () => {
    const account = await register(client, { full_name: 'Old Name', city: 'Oldtown' });
    const res = await call('PUT', `/user-info/${account.account_id}`, { token: client.token, body: { full_name: 'New Name' } });
    assert.equal(res.status, 200);
    assert.equal(res.body.payload.full_name, 'New Name');
    assert.equal(res.body.payload.city, 'Oldtown');
    assert.equal(res.body.payload.username, undefined);
    assert.equal(res.body.payload.email.email_id, account.email.email_id);
  });

  it('adds a POBO payment method for a new external platform id', async () => {
    const account = await register(client, { full_name: 'Pat Doe' });
    assert.equal((await poboMethods(account.account_id)).length, 0);
    const res = await call('PUT', `/user-info/${account.account_id}`, {
      token: client.token,
      body: { external_platforms: { nintendo: { user_id: unique('n') } } },
    });
    assert.equal(res.status, 200);
    assert.ok(res.body.payload.external_platforms.nintendo);
    const pobo = await poboMethods(account.account_id);
    assert.equal(pobo.length, 1);
    assert.equal(pobo[0].details.billing.full_name, 'Pat Doe');
  });

  it('does not add a second POBO method when the same id is sent again', async () => {
    const account = await register(client);
    const body = { external_platforms: { google: { user_id: unique('g') } } };
    await call('PUT', `/user-info/${account.account_id}`, { token: client.token, body });
    await call('PUT', `/user-info/${account.account_id}`, { token: client.token, body });
    assert.equal((await poboMethods(account.account_id)).length, 1);
  });

  it('refuses a second id for a platform already linked (409 EXTERNAL_PLATFORM_ALREADY_LINKED)', async () => {
    const account = await register(client);
    await call('PUT', `/user-info/${account.account_id}`, {
      token: client.token,
      body: { external_platforms: { oculus: { user_id: unique('o') } } },
    });
    const res = await call('PUT', `/user-info/${account.account_id}`, {
      token: client.token,
      body: { external_platforms: { oculus: { user_id: unique('o') } } },
    });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body.codes, ['EXTERNAL_PLATFORM_ALREADY_LINKED']);
    assert.equal((await poboMethods(account.account_id)).length, 1);
  });

  it('refuses an email or platform id of another account with 409 naming it', async () => {
    const a = await register(client);
    const b = await register(client);
    const email = await call('PUT', `/user-info/${b.account_id}`, {
      token: client.token,
      body: { email: { address: a.email.address.toUpperCase() } },
    });
    assert.equal(email.status, 409);
    assert.deepEqual(email.body.payload, { account_id: a.account_id, field: 'email' });
    const id = unique('m');
    await call('PUT', `/user-info/${a.account_id}`, { token: client.token, body: { external_platforms: { microsoft: { user_id: id } } } });
    const platform = await call('PUT', `/user-info/${b.account_id}`, {
      token: client.token,
      body: { external_platforms: { microsoft: { user_id: id } } },
    });
    assert.equal(platform.status, 409);
    assert.equal(platform.body.payload.account_id, a.account_id);
  });

  it('keeps the email_id and resets verification when the address changes', async () => {
    const account = await register(client, { email: { address: `${unique('v')}@example.com`, requires_verification: false } });
    assert.equal(account.email.is_verified, true);
    const res = await call('PUT', `/user-info/${account.account_id}`, {
      token: client.token,
      body: { email: { address: `${unique('w')}@example.com` } },
    });
    assert.equal(res.body.payload.email.email_id, account.email.email_id);
    assert.equal(res.body.payload.email.is_verified, false);
  });

  it('adds an email to an account registered with a platform id only', async () => {
    const reg = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('pe'), external_platforms: { steam: { user_id: unique('s') } } },
    });
    const res = await call('PUT', `/user-info/${reg.body.payload.account_id}`, {
      token: client.token,
      body: { email: { address: `${unique('pe')}@example.com` } },
    });
    assert.equal(res.status, 200);
    assert.match(res.body.payload.email.email_id, /^eml_/);
  });

  const invalid: Array<[string, unknown, string, string]> = [
    ['an empty body', {}, 'body', 'EMPTY'],
    ['username (not updatable)', { username: 'x' }, 'username', 'UNKNOWN_FIELD'],
    ['state_province without country_iso', { state_province: 'CA' }, 'country_iso', 'REQUIRED'],
    ['a malformed email', { email: { address: 'x@' } }, 'email.address', 'INVALID_FORMAT'],
  ];
  for (const [what, body, field, code] of invalid) {
    it(`answers 400 for ${what}`, async () => {
      const account = await register(client);
      const res = await call('PUT', `/user-info/${account.account_id}`, { token: client.token, body });
      assert.equal(res.status, 400);
      assert.ok(res.body.payload.errors[field]?.includes(code), JSON.stringify(res.body.payload.errors));
    });
  }
});
