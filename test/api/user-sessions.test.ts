import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { consumeSessionNonce } from '../../src/sessions/user-session.service.js';
import { call, h, newClient, register, type TestClient } from '../support/harness.js';

const form = (params: Record<string, string>) => ({
  rawBody: new URLSearchParams(params).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('user sessions', () => {
  let client: TestClient;
  let operator: TestClient;
  before(async () => {
    client = await newClient();
    operator = await newClient({ integrator: client.integrator, isOperator: true });
  });

  const session = async (accountId: string) => {
    const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
    assert.equal(res.status, 200, res.text);
    return res.body.payload.token as { access_token: string; token_type: string; refresh_token: string; expiry: string };
  };
  const refresh = (refreshToken: string, extra: Record<string, string> = {}) =>
    call('POST', '/token', form({ grant_type: 'refresh_token', refresh_token: refreshToken, ...extra }));

  it('answers a redirect to {web_url}/ui/appauth/<nonce>; the nonce is stored hashed and works once', async () => {
    const account = await register(client);
    const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: account.account_id } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const match = /^http:\/\/localhost:3000\/ui\/appauth\/([A-Za-z0-9_-]{43})$/.exec(res.body.payload.redirect);
    assert.ok(match, res.body.payload.redirect);
    const nonce = match[1];
    const rows = await h()
      .orm.em.fork()
      .execute<Array<{ nonce_hash: string; expires_at: Date }>>(
        'select nonce_hash, expires_at from user_session_nonce where account_id = ?',
        [account.account_id],
      );
    assert.equal(rows[0].nonce_hash, createHash('sha256').update(nonce).digest('hex'), 'only the hash is stored');
    const hours = (new Date(rows[0].expires_at).getTime() - Date.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, `expires in ${hours} h`);
    const used = await consumeSessionNonce(h().orm.em.fork(), nonce);
    assert.equal(used?.accountId, account.account_id);
    assert.equal(await consumeSessionNonce(h().orm.em.fork(), nonce), null, 'single use');
  });

  it('refuses an expired nonce', async () => {
    const account = await register(client);
    const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: account.account_id } });
    const nonce = res.body.payload.redirect.split('/').pop();
    await h()
      .orm.em.fork()
      .execute(`update user_session_nonce set expires_at = now() - interval '1 second' where account_id = ?`, [account.account_id]);
    assert.equal(await consumeSessionNonce(h().orm.em.fork(), nonce), null);
  });

  it('issues a user password token that acts for its one account only', async () => {
    const account = await register(client);
    const other = await register(client);
    const token = await session(account.account_id);
    assert.equal(token.token_type, 'Bearer');
    assert.match(token.refresh_token, /^hfr_/);
    const minutes = (Date.parse(token.expiry) - Date.now()) / 60_000;
    assert.ok(minutes > 59 && minutes <= 60, `expires in ${minutes} min`);

    const own = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: token.access_token });
    assert.equal(own.status, 200, own.text);
    const card = await call('POST', `/v1/${account.account_id}/payment_methods`, {
      token: token.access_token,
      body: {
        type: 'card',
        card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 1, cvc: '123' },
      },
    });
    assert.equal(card.status, 201, card.text);
    const foreign = await call('GET', `/v1/${other.account_id}/payment_methods`, { token: token.access_token });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body.codes, ['ACCOUNT_GET_ERROR']);
    // Operations that do not list user_auth refuse it, whatever they are.
    for (const [method, path] of [
      ['GET', `/v1/user-info/${account.account_id}`],
      ['GET', `/v1/${account.account_id}/user-info`],
      ['POST', '/v2/escrow'],
    ]) {
      const res = await call(method, path, { token: token.access_token, body: method === 'POST' ? {} : undefined });
      assert.equal(res.status, 401, `${method} ${path}: ${res.text}`);
      assert.match(res.headers.get('www-authenticate') ?? '', /invalid_token/);
    }
  });

  it('refreshes with rotation: the new pair works, the spent refresh token is refused and revokes the session', async () => {
    const account = await register(client);
    const first = await session(account.account_id);
    const second = await refresh(first.refresh_token);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.headers.get('cache-control'), 'no-store');
    assert.notEqual(second.body.refresh_token, first.refresh_token);
    assert.equal((await call('GET', `/v1/${account.account_id}/payment_methods`, { token: second.body.access_token })).status, 200);

    const replay = await refresh(first.refresh_token);
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.match(replay.body.error_description, /already used/);
    const afterReplay = await refresh(second.body.refresh_token);
    assert.equal(afterReplay.status, 400, 'the whole session is revoked once a spent token is replayed');
    assert.equal(afterReplay.body.error, 'invalid_grant');
  });

  it('refuses unknown and expired refresh tokens, and one presented by another client', async () => {
    const account = await register(client);
    assert.equal((await refresh('hfr_nope')).body.error, 'invalid_grant');
    assert.equal((await call('POST', '/token', form({ grant_type: 'refresh_token' }))).body.error, 'invalid_request');
    const token = await session(account.account_id);
    const stranger = await newClient();
    const wrong = await refresh(token.refresh_token, { client_id: stranger.clientId, client_secret: stranger.clientSecret });
    assert.equal(wrong.body.error, 'invalid_grant');
    const badSecret = await refresh(token.refresh_token, { client_id: client.clientId, client_secret: 'wrong' });
    assert.equal(badSecret.status, 401);
    assert.equal(badSecret.body.error, 'invalid_client');
    const right = await refresh(token.refresh_token, { client_id: client.clientId, client_secret: client.clientSecret });
    assert.equal(right.status, 200, right.text);

    const expiring = await session(account.account_id);
    await h()
      .orm.em.fork()
      .execute(`update refresh_token set expires_at = now() - interval '1 second' where token_hash = ?`, [
        createHash('sha256').update(expiring.refresh_token).digest('hex'),
      ]);
    const expired = await refresh(expiring.refresh_token);
    assert.equal(expired.body.error, 'invalid_grant');
    assert.match(expired.body.error_description, /expired/);
  });

  it('ends the sessions of an account whose login is blocked: its token answers 403 and its refresh token is refused', async () => {
    const account = await register(client);
    const token = await session(account.account_id);
    await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: account.account_id, block_capability: 'login', block_reason: 'compliance' },
    });
    const use = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: token.access_token });
    assert.equal(use.status, 403);
    assert.equal(use.body.payload, `Account ${account.account_id} is blocked.`);
    const refreshed = await refresh(token.refresh_token);
    assert.equal(refreshed.body.error, 'invalid_grant');
    // Unblocking does not bring the ended session back; a new one can be opened.
    await call('DELETE', `/v2/block/${account.account_id}/capability/login`, { token: operator.token });
    assert.equal((await refresh(token.refresh_token)).body.error, 'invalid_grant');
    assert.equal(
      (await call('GET', `/v1/${account.account_id}/payment_methods`, { token: (await session(account.account_id)).access_token })).status,
      200,
    );
  });

  it("never keeps a session's token for an Idempotency-Key replay: a retry opens a new session", async () => {
    const account = await register(client);
    const body = { account_id: account.account_id, return_token: true };
    const key = `session-${account.account_id}`;
    const first = await call('POST', '/authorize/user', { token: client.token, body, headers: { 'idempotency-key': key } });
    const again = await call('POST', '/authorize/user', { token: client.token, body, headers: { 'idempotency-key': key } });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.notEqual(again.body.payload.token.refresh_token, first.body.payload.token.refresh_token);
    const [stored] = await h()
      .orm.em.fork()
      .execute<Array<{ body: string }>>('select response_body::text as body from idempotency_key where key = ?', [key]);
    assert.ok(
      !stored.body.includes(first.body.payload.token.refresh_token) && !stored.body.includes(first.body.payload.token.access_token),
      stored.body,
    );
    assert.equal((await refresh(again.body.payload.token.refresh_token)).status, 200, "the replay's refresh token works");
  });

  it('answers 404 for an account of another integrator', async () => {
    const theirs = await register(await newClient());
    const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: theirs.account_id, return_token: true } });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
  });
});
