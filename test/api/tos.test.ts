import assert from 'node:assert/strict';
import { publishTos } from '../../src/tos/tos.service.js';
import { call, h, newClient, register, startExtraApp, unique, type TestClient } from '../support/harness.js';

describe('terms of service', () => {
  let client: TestClient;
  let account: any;
  beforeEach(async () => {
    client = await newClient({ tosSigning: true });
    account = await register(client);
  });

  const status = async () => (await call('GET', `/user-info/${account.account_id}/tos/svc`, { token: client.token })).body;

  it('GET /v1/tos answers the current version without a token', async () => {
    const res = await call('GET', '/v1/tos');
    assert.equal(res.status, 200);
    assert.ok(res.body.tos_version >= 1);
    assert.ok(!Number.isNaN(Date.parse(res.body.tos_created)));
    assert.ok(res.body.content.length > 0);
  });

  it('a new account has not signed; signing makes signed_tos true', async () => {
    assert.deepEqual(await status(), { signed_tos: false });
    const res = await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'Success', message: [], codes: [], payload: null });
    assert.deepEqual(await status(), { signed_tos: true });
  });

  it('signing twice is harmless', async () => {
    await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
    assert.equal((await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token })).status, 200);
    assert.deepEqual(await status(), { signed_tos: true });
  });

  it('refuses signing with 403 TOS_SIGNING_NOT_ENABLED when the operator has not enabled it for the client', async () => {
    const plain = await newClient({ integrator: client.integrator, tosSigning: false });
    const res = await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: plain.token });
    assert.equal(res.status, 403);
    assert.deepEqual(res.body.codes, ['TOS_SIGNING_NOT_ENABLED']);
    assert.deepEqual(await status(), { signed_tos: false });
  });

  it('unsigning in staging makes signed_tos false again', async () => {
    await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
    const res = await call('DELETE', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
    assert.equal(res.status, 200);
    assert.deepEqual(await status(), { signed_tos: false });
  });

  it('has no unsign operation in production (405, Allow: GET, POST)', async () => {
    const production = await startExtraApp({ appEnv: 'production' });
    try {
      await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
      const res = await call('DELETE', `/user-info/${account.account_id}/tos/svc`, { token: client.token, baseUrl: production.baseUrl });
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'GET, POST');
      assert.deepEqual(await status(), { signed_tos: true });
    } finally {
      await production.close();
    }
  });

  it('a newly published version leaves every account unsigned until it signs again', async () => {
    const other = await register(client);
    await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
    await call('POST', `/user-info/${other.account_id}/tos/svc`, { token: client.token });
    assert.deepEqual(await status(), { signed_tos: true });
    const before = (await call('GET', '/v1/tos')).body;
    const published = await publishTos(h().orm.em.fork(), `Terms ${unique('v')}`);
    const after = (await call('GET', '/v1/tos')).body;
    assert.equal(after.tos_version, published.tos_version);
    assert.ok(after.tos_version > before.tos_version);
    assert.deepEqual(await status(), { signed_tos: false });
    const otherStatus = await call('GET', `/user-info/${other.account_id}/tos/svc`, { token: client.token });
    assert.deepEqual(otherStatus.body, { signed_tos: false });
    await call('POST', `/user-info/${account.account_id}/tos/svc`, { token: client.token });
    assert.deepEqual(await status(), { signed_tos: true });
  });
});
