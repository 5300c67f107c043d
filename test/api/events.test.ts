import assert from 'node:assert/strict';
import { call, h, newClient, register, type TestClient } from '../support/harness.js';
import { startReceiver, type Received, type Receiver } from '../support/receiver.js';

type Event = { id: string; type: string; created: string; account_id: string | null; payload: Record<string, unknown> };

async function subscribe(client: TestClient, url: string, events: string[]) {
  const res = await call('POST', '/v2/webhooks', { token: client.token, body: { url, events } });
  assert.equal(res.status, 201, res.text);
  return res.body.payload as { id: string };
}

async function events(client: TestClient, query = ''): Promise<{ total: number; events: Event[] }> {
  const res = await call('GET', `/v2/events${query}`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return res.body.payload;
}

/** The event as the API shows it, once every delivery of it has finished. */
async function settledEvent(client: TestClient, eventId: string, deliveries: number) {
  for (let i = 0; ; i++) {
    const res = await call('GET', `/v2/events/${eventId}`, { token: client.token });
    assert.equal(res.status, 200, res.text);
    const done = res.body.payload.deliveries.filter((d: { status: string }) => d.status !== 'pending');
    if (done.length === deliveries || i === 100) return res.body.payload;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const ofEvent = (eventId: string) => (got: Received[]) => got.filter((x) => x.headers['webhook-id'] === eventId);

describe('events API', function () {
  this.timeout(30_000);
  let client: TestClient;
  let other: TestClient;
  let r1: Receiver;
  let r2: Receiver;
  let both: { id: string };
  let registrationsOnly: { id: string };
  const accounts: string[] = [];
  /** The integrator's events, oldest first: three registrations, then a block of the second account. */
  let known: Event[];

  before(async () => {
    client = await newClient();
    other = await newClient();
    r1 = await startReceiver();
    r2 = await startReceiver();
    // The first attempt of each event at r1 fails: an event's view then shows a failed attempt and
    // the retry, whichever event's delivery reaches r1 first.
    const attempted = new Set<unknown>();
    r1.respond = (req) => {
      const id = req.headers['webhook-id'];
      if (attempted.has(id)) return 200;
      attempted.add(id);
      return 503;
    };
    both = await subscribe(client, r1.url, ['register-account-completed', 'account-block-unblock-webhook']);
    registrationsOnly = await subscribe(client, r2.url, ['register-account-completed']);
    for (let i = 0; i < 3; i++) accounts.push((await register(client)).account_id);
    const blocked = await call('POST', '/v2/block', {
      token: client.token,
      body: { account_id: accounts[1], block_capability: 'login', block_reason: 'account_close' },
    });
    assert.equal(blocked.status, 200, blocked.text);
    await r1.until((got) => new Set(got.filter((x) => x.json).map((x) => x.headers['webhook-id'])).size === 4);
    await r2.until((got) => got.length === 3);
    known = (await events(client, '?sort=asc')).events;
  });

  after(async () => {
    await r1.close();
    await r2.close();
  });

  it('lists the integrator’s events newest first, each with the body its deliveries carried', async () => {
    const list = await events(client);
    assert.equal(list.total, 4);
    assert.deepEqual(
      list.events.map((e) => [e.type, e.account_id]),
      [
        ['account-block-unblock-webhook', accounts[1]],
        ['register-account-completed', accounts[2]],
        ['register-account-completed', accounts[1]],
        ['register-account-completed', accounts[0]],
      ],
    );
    assert.deepEqual(list.events, [...known].reverse(), 'sort=asc is the same events, oldest first');
    for (const event of list.events) {
      const delivered = ofEvent(event.id)(r1.received).at(-1)!;
      assert.deepEqual(event.payload, delivered.json, 'payload is the delivery body');
      assert.equal(event.created, delivered.json.created);
    }
  });

  it('pages with limit and offset, total counting every match', async () => {
    const first = await events(client, '?limit=3');
    const second = await events(client, '?limit=3&offset=3');
    assert.deepEqual([first.total, second.total], [4, 4]);
    assert.deepEqual(
      [...first.events, ...second.events].map((e) => e.id),
      [...known].reverse().map((e) => e.id),
    );
    const past = await events(client, '?offset=10');
    assert.deepEqual(past, { total: 4, events: [] });
    const ascending = await events(client, '?sort=asc&limit=2&offset=1');
    assert.deepEqual(
      ascending.events.map((e) => e.id),
      known.slice(1, 3).map((e) => e.id),
    );
  });

  it('filters by type, account and a creation-time range (after inclusive, before exclusive)', async () => {
    const blocks = await events(client, '?type=account-block-unblock-webhook');
    assert.deepEqual(
      blocks.events.map((e) => e.id),
      [known[3].id],
    );
    assert.equal(blocks.total, 1);
    const second = await events(client, `?account_id=${accounts[1]}&sort=asc`);
    assert.deepEqual(
      second.events.map((e) => e.id),
      [known[1].id, known[3].id],
    );
    const both = await events(client, `?account_id=${accounts[1]}&type=register-account-completed`);
    assert.deepEqual(
      both.events.map((e) => e.id),
      [known[1].id],
    );
    const after = await events(client, `?created_after=${encodeURIComponent(known[1].created)}&sort=asc`);
    assert.deepEqual(
      after.events.map((e) => e.id),
      known.slice(1).map((e) => e.id),
    );
    const window = await events(
      client,
      `?created_after=${encodeURIComponent(known[1].created)}&created_before=${encodeURIComponent(known[3].created)}&sort=asc`,
    );
    assert.deepEqual(
      window.events.map((e) => e.id),
      [known[1].id, known[2].id],
    );
    assert.equal((await events(client, `?account_id=${accounts[0]}&type=account-block-unblock-webhook`)).total, 0);
  });

  it('refuses bad filters and pages, naming the parameter', async () => {
    for (const [query, field] of [
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?offset=-1', 'offset'],
      ['?sort=newest', 'sort'],
      ['?type=payment-made', 'type'],
      ['?created_after=yesterday', 'created_after'],
      ['?created_before=2026-11-26', 'created_before'],
      ['?page=2', 'page'],
    ]) {
      const res = await call('GET', `/v2/events${query}`, { token: client.token });
      assert.equal(res.status, 400, query);
      assert.ok(res.body.payload.errors[field], `${query}: ${res.text}`);
    }
  });

  it('lists only the last 30 days; an older event kept for its delivery is still readable by id', async () => {
    const old = known[0];
    const em = h().orm.em.fork();
    const [{ created_at: created }] = await em.execute<Array<{ created_at: Date }>>('select created_at from outbox where id = ?', [old.id]);
    await em.execute(`update outbox set created_at = now() - interval '30 days 1 minute' where id = ?`, [old.id]);
    try {
      const list = await events(client);
      assert.equal(list.total, 3);
      assert.ok(!list.events.some((e) => e.id === old.id));
      const byAccount = await events(client, `?account_id=${accounts[0]}`);
      assert.deepEqual(byAccount, { total: 0, events: [] });
      assert.equal((await call('GET', `/v2/events/${old.id}`, { token: client.token })).status, 200);
    } finally {
      await em.execute('update outbox set created_at = ? where id = ?', [created, old.id]);
    }
  });

  it('shows an event with each delivery and its attempts', async () => {
    const event = await settledEvent(client, known[0].id, 2);
    const { deliveries, ...rest } = event;
    assert.deepEqual(rest, known[0]);
    const byEndpoint = new Map(deliveries.map((d: { endpoint_id: string }) => [d.endpoint_id, d]));
    const first = byEndpoint.get(both.id) as any;
    assert.equal(first.status, 'delivered');
    assert.equal(first.next_attempt_at, null);
    assert.ok(first.finished);
    assert.deepEqual(
      first.attempts.map((a: any) => [a.status_code, a.ok, a.error, a.event_id, a.event_name]),
      [
        [503, false, 'HTTP 503', known[0].id, 'register-account-completed'],
        [200, true, null, known[0].id, 'register-account-completed'],
      ],
    );
    assert.ok(first.attempts[0].attempted_at <= first.attempts[1].attempted_at);
    const second = byEndpoint.get(registrationsOnly.id) as any;
    assert.deepEqual(
      second.attempts.map((a: any) => a.status_code),
      [200],
    );
    const block = await settledEvent(client, known[3].id, 1);
    assert.deepEqual(
      block.deliveries.map((d: any) => d.endpoint_id),
      [both.id],
      'only subscribed endpoints get an event',
    );
  });

  it('resends an event to one endpoint: the same id and body, only there', async () => {
    const event = known[2];
    await settledEvent(client, event.id, 2);
    const before = ofEvent(event.id)(r2.received).length;
    const firstBefore = (await settledEvent(client, event.id, 2)).deliveries.find((d: any) => d.endpoint_id === both.id);
    const res = await call('POST', `/v2/events/${event.id}/resend`, { token: client.token, body: { endpoint_id: registrationsOnly.id } });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.headers.get('location'), `/v2/events/${event.id}`);
    assert.equal(res.body.payload.event_id, event.id);
    assert.deepEqual(
      res.body.payload.resent.map((d: any) => d.endpoint_id),
      [registrationsOnly.id],
    );
    await r2.until((got) => ofEvent(event.id)(got).length === before + 1);
    const again = ofEvent(event.id)(r2.received).at(-1)!;
    assert.deepEqual(again.json, event.payload, 'a resend carries the same body');
    const after = await settledEvent(client, event.id, 2);
    const second = after.deliveries.find((d: any) => d.endpoint_id === registrationsOnly.id);
    assert.equal(second.attempts.length, 2);
    assert.deepEqual(
      after.deliveries.find((d: any) => d.endpoint_id === both.id),
      firstBefore,
      'the other endpoint’s delivery is untouched',
    );
  });

  it('resends an event to every subscribed endpoint, once per Idempotency-Key', async () => {
    const event = known[1];
    await settledEvent(client, event.id, 2);
    const seen = [ofEvent(event.id)(r1.received).length, ofEvent(event.id)(r2.received).length];
    const key = `resend-${event.id}`;
    const res = await call('POST', `/v2/events/${event.id}/resend`, { token: client.token, headers: { 'idempotency-key': key } });
    assert.equal(res.status, 202, res.text);
    assert.deepEqual(res.body.payload.resent.map((d: any) => d.endpoint_id).sort(), [both.id, registrationsOnly.id].sort());
    await r1.until((got) => ofEvent(event.id)(got).length === seen[0] + 1);
    await r2.until((got) => ofEvent(event.id)(got).length === seen[1] + 1);
    for (const r of [r1, r2]) assert.deepEqual(ofEvent(event.id)(r.received).at(-1)!.json, event.payload);

    const settled = await settledEvent(client, event.id, 2);
    const replayed = await call('POST', `/v2/events/${event.id}/resend`, { token: client.token, headers: { 'idempotency-key': key } });
    assert.equal(replayed.status, 202);
    assert.equal(replayed.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(replayed.body, res.body);
    assert.deepEqual(await settledEvent(client, event.id, 2), settled, 'a replayed request sends nothing');
  });

  it('refuses an endpoint not subscribed to the event’s type (400) and a disabled one (409)', async () => {
    const block = known[3];
    const unsubscribed = await call('POST', `/v2/events/${block.id}/resend`, {
      token: client.token,
      body: { endpoint_id: registrationsOnly.id },
    });
    assert.equal(unsubscribed.status, 400, unsubscribed.text);
    assert.deepEqual(unsubscribed.body.payload.errors, { endpoint_id: ['NOT_SUBSCRIBED'] });

    const em = h().orm.em.fork();
    await em.execute(`update webhook_endpoint set status = 'disabled', disabled_reason = 'test' where id = ?`, [registrationsOnly.id]);
    try {
      const disabled = await call('POST', `/v2/events/${known[0].id}/resend`, {
        token: client.token,
        body: { endpoint_id: registrationsOnly.id },
      });
      assert.equal(disabled.status, 409, disabled.text);
      assert.deepEqual(disabled.body.codes, ['WEBHOOK_DISABLED']);
      await settledEvent(client, known[0].id, 2);
      const toAll = await call('POST', `/v2/events/${known[0].id}/resend`, { token: client.token });
      assert.equal(toAll.status, 202);
      assert.deepEqual(
        toAll.body.payload.resent.map((d: any) => d.endpoint_id),
        [both.id],
        'to every endpoint skips a disabled one',
      );
      await settledEvent(client, known[0].id, 2);
    } finally {
      await em.execute(`update webhook_endpoint set status = 'enabled', disabled_reason = null where id = ?`, [registrationsOnly.id]);
    }
  });

  it('keeps another integrator’s events and endpoints as absent as missing ones', async () => {
    assert.deepEqual(await events(other), { total: 0, events: [] });
    assert.deepEqual(await events(other, `?account_id=${accounts[0]}`), { total: 0, events: [] });
    const foreignEndpoint = await subscribe(other, r2.url, ['register-account-completed']);
    const sent = r2.received.length;
    for (const [method, path, body] of [
      ['GET', `/v2/events/${known[0].id}`, undefined],
      ['POST', `/v2/events/${known[0].id}/resend`, undefined],
      ['POST', `/v2/events/${known[0].id}/resend`, { endpoint_id: foreignEndpoint.id }],
    ] as const) {
      const foreign = await call(method, path, { token: other.token, body });
      const missing = await call(method, path.replace(known[0].id, 'evt_00000000000000000000000000'), { token: other.token, body });
      assert.equal(foreign.status, 404, foreign.text);
      assert.deepEqual(foreign.body, missing.body);
      assert.deepEqual(foreign.body.codes, ['EVENT_GET_ERROR']);
    }
    const toForeignEndpoint = await call('POST', `/v2/events/${known[0].id}/resend`, {
      token: client.token,
      body: { endpoint_id: foreignEndpoint.id },
    });
    assert.equal(toForeignEndpoint.status, 404, toForeignEndpoint.text);
    assert.deepEqual(toForeignEndpoint.body.codes, ['WEBHOOK_GET_ERROR']);
    const event = await call('GET', `/v2/events/${known[0].id}`, { token: client.token });
    assert.ok(!event.body.payload.deliveries.some((d: any) => d.endpoint_id === foreignEndpoint.id));
    assert.equal(r2.received.length, sent, 'nothing went to the other integrator’s endpoint');
  });
});
