import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Queue } from 'bullmq';
import Stripe from 'stripe';
import { db } from '../../src/db/sql.js';
import { AppError } from '../../src/errors.js';
import { buildApp } from '../../src/http/app.js';
import { paypalWebhookVerifier } from '../../src/provider-events/paypal-webhook.js';
import { QueueName } from '../../src/queues/names.js';
import { providerEventHandlers } from '../../src/provider-events/provider-event-handlers.js';
import { createLogger } from '../../src/runtime/logger.js';
import { TEST_QUEUE_PREFIX, h, holdfastCli, unique } from '../support/harness.js';

const SECRET = 'whsec_testProviderInbox0123456789';
const WEBHOOK_ID = 'WH7TESTINBOX01';
const GOOD_SIG = 'c2lnbmVkLWJ5LXBheXBhbA==';
/** The stand-in answers 503 to this signature, as PayPal down would. */
const DOWN_SIG = 'cGF5cGFsLWlzLWRvd24=';

interface ProviderEventRow {
  id: string;
  provider: string;
  provider_event_id: string;
  type: string;
  payload: Record<string, unknown>;
  command_id: string | null;
  outcome: string | null;
  outcome_reason: string | null;
}

/** A stand-in of PayPal's verify-webhook-signature: SUCCESS for our webhook id and the one good signature. */
function paypalStandIn(): Promise<{ url: string; requests: Array<Record<string, unknown>>; rawBodies: string[]; close(): Promise<void> }> {
  const requests: Array<Record<string, unknown>> = [];
  const rawBodies: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => {
      text += d;
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/notifications/verify-webhook-signature') {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(text) as Record<string, unknown>;
      requests.push(body);
      rawBodies.push(text);
      if (body.transmission_sig === DOWN_SIG) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"name":"SERVICE_UNAVAILABLE"}');
        return;
      }
      const ok = body.webhook_id === WEBHOOK_ID && body.transmission_sig === GOOD_SIG;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verification_status: ok ? 'SUCCESS' : 'FAILURE' }));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        rawBodies,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}

describe('provider webhooks in (/hooks/stripe, /hooks/paypal)', () => {
  let base = '';
  let server: Server;
  let paypal: Awaited<ReturnType<typeof paypalStandIn>>;
  const unregister: Array<() => void> = [];
  /** Handler calls per provider event id. */
  const calls = new Map<string, number>();

  before(async () => {
    paypal = await paypalStandIn();
    const { orm, redis, signer, bus } = h();
    const app = await buildApp({
      config: {
        appEnv: 'staging',
        publicUrl: 'http://localhost:3000',
        syncWaitMs: 10_000,
        queuePrefix: TEST_QUEUE_PREFIX,
        providerWebhooks: { stripeWebhookSecret: SECRET, paypalWebhookId: WEBHOOK_ID },
      },
      orm,
      redis,
      signer,
      bus,
      logger: createLogger('silent', 'holdfast-test'),
      verifyPaypalWebhook: paypalWebhookVerifier(WEBHOOK_ID, async (body) => {
        const res = await fetch(`${paypal.url}/v1/notifications/verify-webhook-signature`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        if (!res.ok) throw new Error(`verify-webhook-signature answered ${res.status}`);
        return (await res.json()) as { verification_status?: unknown };
      }),
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A handler of test events: counts its calls and writes nothing of its own.
    const counted = async (_db: unknown, event: { providerEventId: string }) => {
      calls.set(event.providerEventId, (calls.get(event.providerEventId) ?? 0) + 1);
      return 'applied' as const;
    };
    unregister.push(providerEventHandlers.register('stripe', 'test.counted.*', counted));
    unregister.push(providerEventHandlers.register('paypal', 'TEST.COUNTED.*', counted));
  });

  after(async () => {
    for (const off of unregister) off();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await paypal.close();
  });

  const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const stripeEvent = (type: string, extra: Record<string, unknown> = {}) => {
    const id = unique('evt_');
    const payload = JSON.stringify({ id, object: 'event', type, created: Math.floor(Date.now() / 1000), data: { object: {} }, ...extra });
    return { id, payload };
  };
  const signed = (payload: string, opts: { secret?: string; timestamp?: number } = {}) => ({
    'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, timestamp: opts.timestamp }),
  });

  const rows = async (provider: string, providerEventId: string): Promise<ProviderEventRow[]> =>
    db(h().orm.em).execute('select * from provider_event where provider = ? and provider_event_id = ?', [provider, providerEventId]);
  const commandsOf = async (eventId: string): Promise<Array<{ id: string; state: string }>> =>
    db(h().orm.em).execute(`select id, state from command where kind = 'provider-event.apply' and target_id = ?`, [eventId]);

  /** The event once its outcome is recorded. */
  async function settled(provider: string, providerEventId: string, timeoutMs = 15_000): Promise<ProviderEventRow> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const [row] = await rows(provider, providerEventId);
      if (row?.outcome) return row;
      if (Date.now() > until) throw new Error(`${provider} ${providerEventId} has no outcome after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const cli = (args: string[]) => holdfastCli(args, { REDIS_URL: h().redisUrl, QUEUE_PREFIX: TEST_QUEUE_PREFIX });

  describe('Stripe', () => {
    it('stores a signed event once and runs its command once, though it is posted three times at once', async () => {
      const { id, payload } = stripeEvent('test.counted.once');
      const answers = await Promise.all([1, 2, 3].map(() => post('/hooks/stripe', payload, signed(payload))));
      assert.deepEqual(
        answers.map((a) => a.status),
        [200, 200, 200],
      );
      assert.deepEqual(answers.map((a) => a.body.payload.duplicate).sort(), [false, true, true]);
      assert.equal(new Set(answers.map((a) => a.body.payload.id)).size, 1);
      const event = await settled('stripe', id);
      assert.equal(event.outcome, 'applied');
      assert.equal(event.type, 'test.counted.once');
      assert.deepEqual(event.payload, JSON.parse(payload));
      assert.equal((await rows('stripe', id)).length, 1);
      const commands = await commandsOf(event.id);
      assert.equal(commands.length, 1);
      assert.equal(event.command_id, commands[0].id);
      // A fourth delivery after it was applied: answered, nothing new stored or run.
      assert.equal((await post('/hooks/stripe', payload, signed(payload))).body.payload.duplicate, true);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await commandsOf(event.id)).length, 1);
      assert.equal(calls.get(id), 1);
      // The queue dashboard's view of it: a `commands` job of its kind, whose return value names the event.
      const queue = new Queue(QueueName.Commands, { connection: h().redis, prefix: TEST_QUEUE_PREFIX });
      try {
        const job = await queue.getJob(event.command_id!);
        assert.equal(job?.name, 'commands');
        assert.deepEqual(job?.data, { commandId: event.command_id, kind: 'provider-event.apply' });
        assert.deepEqual(
          { ...job?.returnvalue.body.payload, received_at: undefined, outcome_at: undefined },
          {
            id: event.id,
            provider: 'stripe',
            provider_event_id: id,
            type: 'test.counted.once',
            received_at: undefined,
            command_id: event.command_id,
            outcome: 'applied',
            outcome_reason: null,
            outcome_at: undefined,
          },
        );
      } finally {
        await queue.close();
      }
    });

    it('answers 400 in the envelope and stores nothing for a forged or an expired signature', async () => {
      const { id, payload } = stripeEvent('test.counted.forged');
      const forged = await post('/hooks/stripe', payload, signed(payload, { secret: 'whsec_someoneElsesSecret000' }));
      assert.equal(forged.status, 400);
      assert.equal(forged.body.status, 'Failure');
      assert.deepEqual(forged.body.codes, ['INPUT_ERROR']);
      assert.deepEqual(forged.body.payload.errors, { 'Stripe-Signature': ['INVALID_SIGNATURE'] });
      const expired = await post('/hooks/stripe', payload, signed(payload, { timestamp: Math.floor(Date.now() / 1000) - 3600 }));
      assert.equal(expired.status, 400);
      assert.deepEqual(expired.body.payload.errors, { 'Stripe-Signature': ['INVALID_SIGNATURE'] });
      // The body changed after signing.
      const tampered = await post('/hooks/stripe', payload.replace('test.counted.forged', 'test.counted.other'), signed(payload));
      assert.equal(tampered.status, 400);
      assert.deepEqual(await rows('stripe', id), []);
      assert.equal(calls.get(id), undefined);
    });

    it('answers 400 for an unsigned body, garbage, and a signed body that is not an event', async () => {
      const before = (await db(h().orm.em).execute<Array<{ n: number }>>('select count(*)::int as n from provider_event'))[0].n;
      const unsigned = await post('/hooks/stripe', stripeEvent('test.counted.x').payload);
      assert.equal(unsigned.status, 400);
      assert.deepEqual(unsigned.body.payload.errors, { 'Stripe-Signature': ['REQUIRED'] });
      const garbage = await post('/hooks/stripe', '\u0000not json at all', { 'stripe-signature': 't=1,v1=deadbeef' });
      assert.equal(garbage.status, 400);
      assert.deepEqual(garbage.body.payload.errors, { 'Stripe-Signature': ['INVALID_SIGNATURE'] });
      const notJson = 'not json, but signed';
      const signedGarbage = await post('/hooks/stripe', notJson, signed(notJson));
      assert.equal(signedGarbage.status, 400);
      assert.deepEqual(signedGarbage.body.payload.errors, { body: ['MALFORMED_JSON'] });
      const noType = JSON.stringify({ id: unique('evt_'), object: 'event' });
      const untyped = await post('/hooks/stripe', noType, signed(noType));
      assert.equal(untyped.status, 400);
      assert.deepEqual(untyped.body.payload.errors, { type: ['REQUIRED'] });
      const after = (await db(h().orm.em).execute<Array<{ n: number }>>('select count(*)::int as n from provider_event'))[0].n;
      assert.equal(after, before);
    });

    it('reads the raw bytes whatever the content type, and refuses a body over 1 MiB with 413', async () => {
      const { id, payload } = stripeEvent('test.counted.text', { note: 'spaced  out   "json"' });
      const res = await post('/hooks/stripe', payload, { ...signed(payload), 'content-type': 'text/plain' });
      assert.equal(res.status, 200);
      assert.equal((await settled('stripe', id)).outcome, 'applied');
      const big = stripeEvent('test.counted.big', { filler: 'x'.repeat(1024 * 1024) }).payload;
      const tooBig = await post('/hooks/stripe', big, signed(big));
      assert.equal(tooBig.status, 413);
      assert.deepEqual(tooBig.body.codes, ['PAYLOAD_TOO_LARGE']);
    });

    it('stores an event no handler knows and marks it ignored', async () => {
      const { id, payload } = stripeEvent('customer.created');
      assert.equal((await post('/hooks/stripe', payload, signed(payload))).status, 200);
      const event = await settled('stripe', id);
      assert.equal(event.outcome, 'ignored');
      assert.equal(event.outcome_reason, 'no handler');
    });

    it('stores events in the order they arrive and applies each once, whatever order the provider made them in', async () => {
      const older = stripeEvent('test.counted.order', { created: 1_700_000_000 });
      const newer = stripeEvent('test.counted.order', { created: 1_700_000_100 });
      for (const e of [newer, older, newer, older]) assert.equal((await post('/hooks/stripe', e.payload, signed(e.payload))).status, 200);
      await settled('stripe', older.id);
      await settled('stripe', newer.id);
      const listed = await cli(['provider-events', 'list', '--provider', 'stripe', '--limit', '2', '--json']);
      assert.equal(listed.status, 0, listed.stderr);
      const events = JSON.parse(listed.stdout).events as Array<{ provider_event_id: string; outcome: string }>;
      // Newest first: the one the provider made first arrived last.
      assert.deepEqual(
        events.map((e) => e.provider_event_id),
        [older.id, newer.id],
      );
      assert.deepEqual(
        events.map((e) => e.outcome),
        ['applied', 'applied'],
      );
      assert.equal(calls.get(older.id), 1);
      assert.equal(calls.get(newer.id), 1);
    });

    it('answers 404 where no signing secret is configured', async () => {
      const { payload } = stripeEvent('test.counted.nowhere');
      const res = await fetch(`${h().baseUrl}/hooks/stripe`, { method: 'POST', headers: signed(payload), body: payload });
      assert.equal(res.status, 404);
    });
  });

  describe('PayPal', () => {
    const paypalEvent = (type: string) => {
      const id = unique('WH-');
      const body = `{"id":"${id}","event_version":"1.0","create_time":"2026-11-28T06:00:00.000Z","resource_type":"payouts_item","event_type":"${type}","summary":"x","resource":{"amount":{"value":"10.00"}}}`;
      return { id, body };
    };
    const transmission = (sig: string) => ({
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': 'https://api.paypal.com/v1/notifications/certs/CERT-360caa42-fca2a594-1d93a270',
      'paypal-transmission-id': unique('tx'),
      'paypal-transmission-sig': sig,
      'paypal-transmission-time': '2026-11-28T06:00:00Z',
    });

    it('stores an event PayPal verifies, asking with the transmission headers, the webhook id and the body as received', async () => {
      const { id, body } = paypalEvent('TEST.COUNTED.PAID');
      const headers = transmission(GOOD_SIG);
      const res = await post('/hooks/paypal', body, headers);
      assert.equal(res.status, 200);
      assert.equal(res.body.payload.duplicate, false);
      const asked = paypal.requests.at(-1)!;
      assert.deepEqual(asked, {
        auth_algo: headers['paypal-auth-algo'],
        cert_url: headers['paypal-cert-url'],
        transmission_id: headers['paypal-transmission-id'],
        transmission_sig: GOOD_SIG,
        transmission_time: headers['paypal-transmission-time'],
        webhook_id: WEBHOOK_ID,
        webhook_event: JSON.parse(body),
      });
      assert.ok(paypal.rawBodies.at(-1)!.endsWith(`"webhook_event":${body}}`), 'the event goes to PayPal byte for byte');
      const event = await settled('paypal', id);
      assert.equal(event.outcome, 'applied');
      assert.equal(event.type, 'TEST.COUNTED.PAID');
      assert.equal((await post('/hooks/paypal', body, transmission(GOOD_SIG))).body.payload.duplicate, true);
      assert.equal(calls.get(id), 1);
    });

    it('answers 400 and stores nothing when PayPal answers FAILURE, or the transmission headers are missing', async () => {
      const { id, body } = paypalEvent('TEST.COUNTED.FORGED');
      const asked = paypal.requests.length;
      const refused = await post('/hooks/paypal', body, transmission('Zm9yZ2Vk'));
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.payload.errors, { 'PAYPAL-TRANSMISSION-SIG': ['INVALID_SIGNATURE'] });
      assert.equal(paypal.requests.length, asked + 1);
      const { 'paypal-transmission-sig': _sig, ...withoutSig } = transmission(GOOD_SIG);
      const unsigned = await post('/hooks/paypal', body, withoutSig);
      assert.equal(unsigned.status, 400);
      assert.deepEqual(unsigned.body.payload.errors, { 'PAYPAL-TRANSMISSION-SIG': ['REQUIRED'] });
      const garbage = await post('/hooks/paypal', 'garbage', transmission(GOOD_SIG));
      assert.equal(garbage.status, 400);
      assert.deepEqual(garbage.body.payload.errors, { body: ['MALFORMED_JSON'] });
      // Neither a missing header nor an unreadable body is worth asking PayPal about.
      assert.equal(paypal.requests.length, asked + 1);
      assert.deepEqual(await rows('paypal', id), []);
    });

    it('refuses without asking PayPal a cert_url off PayPal, headers not of their shape, and a body over 64 KiB', async () => {
      const { id, body } = paypalEvent('TEST.COUNTED.ODD');
      const asked = paypal.requests.length;
      for (const [header, value] of [
        ['paypal-cert-url', 'https://attacker.example/v1/notifications/certs/CERT-1'],
        ['paypal-cert-url', 'http://api.paypal.com/v1/notifications/certs/CERT-1'],
        ['paypal-cert-url', 'https://paypal.com.attacker.example/certs/CERT-1'],
        ['paypal-cert-url', 'not a url'],
        ['paypal-auth-algo', 'none'],
        ['paypal-transmission-sig', 'not base64!'],
        ['paypal-transmission-sig', 'A'.repeat(3000)],
        ['paypal-transmission-time', 'yesterday'],
      ] as const) {
        const refused = await post('/hooks/paypal', body, { ...transmission(GOOD_SIG), [header]: value });
        assert.equal(refused.status, 400, `${header}: ${value}`);
        assert.ok(refused.body.payload.errors[header.toUpperCase()], JSON.stringify(refused.body));
      }
      const big = `{"id":"${unique('WH-')}","event_type":"TEST.COUNTED.BIG","resource":{"pad":"${'x'.repeat(70 * 1024)}"}}`;
      const tooBig = await post('/hooks/paypal', big, transmission(GOOD_SIG));
      assert.equal(tooBig.status, 413);
      assert.equal(paypal.requests.length, asked, 'PayPal was never asked');
      assert.deepEqual(await rows('paypal', id), []);
    });

    it('verifies at most PAYPAL_WEBHOOK_VERIFY_PER_MINUTE deliveries a minute: past it 429 in the envelope, PayPal not asked', async () => {
      const { orm, redis, signer, bus } = h();
      const limited = await buildApp({
        config: {
          appEnv: 'staging',
          publicUrl: 'http://localhost:3000',
          syncWaitMs: 10_000,
          // A budget of its own (its Redis keys carry the prefix).
          queuePrefix: `{holdfast-test-${unique('rl')}}`,
          providerWebhooks: { stripeWebhookSecret: SECRET, paypalWebhookId: WEBHOOK_ID },
          paypal: { clientId: 'c', clientSecret: 's', webhookId: WEBHOOK_ID, apiBase: paypal.url },
          paypalWebhookVerifyPerMinute: 2,
        },
        orm,
        redis,
        signer,
        bus,
        logger: createLogger('silent', 'holdfast-test'),
        verifyPaypalWebhook: paypalWebhookVerifier(WEBHOOK_ID, async (body) => {
          const res = await fetch(`${paypal.url}/v1/notifications/verify-webhook-signature`, { method: 'POST', body });
          return (await res.json()) as { verification_status?: unknown };
        }),
      });
      const server2 = await new Promise<Server>((resolve) => {
        const s2 = limited.listen(0, '127.0.0.1', () => resolve(s2));
      });
      try {
        const url = `http://127.0.0.1:${(server2.address() as AddressInfo).port}/hooks/paypal`;
        const asked = paypal.requests.length;
        const answers = [];
        for (let n = 0; n < 4; n++) {
          const { body } = paypalEvent('TEST.COUNTED.FLOOD');
          // A cert_url on the configured API base (a stand-in's) is taken as PayPal's.
          const headers = { ...transmission('Zm9yZ2Vk'), 'paypal-cert-url': `${paypal.url}/v1/notifications/certs/CERT-1` };
          const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
          answers.push({ status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() });
        }
        assert.deepEqual(
          answers.map((a) => a.status),
          [400, 400, 429, 429],
        );
        assert.deepEqual(answers[2]!.body.codes, ['RATE_LIMITED']);
        assert.ok(Number(answers[2]!.retryAfter) >= 1);
        assert.equal(paypal.requests.length, asked + 2, 'two calls to PayPal, then none');
      } finally {
        server2.closeAllConnections?.();
        await new Promise<void>((resolve) => server2.close(() => resolve()));
      }
    });

    it('answers 500 with nothing internal and stores nothing while PayPal cannot verify, so PayPal delivers again', async () => {
      const { id, body } = paypalEvent('TEST.COUNTED.LATER');
      const down = await post('/hooks/paypal', body, transmission(DOWN_SIG));
      assert.equal(down.status, 500);
      assert.deepEqual(down.body.codes, ['INTERNAL_ERROR']);
      assert.deepEqual(Object.keys(down.body.payload), ['request_id']);
      assert.deepEqual(await rows('paypal', id), []);
      assert.equal((await post('/hooks/paypal', body, transmission(GOOD_SIG))).status, 200);
      assert.equal((await settled('paypal', id)).outcome, 'applied');
    });
  });

  describe('handlers and replay', () => {
    it('runs a handler exactly once per event, however often the event is replayed from the CLI', async () => {
      const { id, payload } = stripeEvent('test.counted.replayed');
      await post('/hooks/stripe', payload, signed(payload));
      const event = await settled('stripe', id);
      assert.equal(event.outcome, 'applied');
      for (const name of [event.id, id]) {
        const replayed = await cli(['provider-events', 'replay', name, '--json']);
        assert.equal(replayed.status, 0, replayed.stderr);
        const out = JSON.parse(replayed.stdout);
        assert.equal(out.finished, true);
        assert.equal(out.event.outcome, 'applied');
        assert.notEqual(out.command_id, event.command_id);
      }
      assert.equal((await commandsOf(event.id)).length, 3);
      assert.equal(calls.get(id), 1);
    });

    it('applies an ignored event on replay once a handler exists for it, and only once', async () => {
      const type = `test.later.${unique('t')}`;
      const { id, payload } = stripeEvent(type);
      await post('/hooks/stripe', payload, signed(payload));
      assert.equal((await settled('stripe', id)).outcome, 'ignored');
      let ran = 0;
      unregister.push(
        providerEventHandlers.register('stripe', type, async () => {
          ran += 1;
          return 'applied';
        }),
      );
      for (let i = 0; i < 2; i++) {
        const replayed = await cli(['provider-events', 'replay', id]);
        assert.equal(replayed.status, 0, replayed.stderr);
        assert.match(replayed.stdout, /: applied\n$/);
      }
      assert.equal(ran, 1);
      const [row] = await rows('stripe', id);
      assert.equal(row.outcome, 'applied');
      assert.equal(row.outcome_reason, null);
    });

    it("records a handler's refusal as failed with its reason, undoing the handler's writes", async () => {
      const type = `test.refused.${unique('t')}`;
      const { id, payload } = stripeEvent(type);
      unregister.push(
        providerEventHandlers.register('stripe', type, async (tx, event) => {
          await tx.execute('update provider_event set type = ? where id = ?', ['changed.by.handler', event.id]);
          throw new AppError('invalid_state', 'The session this event names is unknown.');
        }),
      );
      await post('/hooks/stripe', payload, signed(payload));
      const event = await settled('stripe', id);
      assert.equal(event.outcome, 'failed');
      assert.equal(event.outcome_reason, 'The session this event names is unknown.');
      assert.equal(event.type, type);
    });

    it('names an unknown event in one line (exit 1), and checks its options', async () => {
      const missing = await cli(['provider-events', 'replay', 'evt_nothing_here']);
      assert.equal(missing.status, 1);
      assert.match(missing.stderr, /^holdfast: no provider event "evt_nothing_here" \(holdfast provider-events list shows them\)\n$/);
      const badProvider = await cli(['provider-events', 'list', '--provider', 'adyen']);
      assert.equal(badProvider.status, 2);
      assert.match(badProvider.stderr, /--provider must be one of stripe, paypal/);
      const help = await cli(['provider-events', '--help']);
      assert.equal(help.status, 0);
      assert.match(help.stdout, /holdfast provider-events list/);
      assert.match(help.stdout, /holdfast provider-events replay EVENT_ID/);
    });
  });
});
