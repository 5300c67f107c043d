import assert from 'node:assert/strict';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';
import { party } from '../support/money.js';

async function accountsNamed(username: string): Promise<number> {
  const rows = await h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<{ n: string }>>('select count(*) as n from account where username = ?', [username]);
  return Number(rows[0].n);
}

describe('Idempotency-Key', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });
  const body = () => {
    const name = unique('idem');
    return { username: name, email: { address: `${name}@example.com` } };
  };

  it('replays the first response for the same key and body, with Idempotent-Replayed, creating one account', async () => {
    const key = unique('key-');
    const b = body();
    const first = await call('POST', '/register', { token: client.token, body: b, headers: { 'idempotency-key': key } });
    const second = await call('POST', '/register', { token: client.token, body: b, headers: { 'idempotency-key': key } });
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    assert.equal(await accountsNamed(b.username), 1);
  });

  it('treats the same JSON with keys in another order as the same request', async () => {
    const key = unique('key-');
    const b = body();
    await call('POST', '/register', { token: client.token, body: b, headers: { 'idempotency-key': key } });
    const reordered = { email: b.email, username: b.username };
    const again = await call('POST', '/register', { token: client.token, body: reordered, headers: { 'idempotency-key': key } });
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  it('replays an error response too (a 409 stays a 409)', async () => {
    const b = body();
    await call('POST', '/register', { token: client.token, body: b });
    const key = unique('key-');
    const first = await call('POST', '/register', { token: client.token, body: b, headers: { 'idempotency-key': key } });
    const second = await call('POST', '/register', { token: client.token, body: b, headers: { 'idempotency-key': key } });
    assert.equal(first.status, 409);
    assert.equal(second.status, 409);
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body', async () => {
    const key = unique('key-');
    await call('POST', '/register', { token: client.token, body: body(), headers: { 'idempotency-key': key } });
    const other = body();
    const res = await call('POST', '/register', { token: client.token, body: other, headers: { 'idempotency-key': key } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.codes, ['IDEMPOTENCY_KEY_REUSED']);
    assert.equal(await accountsNamed(other.username), 0);
  });

  it('treats a JSON null body and no body as the same request (null is no body)', async () => {
    const key = unique('key-');
    const first = await call('DELETE', '/v2/sandbox/clock', {
      token: client.token,
      rawBody: 'null',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
    });
    assert.equal(first.status, 200, first.text);
    const retry = await call('DELETE', '/v2/sandbox/clock', { token: client.token, headers: { 'idempotency-key': key } });
    assert.equal(retry.status, 200, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.body, first.body);
  });

  it('answers 422 for the same key on another path', async () => {
    const key = unique('key-');
    const reg = await call('POST', '/register', { token: client.token, body: body(), headers: { 'idempotency-key': key } });
    const res = await call('PUT', `/user-info/${reg.body.payload.account_id}`, {
      token: client.token,
      body: { full_name: 'X' },
      headers: { 'idempotency-key': key },
    });
    assert.equal(res.status, 422);
  });

  it('scopes keys to the client: another client may use the same key', async () => {
    const key = unique('key-');
    const other = await newClient();
    const a = await call('POST', '/register', { token: client.token, body: body(), headers: { 'idempotency-key': key } });
    const b = await call('POST', '/register', { token: other.token, body: body(), headers: { 'idempotency-key': key } });
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.notEqual(a.body.payload.account_id, b.body.payload.account_id);
    assert.equal(b.headers.get('idempotent-replayed'), null);
  });

  it("scopes a user password token's keys to its account: it is never handed what the server, or another user, stored under the key", async () => {
    const buyer = await party(client, true);
    const invoice = (
      await call('POST', '/v2/authorize/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          invoice_mechanism: 'api',
          line_items: [{ amount: 120, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      })
    ).body.payload;
    const key = `pay-${invoice.authorized_invoice_id}`;
    const pay = { payment_methods: [{ payment_method_id: buyer.card, amount: 0 }] };
    const server = await call('POST', `/v2/invoice/${invoice.authorized_invoice_id}/pay`, {
      token: client.token,
      body: pay,
      headers: { 'idempotency-key': key },
    });
    assert.equal(server.body.payload.state, 'SUCCESS', server.text);
    // Another user of the same integrator (its token comes from the same client) guesses the key.
    const stranger = await register(client);
    const token = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: stranger.account_id, return_token: true } })
    ).body.payload.token;
    const guessed = await call('POST', `/v2/invoice/${invoice.authorized_invoice_id}/pay`, {
      token: token.access_token,
      body: pay,
      headers: { 'idempotency-key': key },
    });
    assert.equal(guessed.status, 404, guessed.text);
    assert.equal(guessed.headers.get('idempotent-replayed'), null);
    // The buyer's own token may use the same key for itself.
    const own = invoice.password_token.access_token;
    const mine = await call('POST', `/v2/invoice/${invoice.authorized_invoice_id}/pay`, {
      token: own,
      body: pay,
      headers: { 'idempotency-key': key },
    });
    assert.deepEqual([mine.status, mine.body.payload.state, mine.headers.get('idempotent-replayed')], [200, 'SUCCESS', null]);
  });

  it('runs one of many concurrent requests with the same key; the others replay it or get 409 IDEMPOTENCY_KEY_IN_USE', async () => {
    const key = unique('key-');
    const b = body();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => call('POST', '/register', { token: client.token, body: b, headers: { 'idempotency-key': key } })),
    );
    assert.equal(await accountsNamed(b.username), 1);
    const fresh = results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
    assert.equal(fresh.length, 1);
    for (const r of results) {
      if (r === fresh[0]) continue;
      if (r.status === 409) assert.deepEqual(r.body.codes, ['IDEMPOTENCY_KEY_IN_USE']);
      else assert.deepEqual(r.body, fresh[0].body);
    }
  });

  it('lets a key be used again after its 24 hours', async () => {
    const key = unique('key-');
    await call('POST', '/register', { token: client.token, body: body(), headers: { 'idempotency-key': key } });
    await h()
      .orm.em.fork()
      .getConnection()
      .execute(`update idempotency_key set created_at = now() - interval '25 hours' where key = ?`, [key]);
    const again = await call('POST', '/register', { token: client.token, body: body(), headers: { 'idempotency-key': key } });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), null);
  });

  it('refuses a malformed key with 400 naming the header', async () => {
    const res = await call('POST', '/register', { token: client.token, body: body(), headers: { 'idempotency-key': 'x'.repeat(256) } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.payload.errors, { 'Idempotency-Key': ['TOO_LONG'] });
  });

  it('without a key, the same request runs again (and hits the duplicate rule)', async () => {
    const b = body();
    assert.equal((await call('POST', '/register', { token: client.token, body: b })).status, 200);
    assert.equal((await call('POST', '/register', { token: client.token, body: b })).status, 409);
  });
});
