import assert from 'node:assert/strict';
import { PaypalApiError } from '../../src/rails/paypal-api.error.js';
import { PaypalClient } from '../../src/rails/paypal.client.js';
import { RailUnavailableError } from '../../src/rails/rail-unavailable.error.js';
import { type PaypalFake, startPaypalFake } from '../support/fakes/paypal/paypal-fake.js';
import { type Receiver, startReceiver } from '../support/receiver.js';

function clientOf(fake: PaypalFake, overrides: Partial<ConstructorParameters<typeof PaypalClient>[0]> = {}): PaypalClient {
  return new PaypalClient({
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    webhookId: fake.webhookId,
    apiBase: fake.url,
    timeoutMs: 5_000,
    ...overrides,
  });
}

let n = 0;
function payout(receiver: string, value = '10.00', currency = 'USD') {
  const id = `po_test${Date.now()}${++n}-1`;
  return {
    sender_batch_header: { sender_batch_id: id, email_subject: 'You have a payout' },
    items: [{ recipient_type: 'EMAIL' as const, amount: { currency, value }, receiver, note: 'Thanks', sender_item_id: id }],
  };
}

async function rejects<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof type, `expected ${type.name}, got ${String(err)}`);
    return err as T;
  }
  assert.fail(`expected ${type.name}`);
}

describe('PayPal client against the PayPal fake', () => {
  let fake: PaypalFake;
  let receiver: Receiver;

  beforeEach(async () => {
    receiver = await startReceiver();
    fake = await startPaypalFake({ webhookUrl: receiver.url, settleAfterMs: 30 });
  });
  afterEach(async () => {
    await fake.stop();
    await receiver.close();
  });

  describe('OAuth client credentials', () => {
    it('fetches one token and reuses it until it expires', async () => {
      const client = clientOf(fake);
      await Promise.all([client.createPayout(payout('a@example.com')), client.createPayout(payout('b@example.com'))]);
      await client.createPayout(payout('c@example.com'));
      assert.equal(fake.count('POST', '/v1/oauth2/token'), 1);
      assert.equal(fake.count('POST', '/v1/payments/payouts'), 3);
    });

    it('fetches a new token shortly before the old one expires', async () => {
      await fake.stop();
      fake = await startPaypalFake({ tokenTtlSeconds: 1 });
      const client = clientOf(fake);
      await client.createPayout(payout('a@example.com'));
      await new Promise((r) => setTimeout(r, 950));
      await client.createPayout(payout('b@example.com'));
      assert.equal(fake.count('POST', '/v1/oauth2/token'), 2);
      assert.ok(
        fake.requests.every((r) => r.status !== 401),
        'no call was made with an expired token',
      );
    });

    it('fetches a new token when PayPal answers 401 to a cached one, and carries on', async () => {
      const client = clientOf(fake);
      await client.createPayout(payout('a@example.com'));
      fake.expireTokens();
      const created = await client.createPayout(payout('b@example.com'));
      assert.equal(created.batch_header.batch_status, 'PENDING');
      assert.equal(fake.count('POST', '/v1/oauth2/token'), 2);
      assert.deepEqual(
        fake.requests.filter((r) => r.path === '/v1/payments/payouts').map((r) => r.status),
        [201, 401, 201],
      );
    });

    it('refuses wrong credentials with invalid_client, naming neither the secret nor a token', async () => {
      const client = clientOf(fake, { clientSecret: 'wrong-secret-value' });
      const err = await rejects(client.createPayout(payout('a@example.com')), PaypalApiError);
      assert.equal(err.status, 401);
      assert.equal(err.errorName, 'invalid_client');
      assert.doesNotMatch(err.message, /wrong-secret-value/);
      assert.equal(fake.count('POST', '/v1/payments/payouts'), 0);
    });
  });

  describe('payouts', () => {
    it('creates a batch PENDING, as PayPal answers, and settles its item SUCCESS with a SUCCEEDED event', async () => {
      const client = clientOf(fake);
      const request = payout('ada@example.com', '12.34');
      const created = await client.createPayout(request);
      assert.equal(created.batch_header.batch_status, 'PENDING');
      assert.match(created.batch_header.payout_batch_id, /^[A-Z0-9]{13}$/);
      await receiver.until((r) => r.length === 1);
      const event = receiver.received[0].json;
      assert.match(event.id, /^WH-/);
      assert.equal(event.event_type, 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED');
      assert.equal(event.resource.transaction_status, 'SUCCESS');
      assert.equal(event.resource.payout_batch_id, created.batch_header.payout_batch_id);
      assert.equal(event.resource.sender_batch_id, request.sender_batch_header.sender_batch_id);
      assert.equal(event.resource.payout_item.sender_item_id, request.items[0].sender_item_id);
      assert.deepEqual(event.resource.payout_item.amount, { currency: 'USD', value: '12.34' });
      for (const h of [
        'paypal-transmission-id',
        'paypal-transmission-time',
        'paypal-transmission-sig',
        'paypal-cert-url',
        'paypal-auth-algo',
      ])
        assert.ok(receiver.received[0].headers[h], h);
      const item = await client.getPayoutItem(event.resource.payout_item_id);
      assert.equal(item.transaction_status, 'SUCCESS');
      const batch = await client.getPayoutBatch(created.batch_header.payout_batch_id);
      assert.equal(batch.batch_header.batch_status, 'SUCCESS');
      assert.equal(batch.items?.[0].payout_item_id, item.payout_item_id);
    });

    const outcomes: [string, string[], string][] = [
      ['fails@example.com', ['FAILED'], 'FAILED'],
      ['blocked@example.com', ['BLOCKED'], 'BLOCKED'],
      ['denied@example.com', ['DENIED'], 'DENIED'],
      ['unclaimed@example.com', ['UNCLAIMED'], 'UNCLAIMED'],
      ['returned+7@example.com', ['UNCLAIMED', 'RETURNED'], 'RETURNED'],
    ];
    for (const [email, events, final] of outcomes) {
      it(`settles a payout to ${email} as ${events.join(' then ')}`, async () => {
        const client = clientOf(fake);
        await client.createPayout(payout(email));
        await receiver.until((r) => r.length === events.length);
        await new Promise((r) => setTimeout(r, 100));
        assert.deepEqual(
          receiver.received.map((r) => r.json.event_type),
          events.map((e) => `PAYMENT.PAYOUTS-ITEM.${e}`),
        );
        const item = await client.getPayoutItem(receiver.received[0].json.resource.payout_item_id);
        assert.equal(item.transaction_status, final);
        if (final !== 'SUCCESS') assert.ok(item.errors?.name, 'the item names why');
      });
    }

    it('lets a test claim an unclaimed item (SUCCEEDED)', async () => {
      const client = clientOf(fake);
      await client.createPayout(payout('unclaimed@example.com'));
      await receiver.until((r) => r.length === 1);
      const itemId = receiver.received[0].json.resource.payout_item_id;
      await fake.settle(itemId, 'SUCCESS');
      await receiver.until((r) => r.length === 2);
      assert.equal(receiver.received[1].json.event_type, 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED');
      assert.equal((await client.getPayoutItem(itemId)).transaction_status, 'SUCCESS');
    });

    it('refuses a sender_batch_id used before as PayPal does (400 USER_BUSINESS_ERROR linking the original batch)', async () => {
      const client = clientOf(fake);
      const request = payout('ada@example.com');
      const first = await client.createPayout(request);
      const err = await rejects(client.createPayout(request), PaypalApiError);
      assert.equal(err.status, 400);
      assert.equal(err.errorName, 'USER_BUSINESS_ERROR');
      assert.ok(err.mayBeDuplicate);
      assert.equal(err.existingBatchId, first.batch_header.payout_batch_id);
      assert.equal(fake.batches.size, 1);
    });

    it('refuses an amount with more decimals than the currency has (the fake checks what the client sends)', async () => {
      const client = clientOf(fake);
      const err = await rejects(client.createPayout(payout('ada@example.com', '1.234')), PaypalApiError);
      assert.equal(err.errorName, 'VALIDATION_ERROR');
      assert.ok(!err.mayBeDuplicate);
      await rejects(client.createPayout(payout('ada@example.com', '5.5', 'JPY')), PaypalApiError);
      await client.createPayout(payout('ada@example.com', '500', 'JPY'));
    });

    it('answers 404 RESOURCE_NOT_FOUND for an unknown batch or item', async () => {
      const client = clientOf(fake);
      assert.equal((await rejects(client.getPayoutBatch('NOSUCHBATCH'), PaypalApiError)).status, 404);
      assert.equal((await rejects(client.getPayoutItem('NOSUCHITEM'), PaypalApiError)).errorName, 'RESOURCE_NOT_FOUND');
    });
  });

  describe('webhook signatures (verify-webhook-signature)', () => {
    it('vouches for the events the fake sent, redelivered ones too, and for nothing else', async () => {
      const client = clientOf(fake);
      await client.createPayout(payout('ada@example.com'));
      await receiver.until((r) => r.length === 1);
      const sent = receiver.received[0];
      assert.equal(await client.verifyWebhookSignature(sent.headers, sent.body), true);

      await fake.redeliver(sent.json.id);
      await receiver.until((r) => r.length === 2);
      const again = receiver.received[1];
      assert.equal(again.json.id, sent.json.id);
      assert.notEqual(again.headers['paypal-transmission-id'], sent.headers['paypal-transmission-id']);
      assert.equal(await client.verifyWebhookSignature(again.headers, again.body), true);

      for (const how of ['bad-signature', 'other-webhook', 'tampered'] as const) {
        await fake.forge(sent.json, how);
      }
      await receiver.until((r) => r.length === 5);
      for (const forged of receiver.received.slice(2))
        assert.equal(await client.verifyWebhookSignature(forged.headers, forged.body), false);
      // The body changed under good headers, or the headers of another delivery.
      assert.equal(await client.verifyWebhookSignature(sent.headers, sent.body.replace('SUCCESS', 'FAILED')), false);
      assert.equal(
        await client.verifyWebhookSignature({ ...sent.headers, 'paypal-transmission-time': new Date().toISOString() }, sent.body),
        false,
      );
      // A client configured with another webhook id does not accept the fake's events.
      assert.equal(await clientOf(fake, { webhookId: 'OTHERWEBHOOK1' }).verifyWebhookSignature(sent.headers, sent.body), false);
    });

    it('refuses a delivery missing a transmission header or with a body that is not JSON, without asking PayPal', async () => {
      const client = clientOf(fake);
      const body = JSON.stringify({ id: 'WH-1', event_type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' });
      const headers = fake.sign(body);
      const { 'paypal-transmission-sig': _sig, ...unsigned } = headers;
      assert.equal(await client.verifyWebhookSignature(unsigned, body), false);
      assert.equal(await client.verifyWebhookSignature(headers, 'not json'), false);
      assert.equal(fake.count('POST', '/v1/notifications/verify-webhook-signature'), 0);
      assert.equal(await client.verifyWebhookSignature(headers, Buffer.from(body)), true);
    });

    it('refuses a delivery whose headers PayPal finds malformed (400), rather than failing as if PayPal were down', async () => {
      const client = clientOf(fake);
      const body = JSON.stringify({ id: 'WH-2', event_type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' });
      const headers = fake.sign(body);
      for (const bad of [
        { 'paypal-auth-algo': 'SHA256 with RSA' },
        { 'paypal-transmission-time': 'yesterday' },
        { 'paypal-cert-url': 'not a url' },
      ])
        assert.equal(await client.verifyWebhookSignature({ ...headers, ...bad }, body), false, JSON.stringify(bad));
      assert.deepEqual(
        fake.requests.filter((r) => r.path === '/v1/notifications/verify-webhook-signature').map((r) => r.status),
        [400, 400, 400],
      );
      fake.fault({ kind: '500', ms: 2_000, match: '/v1/notifications' });
      await rejects(client.verifyWebhookSignature(headers, body), RailUnavailableError);
    });

    it('sends a verify-webhook-signature body as given (for an inbox that builds it)', async () => {
      const body = JSON.stringify({ id: 'WH-3', event_type: 'PAYMENT.PAYOUTS-ITEM.FAILED' });
      const h = fake.sign(body);
      const request = `{"auth_algo":"${h['paypal-auth-algo']}","cert_url":"${h['paypal-cert-url']}","transmission_id":"${h['paypal-transmission-id']}","transmission_sig":"${h['paypal-transmission-sig']}","transmission_time":"${h['paypal-transmission-time']}","webhook_id":"${fake.webhookId}","webhook_event":${body}}`;
      assert.deepEqual(await clientOf(fake).sendVerifyWebhookSignature(request), { verification_status: 'SUCCESS' });
    });

    it('sends a delivery the receiver refused again, newly signed, when asked to retry', async () => {
      await fake.stop();
      fake = await startPaypalFake({ webhookUrl: receiver.url, settleAfterMs: 10, deliveryRetries: 2, deliveryRetryMs: 30 });
      receiver.respond = (_r, i) => (i < 2 ? 503 : 200);
      const client = clientOf(fake);
      await client.createPayout(payout('ada@example.com'));
      await receiver.until((r) => r.length === 3);
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(receiver.received.length, 3, 'no retry after a 2xx');
      assert.equal(new Set(receiver.received.map((r) => r.json.id)).size, 1);
      assert.equal(new Set(receiver.received.map((r) => r.headers['paypal-transmission-id'])).size, 3);
      for (const r of receiver.received) assert.equal(await client.verifyWebhookSignature(r.headers, r.body), true);
    });

    it('delivers held events out of order when asked', async () => {
      fake.holdDeliveries();
      await clientOf(fake).createPayout(payout('returned@example.com'));
      await fake.until(() => fake.events.length === 2);
      assert.equal(receiver.received.length, 0);
      await fake.releaseDeliveries({ reverse: true });
      assert.deepEqual(
        receiver.received.map((r) => r.json.event_type),
        ['PAYMENT.PAYOUTS-ITEM.RETURNED', 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED'],
      );
    });
  });

  describe('faults: retryable while they last, fine after', () => {
    it('a 500 window', async () => {
      const client = clientOf(fake);
      fake.fault({ kind: '500', ms: 800, match: '/v1/payments' });
      const err = await rejects(client.createPayout(payout('ada@example.com')), RailUnavailableError);
      assert.equal(err.httpStatus, 500);
      assert.equal(fake.batches.size, 0);
      await new Promise((r) => setTimeout(r, 850));
      await client.createPayout(payout('ada@example.com'));
      assert.equal(fake.batches.size, 1);
    });

    it('a hang past the client timeout', async () => {
      const client = clientOf(fake, { timeoutMs: 400 });
      await client.getPayoutBatch('X').catch(() => {});
      fake.fault({ kind: 'hang', ms: 1_200, match: '/v1/payments' });
      const err = await rejects(client.createPayout(payout('ada@example.com')), RailUnavailableError);
      assert.match(err.message, /ETIMEDOUT/);
      await new Promise((r) => setTimeout(r, 1_000));
      await client.createPayout(payout('ada@example.com'));
    });

    it('refused connections for a while', async () => {
      const client = clientOf(fake);
      fake.fault({ kind: 'refuse', ms: 600 });
      const err = await rejects(client.createPayout(payout('ada@example.com')), RailUnavailableError);
      assert.match(err.message, /ECONNREFUSED/);
      await new Promise((r) => setTimeout(r, 700));
      await client.createPayout(payout('ada@example.com'));
      assert.equal(fake.batches.size, 1);
    });

    it('never puts the secret or the access token in an error', async () => {
      const client = clientOf(fake);
      await client.createPayout(payout('ada@example.com'));
      fake.fault({ kind: '500', ms: 2_000 });
      const err = await rejects(client.createPayout(payout('ada@example.com')), RailUnavailableError);
      const text = `${err.message} ${err.stack} ${JSON.stringify(err)}`;
      assert.doesNotMatch(text, new RegExp(fake.clientSecret));
      // Every token the fake issues starts so.
      assert.doesNotMatch(text, /A21AA/);
      assert.equal(err.cause, undefined);
    });
  });
});
