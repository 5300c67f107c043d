import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { call, h, holdfastCli, newClient, register, TEST_QUEUE_PREFIX, type TestClient } from '../support/harness.js';
import { freePort, startReceiver, type Received, type Receiver } from '../support/receiver.js';

/**
 * Standard Webhooks verification written from the scheme's text, independently of Holdfast's
 * signer: the signed content is `id.timestamp.body`, the key the base64 after `whsec_`, and any
 * of the space-separated `v1,` signatures may match.
 */
function verify(secret: string, request: Received, toleranceSeconds = 300): boolean {
  const id = String(request.headers['webhook-id']);
  const timestamp = Number(request.headers['webhook-timestamp']);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSeconds) return false;
  const key = Buffer.from(secret.split('_')[1], 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest();
  return String(request.headers['webhook-signature'])
    .split(' ')
    .some((part) => {
      const [version, signature] = part.split(',');
      const given = Buffer.from(signature ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

async function subscribe(client: TestClient, url: string, events = ['register-account-completed']) {
  const res = await call('POST', '/v2/webhooks', { token: client.token, body: { url, events, description: 'test receiver' } });
  assert.equal(res.status, 201, res.text);
  return res.body.payload as { id: string; secret: string; status: string };
}

async function deliveryState(eventId: string, endpointId: string) {
  const [row] = await h()
    .orm.em.fork()
    .execute<Array<{ state: string; attempts: number }>>(
      'select state, attempts from webhook_delivery where event_id = ? and endpoint_id = ?',
      [eventId, endpointId],
    );
  return row;
}

/** The delivery's row once it reaches `state` (the receiver can get a request before its worker records the answer), or as it is after 2.5 s. */
async function deliveryReaching(state: string, eventId: string, endpointId: string) {
  for (let i = 0; i < 50 && (await deliveryState(eventId, endpointId)).state !== state; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return deliveryState(eventId, endpointId);
}

describe('webhook delivery', function () {
  this.timeout(30_000);
  const receivers: Receiver[] = [];
  const receiver = async (port?: number) => {
    const r = await startReceiver(port);
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('delivers a signed event that an independent verifier accepts, with the documented body and headers', async () => {
    const client = await newClient();
    const r = await receiver();
    const endpoint = await subscribe(client, r.url);
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    const account = await register(client);
    await r.until((got) => got.length >= 1);
    const [request] = r.received;
    assert.ok(verify(endpoint.secret, request), 'the signature verifies');
    assert.ok(!verify(endpoint.secret, { ...request, body: request.body.replace('register', 'Register') }), 'a changed body does not');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.match(String(request.headers['user-agent']), /^Holdfast-Webhooks\//);
    assert.deepEqual(Object.keys(request.json).sort(), ['created', 'event_name', 'id', 'integrator', 'message']);
    assert.equal(request.json.event_name, 'register-account-completed');
    assert.equal(request.json.id, request.headers['webhook-id']);
    assert.equal(request.json.integrator, client.integrator);
    assert.equal(request.json.message.account_id, account.account_id);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(r.received.length, 1, 'acknowledged once, sent once');
    assert.equal((await deliveryReaching('delivered', request.json.id, endpoint.id)).state, 'delivered');
  });

  it('sends escrow updates with the escrow as the call answered it, only to endpoints subscribed to them', async () => {
    const client = await newClient();
    const escrows = await receiver();
    const accounts = await receiver();
    await subscribe(client, escrows.url, ['escrow-transaction-update', 'invoice-completed']);
    await subscribe(client, accounts.url, ['register-account-completed']);
    const buyer = await register(client);
    const wallet = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload[0].id;
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: wallet, amount: 0 }],
        line_items: [{ amount: 10, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const paid = await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token });
    await escrows.until((got) => got.length >= 2);
    const update = escrows.received.find((x) => x.json.event_name === 'escrow-transaction-update')!;
    assert.deepEqual(update.json.message, paid.body.payload);
    assert.equal(escrows.received.find((x) => x.json.event_name === 'invoice-completed')!.json.message.state, 'FAILED');
    await accounts.until((got) => got.length >= 1);
    assert.ok(accounts.received.every((x) => x.json.event_name === 'register-account-completed'));
  });

  it("never sends one integrator's events to another integrator's endpoint", async () => {
    const a = await newClient();
    const b = await newClient();
    const ra = await receiver();
    const rb = await receiver();
    await subscribe(a, ra.url);
    await subscribe(b, rb.url);
    const mine = await register(a);
    await ra.until((got) => got.length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(rb.received.length, 0);
    assert.equal(ra.received[0].json.message.account_id, mine.account_id);
  });

  it('retries a flaky receiver until it recovers; the same webhook-id each time; attempts are visible', async () => {
    const client = await newClient();
    const r = await receiver();
    r.respond = (_req, n) => (n < 2 ? 503 : 200);
    const endpoint = await subscribe(client, r.url);
    await register(client);
    await r.until((got) => got.length >= 3);
    const ids = new Set(r.received.map((x) => x.headers['webhook-id']));
    assert.equal(ids.size, 1, 'one event, retried');
    assert.ok(r.received.every((x) => verify(endpoint.secret, x)));
    assert.ok(r.received[1].at - r.received[0].at >= 25, 'a retry waits (backoff)');
    const eventId = String(r.received[0].headers['webhook-id']);
    assert.deepEqual(await deliveryReaching('delivered', eventId, endpoint.id), { state: 'delivered', attempts: 3 });
    const detail = await call('GET', `/v2/webhooks/${endpoint.id}`, { token: client.token });
    assert.deepEqual(
      detail.body.payload.recent_attempts.map((a: any) => [a.status_code, a.ok, a.error]),
      [
        [200, true, null],
        [503, false, 'HTTP 503'],
        [503, false, 'HTTP 503'],
      ],
    );
    assert.ok(detail.body.payload.recent_attempts.every((a: any) => a.event_id === eventId && Number.isInteger(a.latency_ms)));
  });

  it('delivers everything once a receiver that was down comes up, nothing twice', async () => {
    const client = await newClient();
    const port = await freePort();
    await subscribe(client, `http://127.0.0.1:${port}/hooks`);
    const accounts = await Promise.all(Array.from({ length: 8 }, () => register(client)));
    await new Promise((resolve) => setTimeout(resolve, 60));
    const r = await receiver(port);
    await r.until((got) => new Set(got.map((x) => x.json.message.account_id)).size >= 8);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = r.received.map((x) => String(x.headers['webhook-id']));
    assert.equal(new Set(ids).size, ids.length, 'a healthy receiver gets each event once');
    assert.deepEqual(new Set(r.received.map((x) => x.json.message.account_id)), new Set(accounts.map((a) => a.account_id)));
  });

  it('dead-letters a delivery after its last attempt, keeps the failed job, and replays it on demand', async () => {
    const client = await newClient();
    const r = await receiver();
    r.respond = () => 500;
    const endpoint = await subscribe(client, r.url);
    await register(client);
    await r.until((got) => got.length >= 4);
    const eventId = String(r.received[0].headers['webhook-id']);
    assert.deepEqual(await deliveryReaching('dead', eventId, endpoint.id), { state: 'dead', attempts: 4 });
    const job = await h().workers.webhookBus.queue.getJob(`${eventId}.${endpoint.id}`);
    assert.equal(await job!.getState(), 'failed', 'the dead letter is the failed job the dashboard shows');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(r.received.length, 4, 'no attempt after the last');

    r.respond = () => 204;
    const replay = await holdfastCli(['webhooks', 'replay', '--event', eventId, '--json'], {
      REDIS_URL: h().redisUrl,
      QUEUE_PREFIX: TEST_QUEUE_PREFIX,
    });
    assert.equal(replay.status, 0, replay.stderr);
    assert.deepEqual(JSON.parse(replay.stdout), { replayed: 1 });
    await r.until((got) => got.length >= 5);
    assert.equal(r.received[4].headers['webhook-id'], eventId, 'a replay carries the same webhook-id');
    assert.equal((await deliveryReaching('delivered', eventId, endpoint.id)).state, 'delivered');
  });

  it('disables an endpoint failing for 5 days; its owner re-enables it and replays what it missed', async () => {
    const client = await newClient();
    const r = await receiver();
    r.respond = () => 500;
    const endpoint = await subscribe(client, r.url);
    await h()
      .orm.em.fork()
      .execute(`update webhook_endpoint set failing_since = now() - interval '5 days 1 minute' where id = ?`, [endpoint.id]);
    const since = new Date(Date.now() - 1000).toISOString();
    await register(client);
    await r.until((got) => got.length >= 1);
    let status = 'enabled';
    for (let i = 0; i < 50 && status === 'enabled'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await call('GET', `/v2/webhooks/${endpoint.id}`, { token: client.token })).body.payload.status;
    }
    const disabled = (await call('GET', `/v2/webhooks/${endpoint.id}`, { token: client.token })).body.payload;
    assert.equal(disabled.status, 'disabled');
    assert.match(disabled.disabled_reason, /failing without a success since/);
    await register(client);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(r.received.length, 1, 'a disabled endpoint gets nothing');

    r.respond = () => 200;
    const enabled = await call('POST', `/v2/webhooks/${endpoint.id}/enable`, { token: client.token });
    assert.equal(enabled.body.payload.status, 'enabled');
    const replay = await holdfastCli(['webhooks', 'replay', '--endpoint', endpoint.id, '--since', since], {
      REDIS_URL: h().redisUrl,
      QUEUE_PREFIX: TEST_QUEUE_PREFIX,
    });
    assert.equal(replay.status, 0, replay.stderr);
    assert.match(replay.stdout, /re-sending 2 deliveries/);
    await r.until((got) => got.filter((x) => x.headers['webhook-signature']).length >= 3);
  });

  it('signs with both secrets for a day after a rotation, the new one first', async () => {
    const client = await newClient();
    const r = await receiver();
    const endpoint = await subscribe(client, r.url);
    const rotated = await call('POST', `/v2/webhooks/${endpoint.id}/rotate-secret`, { token: client.token });
    assert.equal(rotated.status, 200, rotated.text);
    const fresh = rotated.body.payload.secret;
    assert.notEqual(fresh, endpoint.secret);
    await register(client);
    await r.until((got) => got.length >= 1);
    const [request] = r.received;
    assert.equal(String(request.headers['webhook-signature']).split(' ').length, 2);
    assert.ok(verify(fresh, request) && verify(endpoint.secret, request));
    const listed = await call('GET', '/v2/webhooks', { token: client.token });
    assert.ok(
      listed.body.payload.every((e: any) => !('secret' in e)),
      'secrets are never listed',
    );
  });

  it('stops delivering to a deleted endpoint', async () => {
    const client = await newClient();
    const r = await receiver();
    const endpoint = await subscribe(client, r.url);
    const deleted = await call('DELETE', `/v2/webhooks/${endpoint.id}`, { token: client.token });
    assert.equal(deleted.body.payload.status, 'deleted');
    await register(client);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(r.received.length, 0);
    assert.equal((await call('GET', `/v2/webhooks/${endpoint.id}`, { token: client.token })).status, 404);
  });

  it('refuses unknown event names and bad URLs, naming the field', async () => {
    const client = await newClient();
    const bad = await call('POST', '/v2/webhooks', { token: client.token, body: { url: 'ftp://x', events: ['nope'] } });
    assert.equal(bad.status, 400);
    assert.deepEqual(Object.keys(bad.body.payload.errors).sort(), ['events.0']);
    const url = await call('POST', '/v2/webhooks', { token: client.token, body: { url: 'ftp://x', events: ['invoice-completed'] } });
    assert.deepEqual(url.body.payload.errors, { url: ['INVALID_URL'] });
  });
});

describe('webhook history retention', () => {
  it('drops finished deliveries, their attempts and their events after 30 days, never a pending one', async () => {
    const { purgeWebhookHistory } = await import('../../src/webhooks/relay.service.js');
    const client = await newClient();
    const r = await startReceiver();
    try {
      const endpoint = await subscribe(client, r.url);
      await register(client);
      await register(client);
      await r.until((got) => got.length >= 2);
      const db = h().orm.em.fork();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const ids = r.received.map((x) => String(x.headers['webhook-id']));
      // One delivery finished 31 days ago; the other is pending again (a retry not yet due).
      await db.execute(`update webhook_delivery set finished_at = now() - interval '31 days' where event_id = ?`, [ids[0]]);
      await db.execute(`update webhook_attempt set attempted_at = now() - interval '31 days' where event_id in (?, ?)`, ids);
      await db.execute(`update outbox set relayed_at = now() - interval '31 days' where id in (?, ?)`, ids);
      await db.execute(
        `update webhook_delivery set state = 'pending', finished_at = null, next_attempt_at = now() + interval '1 day' where event_id = ?`,
        [ids[1]],
      );
      assert.ok((await purgeWebhookHistory(db)) >= 3);
      const left = async (table: string, column: string, id: string) =>
        Number((await db.execute<Array<{ n: string }>>(`select count(*) as n from ${table} where ${column} = ?`, [id]))[0].n);
      assert.deepEqual([await left('webhook_delivery', 'event_id', ids[0]), await left('outbox', 'id', ids[0])], [0, 0]);
      assert.deepEqual(
        [await left('webhook_delivery', 'event_id', ids[1]), await left('outbox', 'id', ids[1])],
        [1, 1],
        'a pending delivery and its event stay',
      );
      assert.equal(endpoint.status, 'enabled');
    } finally {
      await r.close();
    }
  });
});
