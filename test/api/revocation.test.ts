import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { TokenSigner } from '../../src/auth/auth.service.js';
import { openHostedSession } from '../../src/sessions/user-session.service.js';
import { createRedis } from '../../src/queues/connection.js';
import { TEST_QUEUE_PREFIX, call, h, loadSigner, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';

const form = (params: Record<string, string>) => ({
  rawBody: new URLSearchParams(params).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

type ExtraApp = Awaited<ReturnType<typeof startExtraApp>>;

/**
 * Access tokens end with their session: a refresh-token replay revokes the session's access
 * tokens on every web process at once, and a token issued before a login block never works
 * again, even once the block is lifted.
 */
describe('access tokens after revocation', () => {
  let client: TestClient;
  let operator: TestClient;
  /** A second web process: its own signer, hearing changes over Redis. */
  let other: { signer: TokenSigner; app: ExtraApp };
  before(async () => {
    client = await newClient();
    operator = await newClient({ integrator: client.integrator, isOperator: true });
    const signer = await loadSigner(h().orm, h().redisUrl, h().redis);
    await signer.heardOthers();
    other = { signer, app: await startExtraApp({ signer }) };
  });
  after(async () => {
    await other.app.close();
    await other.signer.close();
  });

  const session = async (accountId: string) => {
    const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
    assert.equal(res.status, 200, res.text);
    return res.body.payload.token as { access_token: string; refresh_token: string };
  };
  const refresh = (refreshToken: string) => call('POST', '/token', form({ grant_type: 'refresh_token', refresh_token: refreshToken }));
  /** The status of a read with this user token, on the harness's process or another one. */
  const use = async (accountId: string, token: string, baseUrl?: string) =>
    (await call('GET', `/v1/${accountId}/payment_methods`, { token, baseUrl })).status;

  it('a replayed refresh token revokes the access tokens already issued in its session, on every web process', async () => {
    const account = (await register(client)).account_id;
    const first = await session(account);
    // Both processes have verified (and cached) the token before the session is revoked.
    assert.equal(await use(account, first.access_token), 200);
    assert.equal(await use(account, first.access_token, other.app.baseUrl), 200);
    const second = await refresh(first.refresh_token);
    assert.equal(second.status, 200, second.text);
    assert.equal(await use(account, second.body.access_token, other.app.baseUrl), 200);

    const replay = await refresh(first.refresh_token);
    assert.equal(replay.body.error, 'invalid_grant');
    for (const token of [first.access_token, second.body.access_token]) {
      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) {
        const res = await call('GET', `/v1/${account}/payment_methods`, { token, baseUrl });
        assert.equal(res.status, 401, `${baseUrl}: ${res.text}`);
        assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
        assert.match(res.body.message[0], /revoked/);
      }
    }
    // Only that session ends: a new one for the same account works.
    assert.equal(await use(account, (await session(account)).access_token, other.app.baseUrl), 200);
  });

  it('a process that cannot hear Redis reads revocations from PostgreSQL (fails safe)', async () => {
    // Its subscriber points where no Redis answers: it never trusts its in-memory copy.
    const deaf = await TokenSigner.load(h().orm.em.fork(), {
      connect: () => createRedis('redis://127.0.0.1:1', 'worker'),
      publisher: h().redis,
      prefix: TEST_QUEUE_PREFIX,
    });
    const app = await startExtraApp({ signer: deaf });
    try {
      const account = (await register(client)).account_id;
      const first = await session(account);
      assert.equal(await use(account, first.access_token, app.baseUrl), 200);
      assert.equal((await refresh(first.refresh_token)).status, 200);
      assert.equal((await refresh(first.refresh_token)).body.error, 'invalid_grant');
      assert.equal(await use(account, first.access_token, app.baseUrl), 401);
    } finally {
      await app.close();
      await deaf.close();
    }
  });

  it('a token issued before a login block never works again, even after the unblock; a new login does', async () => {
    const account = (await register(client)).account_id;
    const old = await session(account);
    const hosted = await call('POST', '/authorize/user', { token: client.token, body: { account_id: account } });
    const nonce = hosted.body.payload.redirect.split('/').pop();
    const page = await openHostedSession(h().orm.em.fork(), h().signer, nonce);
    assert.ok(page);
    const later = await call('POST', '/authorize/user', { token: client.token, body: { account_id: account } });
    const unopened = later.body.payload.redirect.split('/').pop();
    assert.equal(await use(account, old.access_token), 200);
    assert.equal(await use(account, page.accessToken, other.app.baseUrl), 200);

    const block = await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: account, block_capability: 'login', block_reason: 'compliance' },
    });
    assert.equal(block.status, 200, block.text);
    assert.equal(await use(account, old.access_token), 403, 'while blocked: the blocked-account answer');
    const unblock = await call('DELETE', `/v2/block/${account}/capability/login`, { token: operator.token });
    assert.equal(unblock.status, 200, unblock.text);

    for (const token of [old.access_token, page.accessToken]) {
      for (const baseUrl of [h().baseUrl, other.app.baseUrl]) {
        const res = await call('GET', `/v1/${account}/payment_methods`, { token, baseUrl });
        assert.equal(res.status, 401, `${baseUrl}: ${res.text}`);
        assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
      }
    }
    assert.equal((await refresh(old.refresh_token)).body.error, 'invalid_grant');
    // A link made before the block, not yet opened, opens nothing after the unblock either.
    assert.equal(await openHostedSession(h().orm.em.fork(), h().signer, unopened), null);
    const fresh = await session(account);
    assert.equal(await use(account, fresh.access_token), 200);
    assert.equal(await use(account, fresh.access_token, other.app.baseUrl), 200);
    // Issued after the latest login block: its refresh token and a new link work.
    assert.ok((await refresh(fresh.refresh_token)).body.access_token);
    const after = await call('POST', '/authorize/user', { token: client.token, body: { account_id: account } });
    assert.ok(await openHostedSession(h().orm.em.fork(), h().signer, after.body.payload.redirect.split('/').pop()));
  });
});

/**
 * Whoever holds a signing key's secret (it is in PostgreSQL) can forge tokens: none may live
 * longer than Holdfast issues tokens for, so none outlives its key's verification window.
 */
describe('tokens forged with a real signing key', () => {
  let client: TestClient;
  let account: string;
  let integratorId: string;
  let key: { id: string; secret: Uint8Array };
  before(async () => {
    client = await newClient();
    account = (await register(client)).account_id;
    const db = h().orm.em.fork();
    integratorId = (await db.execute('select integrator_id from client where id = ?', [client.clientId]))[0].integrator_id;
    const kid = JSON.parse(Buffer.from(client.token.split('.')[0], 'base64url').toString()).kid as string;
    const [row] = await db.execute<Array<{ secret: string }>>('select secret from signing_key where id = ?', [kid]);
    key = { id: kid, secret: Buffer.from(row.secret, 'base64url') };
  });

  /** An operator client token for `client`, signed with the real key, with these times (s since the epoch). */
  const forge = (times: { iat?: number; exp: number }) => {
    const jwt = new SignJWT({ int: integratorId, scope: 'read_accounts search_accounts', op: true, unb: true })
      .setProtectedHeader({ alg: 'HS256', kid: key.id, typ: 'JWT' })
      .setIssuer('holdfast')
      .setAudience('holdfast-api')
      .setSubject(client.clientId)
      .setExpirationTime(times.exp);
    if (times.iat !== undefined) jwt.setIssuedAt(times.iat);
    return jwt.sign(key.secret);
  };
  const read = async (token: string) => call('GET', `/v1/user-info/${account}`, { token });

  it('one with the times Holdfast issues is accepted (the forgery itself is sound)', async () => {
    const now = Math.floor(Date.now() / 1000);
    const res = await read(await forge({ iat: now, exp: now + 3600 }));
    assert.equal(res.status, 200, res.text);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const refused: Array<[string, () => { iat?: number; exp: number }]> = [
    ['one that lives ten years', () => ({ iat: now(), exp: now() + 10 * 365 * 86_400 })],
    ['one that lives two hours, issued 90 minutes ago', () => ({ iat: now() - 5400, exp: now() + 1800 })],
    ['one issued ten minutes in the future', () => ({ iat: now() + 600, exp: now() + 600 + 3600 })],
    ['one without iat', () => ({ exp: now() + 1800 })],
  ];
  for (const [what, times] of refused) {
    it(`${what} is refused`, async () => {
      const token = await forge(times());
      for (let i = 0; i < 2; i += 1) {
        const res = await read(token);
        assert.equal(res.status, 401, `attempt ${i + 1}: ${res.text}`);
        assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
      }
    });
  }
});
