import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { db } from '../../src/db/sql.js';
import { buildApp } from '../../src/http/app.js';
import type { VerifyPaypalWebhook } from '../../src/provider-events/paypal-webhook.js';
import { PaypalClient } from '../../src/rails/paypal.client.js';
import { createLogger } from '../../src/runtime/logger.js';
import { type PaypalFake, startPaypalFake } from '../support/fakes/paypal/paypal-fake.js';
import { TEST_QUEUE_PREFIX, h } from '../support/harness.js';

/** The provider-event rows stored for a PayPal event id. */
const stored = async (eventId: string): Promise<Array<{ provider_event_id: string; type: string }>> =>
  db(h().orm.em).execute('select provider_event_id, type from provider_event where provider = ? and provider_event_id = ?', [
    'paypal',
    eventId,
  ]);

describe('PayPal webhooks from the fake into /hooks/paypal, checked by the PayPal client', () => {
  let fake: PaypalFake;
  let server: Server;
  let client: PaypalClient;

  before(async () => {
    fake = await startPaypalFake({ settleAfterMs: 20 });
    client = new PaypalClient({ clientId: fake.clientId, clientSecret: fake.clientSecret, webhookId: fake.webhookId, apiBase: fake.url });
    // The inbox's injected verifier is the client's method, as it is.
    const verifyPaypalWebhook: VerifyPaypalWebhook = client.verifyWebhookSignature;
    const { orm, redis, signer, bus } = h();
    const app = await buildApp({
      config: {
        appEnv: 'staging',
        publicUrl: 'http://localhost:3000',
        syncWaitMs: 10_000,
        queuePrefix: TEST_QUEUE_PREFIX,
        providerWebhooks: { stripeWebhookSecret: undefined, paypalWebhookId: fake.webhookId },
        // The fake's cert_url is on its own origin: taken as PayPal's because it is the configured API base.
        paypal: { clientId: fake.clientId, clientSecret: fake.clientSecret, webhookId: fake.webhookId, apiBase: fake.url },
      },
      orm,
      redis,
      signer,
      bus,
      logger: createLogger('silent', 'holdfast-test'),
      verifyPaypalWebhook,
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    fake.webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/paypal`;
  });

  after(async () => {
    await fake.stop();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('stores the events of a returned payout once each, though redelivered and out of order; refuses forged ones', async () => {
    fake.holdDeliveries();
    await client.createPayout({
      sender_batch_header: { sender_batch_id: `po_inbox${Date.now()}-1` },
      items: [{ recipient_type: 'EMAIL', amount: { currency: 'USD', value: '9.99' }, receiver: 'returned@example.com' }],
    });
    await fake.until(() => fake.events.length === 2);
    await fake.releaseDeliveries({ reverse: true });
    const [unclaimed, returned] = fake.events;
    await fake.redeliver(unclaimed.id);
    await fake.redeliver(returned.id);
    assert.deepEqual(
      fake.deliveries.map((d) => [d.eventType, d.status]),
      [
        ['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 200],
        ['PAYMENT.PAYOUTS-ITEM.RETURNED', 200],
        ['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 200],
        ['PAYMENT.PAYOUTS-ITEM.RETURNED', 200],
      ],
    );
    assert.deepEqual(
      (await stored(unclaimed.id)).map((r) => r.type),
      ['PAYMENT.PAYOUTS-ITEM.UNCLAIMED'],
    );
    assert.deepEqual(
      (await stored(returned.id)).map((r) => r.type),
      ['PAYMENT.PAYOUTS-ITEM.RETURNED'],
    );

    const forged = { ...returned, id: `WH-FORGED${Date.now()}`, event_type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' };
    for (const how of ['bad-signature', 'other-webhook', 'tampered'] as const) {
      const delivery = await fake.forge(forged, how);
      assert.equal(delivery.status, 400, how);
    }
    assert.deepEqual(await stored(forged.id), []);
  });
});
