/**
 * The payouts walk-through (docs/walkthroughs.md) with `PAYOUT_RAIL=paypal`, end to end through
 * the local PayPal fake: an app whose `/hooks/paypal` the fake's webhooks reach (checked with
 * PayPal's verify-webhook-signature call at the fake), and workers whose payout rail is the
 * PayPal adapter pointed at the fake, on a queue prefix of their own beside the harness's.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { db } from '../../src/db/sql.js';
import { buildApp } from '../../src/http/app.js';
import { updateIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { railAdapters } from '../../src/rails/rail-adapters.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { type PaypalFake, startPaypalFake } from '../support/fakes/paypal/paypal-fake.js';
import { call, h, holdfastCli, newClient, unique, type TestClient } from '../support/harness.js';
import { until } from '../support/workers.js';

/** The payout's `payout-complete` events' statuses, oldest first. */
async function payoutEvents(payoutId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ message: { payout_status: string } }>>(
      `select message from outbox where event_name = 'payout-complete' and message->>'payout_status_id' = ? order by id`,
      [payoutId],
    );
  return rows.map((r) => r.message.payout_status);
}

/** The references of the payout's postings, sorted. */
async function payoutPostings(payoutId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ reference: string }>>('select reference from ledger_posting where reference like ? order by reference', [
      `payout:${payoutId}:%`,
    ]);
  return rows.map((r) => r.reference);
}

/** The stored PayPal objects behind a payout's attempts: `[holdfast_ref, object_type, item status]`, sorted. */
async function providerObjects(payoutId: string): Promise<Array<[string, string, string | null]>> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ holdfast_ref: string; object_type: string; status: string | null }>>(
      `select holdfast_ref, object_type, snapshot->>'transaction_status' as status from provider_object
        where provider = 'paypal' and holdfast_ref like ? order by holdfast_ref, object_type`,
      [`payout:${payoutId}:%`],
    );
  return rows.map((r) => [r.holdfast_ref, r.object_type, r.status]);
}

/** The stored provider events of PayPal event ids, with their outcomes. */
async function storedEvents(eventIds: string[]): Promise<Array<{ provider_event_id: string; outcome: string | null }>> {
  return db(h().orm.em).execute(
    'select provider_event_id, outcome from provider_event where provider = ? and provider_event_id = any(?::text[]) order by 1',
    ['paypal', eventIds],
  );
}

describe('the payouts walk-through with PAYOUT_RAIL=paypal, through the PayPal fake', function () {
  this.timeout(90_000);
  const prefix = `{holdfast-test-paypal-${unique()}}`;
  let fake: PaypalFake;
  let workers: RunningWorkers;
  let bus: CommandBus;
  let server: Server;
  let base: string;
  let client: TestClient;
  let paypalEnv: Record<string, string>;

  before(async () => {
    // Deliveries the app could not take (PayPal's verify call down) are sent again, as PayPal does.
    fake = await startPaypalFake({ settleAfterMs: 60, deliveryRetries: 20, deliveryRetryMs: 300 });
    const paypal = {
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
      webhookId: fake.webhookId,
      apiBase: fake.url,
      timeoutMs: 2_000,
    };
    paypalEnv = {
      PAYOUT_RAIL: 'paypal',
      PAYPAL_CLIENT_ID: fake.clientId,
      PAYPAL_CLIENT_SECRET: fake.clientSecret,
      PAYPAL_WEBHOOK_ID: fake.webhookId,
      PAYPAL_API_BASE: fake.url,
    };
    const rails = railAdapters({ cards: 'sandbox', identity: 'sandbox', payouts: 'paypal' }, { paypal });
    const { orm, redis, redisUrl, databaseUrl, signer } = h();
    const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'holdfast-test-paypal');
    // The harness's sweeper waits as long: neither set of workers takes the other's pending commands meanwhile.
    workers = await startWorkers({ orm, redisUrl, queuePrefix: prefix, logger, commandSweepAfterMs: 30_000, databaseUrl, rails });
    bus = new CommandBus(redisUrl, prefix, redis);
    const app = await buildApp({
      config: {
        appEnv: 'staging',
        publicUrl: 'http://localhost:3000',
        syncWaitMs: 10_000,
        queuePrefix: prefix,
        providerWebhooks: { stripeWebhookSecret: undefined, paypalWebhookId: fake.webhookId },
        // The fake's cert_url is on its own origin: taken as PayPal's because it is the configured API base.
        paypal,
      },
      orm,
      redis,
      signer,
      bus,
      logger,
      verifyPaypalWebhook: rails.paypal!.verifyWebhookSignature,
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fake.webhookUrl = `${base}/hooks/paypal`;
    client = await newClient();
  });

  after(async () => {
    await fake?.stop();
    if (server) {
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    await workers?.close();
    await bus?.close();
    const keys = await h().redis.keys(`${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`);
    if (keys.length) await h().redis.del(...keys);
  });

  const api = (method: string, path: string, body?: unknown) => call(method, path, { token: client.token, body, baseUrl: base });

  /**
   * The walk-through's seller: registered with a buyer, USD 12.00 earned through an escrow paid
   * by the buyer's sandbox card and committed, KYC accepted, and a PayPal destination `email`.
   */
  async function seller(email: string, opts: { kycByCli?: boolean } = {}) {
    const n = unique();
    const reg = async (name: string) =>
      (await api('POST', '/register', { username: `${name}-${n}`, email: { address: `${name}-${n}@example.com` } })).body.payload
        .account_id;
    const buyer = await reg('buyer');
    const account = await reg('seller');
    const card = (
      await api('POST', `/v1/${buyer}/payment_methods`, {
        type: 'card',
        card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
      })
    ).body.payload.id;
    const methods = (await api('GET', `/v1/${account}/payment_methods`)).body.payload;
    const usd = methods.find(
      (m: any) => m.provider === 'wallet' && m.processing_currency === 'USD' && m.provider_data.wallet_type === 'fiat',
    );
    const escrow = await api('POST', '/v2/escrow', {
      account_id: buyer,
      reference_type: 'order',
      reference_id: n,
      payment_methods: [{ payment_method_id: card, amount: 0 }],
      line_items: [
        {
          amount: 1550,
          currency: 'USD',
          transaction_type: 'user_to_user',
          product_sku: 'sword-1',
          recipients: [{ amount: 1200, currency: 'USD', destination_wallet_id: usd.provider_data.wallet_id }],
        },
      ],
    });
    assert.equal(escrow.status, 201, escrow.text);
    const id = escrow.body.payload.id;
    for (const [step, status] of [
      ['pay', 'ESCROWED'],
      ['commit', 'COMMITTED'],
    ]) {
      const res = await call('POST', `/v2/escrow/${id}/${step}`, {
        token: client.token,
        baseUrl: base,
        headers: { 'idempotency-key': `${step}-${id}` },
      });
      assert.equal(res.body.payload.status, status, res.text);
    }
    if (opts.kycByCli) {
      const decided = await holdfastCli(['kyc', 'decide', account, '--state', 'ACCEPT', '--reason', 'checked', '--json']);
      assert.equal(decided.status, 0, decided.stderr);
    } else await decideKyc(h().orm.em.fork(), account, 'ACCEPT', false);
    assert.equal((await api('GET', `/v1/kyc/${account}`)).body.payload.state, 'ACCEPT');
    const destination = (await api('POST', `/v1/${account}/payment_methods`, { type: 'paypal', paypal: { email } })).body.payload.id;
    return { account, usd: usd.id as string, destination: destination as string };
  }

  type Seller = Awaited<ReturnType<typeof seller>>;
  const walletBalance = async (s: Seller) =>
    Number((await api('GET', `/v1/${s.account}/payment_methods`)).body.payload.find((m: any) => m.id === s.usd).wallet_balance);
  const request = async (s: Seller, amount: number) => {
    const res = await api('POST', `/v2/${s.account}/payout`, {
      source_payment_method_id: s.usd,
      destination_payment_method_id: s.destination,
      amount,
      currency: 'USD',
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.payload.payout_status, 'FUNDS-IN-ESCROW');
    return res.body.payload.payout_status_id as string;
  };
  const payout = async (s: Seller, id: string) => (await api('GET', `/v2/${s.account}/payout/${id}`)).body.payload;
  /** Waits until the payout is in `status` (the webhook's command has run). */
  const settled = async (s: Seller, id: string, status: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const p = await payout(s, id);
      if (p.payout_status === status) return p;
      if (Date.now() > deadline) assert.fail(`payout ${id} is ${p.payout_status}, not ${status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  const approve = async (id: string) => {
    const res = await holdfastCli(['payouts', 'approve', id, '--reason', 'checked', '--json'], paypalEnv);
    assert.equal(res.status, 0, res.stderr);
    return JSON.parse(res.stdout) as { payout_status: string };
  };
  const autoApprove = (max: number) => updateIntegrator(h().orm.em.fork(), client.integrator, { payoutAutoApproveMax: max });
  /** PayPal's item of an attempt, as the fake holds it. */
  const item = (id: string, attempt = 1) => {
    const found = fake.itemOfSenderBatch(`${id}-${attempt}`);
    assert.ok(found, `no PayPal batch ${id}-${attempt}`);
    return found;
  };
  /** The events PayPal made about an attempt's item, oldest first. */
  const eventsOf = (id: string, attempt = 1) => fake.events.filter((e) => e.resource.payout_item.sender_item_id === `${id}-${attempt}`);

  it('pays a payout the operator approved: PROCESSING, then SUCCESS by webhook with its execute posting', async () => {
    const s = await seller(`paid-${unique()}@example.com`, { kycByCli: true });
    assert.equal(await walletBalance(s), 1200);
    const id = await request(s, 1000);
    assert.equal(await walletBalance(s), 200);
    assert.equal((await approve(id)).payout_status, 'PROCESSING');
    const paid = await settled(s, id, 'SUCCESS');
    assert.equal(paid.failure_code, '');
    assert.equal(item(id).transaction_status, 'SUCCESS');
    assert.deepEqual(item(id).payout_item.amount, { currency: 'USD', value: '10.00' });
    assert.deepEqual(await payoutPostings(id), [`payout:${id}:execute`, `payout:${id}:hold`]);
    assert.deepEqual(await payoutEvents(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'SUCCESS']);
    assert.deepEqual(await providerObjects(id), [
      [`payout:${id}:1`, 'payout_batch', null],
      [`payout:${id}:1`, 'payout_item', 'SUCCESS'],
    ]);
    assert.equal(await walletBalance(s), 200);
  });

  it('holds a failed payout (FAILED); approved again it is attempt 2, sender_batch_id <id>-2', async () => {
    const s = await seller(`fails+${unique()}@example.com`);
    const id = await request(s, 500);
    assert.equal((await approve(id)).payout_status, 'PROCESSING');
    const failed = await settled(s, id, 'FAILED');
    assert.equal(failed.failure_code, 'receiver_account_locked');
    assert.equal(failed.failure_reason, 'Receiver account is locked or inactive.');
    assert.deepEqual(await payoutPostings(id), [`payout:${id}:hold`]);
    assert.equal(await walletBalance(s), 700);

    assert.equal((await approve(id)).payout_status, 'PROCESSING');
    assert.equal(item(id, 2).payout_item.sender_item_id, `${id}-2`);
    assert.equal(fake.batches.get(item(id, 2).payout_batch_id)?.sender_batch_header.sender_batch_id, `${id}-2`);
    await settled(s, id, 'FAILED');
    assert.deepEqual(await payoutEvents(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'FAILED', 'PROCESSING', 'FAILED']);
    assert.deepEqual(
      (await providerObjects(id)).map(([ref, type]) => `${ref} ${type}`),
      [`payout:${id}:1 payout_batch`, `payout:${id}:1 payout_item`, `payout:${id}:2 payout_batch`, `payout:${id}:2 payout_item`],
    );
    // A late copy of attempt 1's FAILED changes nothing on attempt 2 (here, already FAILED too).
    await fake.redeliver(eventsOf(id, 1)[0].id);
    // Held, the money can go back to the wallet.
    const back = await api('DELETE', `/v2/${s.account}/payout/${id}`);
    assert.equal(back.body.payload.payout_status, 'USER-REVERSED', back.text);
    assert.equal(await walletBalance(s), 1200);
  });

  it('holds a payout PayPal blocked or denied (FAILED, with its error as failure_code)', async () => {
    await autoApprove(10_000);
    try {
      for (const [receiver, code] of [
        ['blocked', 'regulatory_blocked'],
        ['denied', 'risk_decline'],
      ]) {
        const s = await seller(`${receiver}+${unique()}@example.com`);
        const id = await request(s, 200);
        assert.equal((await settled(s, id, 'FAILED')).failure_code, code);
        assert.deepEqual(await payoutPostings(id), [`payout:${id}:hold`]);
        assert.deepEqual((await providerObjects(id)).at(-1), [`payout:${id}:1`, 'payout_item', receiver.toUpperCase()]);
      }
    } finally {
      await autoApprove(0);
    }
  });

  it('gives a returned payout back to the wallet; duplicated and out-of-order webhooks apply once', async () => {
    await autoApprove(10_000);
    try {
      const s = await seller(`returned+${unique()}@example.com`);
      fake.holdDeliveries();
      const id = await request(s, 800);
      await settled(s, id, 'PROCESSING');
      await fake.until(() => eventsOf(id).length === 2);
      assert.deepEqual(
        eventsOf(id).map((e) => e.event_type),
        ['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 'PAYMENT.PAYOUTS-ITEM.RETURNED'],
      );
      // RETURNED first, then UNCLAIMED, then each again.
      await fake.releaseDeliveries({ reverse: true });
      await settled(s, id, 'RETURNED');
      for (const e of eventsOf(id)) await fake.redeliver(e.id);
      const ids = eventsOf(id).map((e) => e.id);
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(
        (await storedEvents(ids)).map((e) => e.outcome),
        ['applied', 'applied'],
      );
      assert.equal((await payout(s, id)).payout_status, 'RETURNED');
      assert.deepEqual(await payoutPostings(id), [`payout:${id}:hold`, `payout:${id}:return`]);
      assert.deepEqual(await payoutEvents(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'RETURNED']);
      assert.equal(await walletBalance(s), 1200);
      // The later UNCLAIMED did not overwrite the item PayPal returned.
      assert.deepEqual((await providerObjects(id)).at(-1), [`payout:${id}:1`, 'payout_item', 'RETURNED']);

      // A paid payout PayPal then reports RETURNED stays SUCCESS: PayPal returns only unclaimed items, and the first outcome stands.
      const t = await seller(`paid-${unique()}@example.com`);
      const paidId = await request(t, 300);
      await settled(t, paidId, 'SUCCESS');
      await fake.settle(item(paidId).payout_item_id, 'RETURNED');
      await fake.until(() => eventsOf(paidId).length === 2);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await payout(t, paidId)).payout_status, 'SUCCESS');
      assert.deepEqual(await payoutPostings(paidId), [`payout:${paidId}:execute`, `payout:${paidId}:hold`]);
      assert.deepEqual((await providerObjects(paidId)).at(-1), [`payout:${paidId}:1`, 'payout_item', 'SUCCESS']);
      assert.equal(await walletBalance(t), 900);
    } finally {
      fake.holdDeliveries();
      await fake.releaseDeliveries();
      await autoApprove(0);
    }
  });

  it('leaves an unclaimed payout PROCESSING (DELETE answers 409) until PayPal pays it; a forged webhook is refused', async () => {
    const s = await seller(`unclaimed+${unique()}@example.com`);
    const id = await request(s, 400);
    assert.equal((await approve(id)).payout_status, 'PROCESSING');
    await fake.until(() => eventsOf(id).length === 1 && fake.deliveries.some((d) => d.eventId === eventsOf(id)[0].id && d.status === 200));
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await payout(s, id)).payout_status, 'PROCESSING');
    const del = await api('DELETE', `/v2/${s.account}/payout/${id}`);
    assert.equal(del.status, 409, del.text);
    assert.deepEqual(del.body.codes, ['PAYOUT_STATE_ERROR']);

    const unclaimed = eventsOf(id)[0];
    const forged = { ...unclaimed, id: `WH-FORGED-${unique()}`, event_type: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' };
    forged.resource = { ...unclaimed.resource, transaction_status: 'SUCCESS' };
    for (const how of ['bad-signature', 'other-webhook', 'tampered'] as const)
      assert.equal((await fake.forge(forged, how)).status, 400, how);
    assert.deepEqual(await storedEvents([forged.id]), []);
    assert.equal((await payout(s, id)).payout_status, 'PROCESSING');
    assert.deepEqual(await payoutPostings(id), [`payout:${id}:hold`]);

    // The receiver claims it: PayPal pays it.
    await fake.settle(item(id).payout_item_id, 'SUCCESS');
    await settled(s, id, 'SUCCESS');
    assert.deepEqual(await payoutEvents(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'SUCCESS']);
  });

  it('waits out PayPal down for a while: the payout command finishes once, one batch created', async () => {
    await autoApprove(10_000);
    try {
      const s = await seller(`down-${unique()}@example.com`);
      // Every payouts call answers 500 for 2.5 s: the execution's job fails and is retried with backoff.
      fake.fault({ kind: '500', ms: 2_500, match: '/v1/payments/payouts' });
      const id = await request(s, 600);
      await settled(s, id, 'SUCCESS');
      const creates = fake.requests.filter(
        (r) => r.method === 'POST' && r.path === '/v1/payments/payouts' && r.json?.sender_batch_header?.sender_batch_id === `${id}-1`,
      );
      assert.ok(creates.length >= 2, `${creates.length} create calls`);
      assert.equal(creates[0].status, 500);
      assert.deepEqual(
        creates.filter((r) => r.status !== 500).map((r) => r.status),
        [201],
      );
      assert.equal([...fake.batches.values()].filter((b) => b.sender_batch_header.sender_batch_id === `${id}-1`).length, 1);
      const execute = async () =>
        (
          await db(h().orm.em).execute<Array<{ state: string }>>(
            `select state from command where kind = 'payout.execute' and target_id = ?`,
            [id],
          )
        ).map((c) => c.state);
      await until('the execution to end', async () => ((await execute()).join() === 'done' ? true : undefined), undefined, 10_000);
      assert.deepEqual(await payoutPostings(id), [`payout:${id}:execute`, `payout:${id}:hold`]);
      // PROCESSING once the rail took it, unless PayPal's SUCCEEDED settled it before the execution's answer committed.
      assert.deepEqual(
        (await payoutEvents(id)).filter((e) => e !== 'PROCESSING'),
        ['FUNDS-IN-ESCROW', 'SUCCESS'],
      );
    } finally {
      await autoApprove(0);
    }
  });

  it('holdfast ledger verify is clean, and names a payout whose stored PayPal item says another amount', async () => {
    const clean = await holdfastCli(['ledger', 'verify']);
    assert.equal(clean.status, 0, clean.stdout + clean.stderr);
    const s = await seller(`paid-${unique()}@example.com`);
    const id = await request(s, 100);
    await approve(id);
    await settled(s, id, 'SUCCESS');
    const itemId = item(id).payout_item_id;
    const db = h().orm.em.fork();
    await db.execute(
      `update provider_object set snapshot = jsonb_set(snapshot, '{payout_item,amount,value}', '"1.50"') where provider = 'paypal' and object_id = ?`,
      [itemId],
    );
    try {
      const broken = await holdfastCli(['ledger', 'verify']);
      assert.equal(broken.status, 1, broken.stdout);
      assert.match(broken.stdout + broken.stderr, new RegExp(`payout ${id} \\(SUCCESS, USD 100\\): PayPal item ${itemId} is for USD 150`));
    } finally {
      await db.execute(
        `update provider_object set snapshot = jsonb_set(snapshot, '{payout_item,amount,value}', '"1.00"') where provider = 'paypal' and object_id = ?`,
        [itemId],
      );
    }
    const again = await holdfastCli(['ledger', 'verify']);
    assert.equal(again.status, 0, again.stdout + again.stderr);
  });
});
