/**
 * 3-D Secure with the buyer present (the hosted checkout's pay, CARD_PROCESSOR=stripe), at the
 * API: a pay naming `return_url` with the buyer's password token leaves a card that needs
 * authentication PROCESSING with Stripe's page, answers 202 with Location, and Stripe's signed
 * webhooks (`POST /hooks/stripe`, sent by the fake) settle the invoice once through the
 * provider-event inbox and `invoice.confirm` — duplicated, out of order, or stale. The app and
 * the command workers run on a queue prefix of their own, against the Stripe fake.
 */
import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { db as pooled } from '../../src/db/sql.js';
import { invoiceCommands } from '../../src/invoices/invoice.commands.js';
import { providerEventHandlers } from '../../src/provider-events/provider-event-handlers.js';
import type { ProviderEventRecord } from '../../src/provider-events/provider-event.rules.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { providerObjectsOf } from '../../src/rails/provider-object.repository.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, startExtraApp, unique, type ApiResponse, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

describe('3-D Secure with the buyer present (CARD_PROCESSOR=stripe, webhooks from the Stripe fake)', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  let app: { baseUrl: string; close(): Promise<void> };
  let workers: RunningWorkers;
  let bus: CommandBus;
  let client: TestClient;
  let seller: Party;
  const prefix = `{holdfast-3ds-${unique()}}`;
  const secret = `whsec_${unique('k').replace(/[^A-Za-z0-9]/g, '')}`;

  before(async () => {
    fake = await startStripeFake();
    const stripeApi = {
      secretKey: fake.secretKey,
      host: fake.host,
      port: fake.port,
      protocol: fake.protocol,
      jsUrl: fake.jsUrl,
      publishableKey: fake.publishableKey,
    };
    const cards = cardProcessorFor('stripe', stripeApi);
    bus = new CommandBus(h().redisUrl, prefix);
    workers = await startWorkers({
      orm: h().orm,
      redisUrl: h().redisUrl,
      queuePrefix: prefix,
      logger: createLogger('silent', 'holdfast-test'),
      commandSweepAfterMs: 30_000,
      queues: [QueueName.Commands],
      cards,
    });
    app = await startExtraApp({
      bus,
      cards,
      syncWaitMs: 20_000,
      stripeApi,
      stripeWebhookSecret: secret,
      allowedRedirectPatterns: ['127.0.0.1'],
    });
    fake.addWebhookEndpoint({ url: `${app.baseUrl}/hooks/stripe`, secret });
    client = await newClient();
    seller = await party(client);
  });
  after(async () => {
    await app?.close();
    await workers?.close();
    await bus?.close();
    await fake?.stop();
  });

  const api = <T = any>(method: string, path: string, opts: { token?: string; body?: unknown } = {}): Promise<ApiResponse<T>> =>
    call<T>(method, path, {
      token: opts.token ?? client.token,
      baseUrl: app.baseUrl,
      ...(opts.body === undefined ? {} : { body: opts.body }),
    });

  async function buyerWith(token: string): Promise<Party & { card: string }> {
    const p = await party(client);
    const res = await api('POST', `/v1/${p.account_id}/payment_methods`, {
      body: { type: 'card', card: { stripe_payment_method: token } },
    });
    assert.equal(res.status, 201, res.text);
    return { ...p, card: res.body.payload.id };
  }

  /** An invoice authorized for `buyer` (mechanism api): its id and the buyer's password token. */
  async function authorized(buyer: string, amount: number) {
    const res = await api('POST', '/v2/authorize/invoice', {
      body: {
        account_id: buyer,
        invoice_mechanism: 'api',
        reference_type: 'order',
        reference_id: unique('o'),
        line_items: [
          {
            amount,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: Math.floor(amount / 2), currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
          },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    return { id: res.body.payload.authorized_invoice_id as string, token: res.body.payload.password_token.access_token as string };
  }

  const returnUrl = (id: string) => `${app.baseUrl}/ui/checkout?authorized_invoice_id=${id}`;

  /** The buyer's pay from the hosted checkout: their password token and the page to come back to. */
  const hostedPay = (inv: { id: string; token: string }, methods: Array<{ payment_method_id: string; amount: number }>) =>
    api('POST', `/v2/invoice/${inv.id}/pay`, { token: inv.token, body: { payment_methods: methods, return_url: returnUrl(inv.id) } });

  async function settled(id: string): Promise<any> {
    for (let i = 0; i < 150; i++) {
      const res = await api('GET', `/v2/invoice/${id}`);
      if (res.body.payload.state !== 'PROCESSING') return res.body.payload;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.fail(`invoice ${id} stayed PROCESSING`);
  }

  /** The references of the postings an invoice's pay made (a card pay: `:pay` and `:pay:shares`, once each). */
  const payPostings = async (id: string) =>
    (
      await h()
        .orm.em.fork()
        .execute<Array<{ reference: string }>>('select reference from ledger_posting where reference like ? order by reference', [
          `invoice:${id}:%`,
        ])
    ).map((r) => r.reference);
  const paidOnce = (id: string) => [`invoice:${id}:pay`, `invoice:${id}:pay:shares`];
  const intentOf = async (id: string, pm: string) =>
    (await providerObjectsOf(pooled(h().orm.em.fork()), `invoice:${id}:charge:${pm}`)).find((o) => o.objectType === 'payment_intent')!;

  it('an API pay stays off-session: a client token naming return_url is refused, the pay fails authentication_required', async () => {
    const b = await buyerWith('pm_card_authenticationRequired');
    const inv = await authorized(b.account_id, 1000);
    const refused = await api('POST', `/v2/invoice/${inv.id}/pay`, {
      body: { payment_methods: [{ payment_method_id: b.card, amount: 0 }], return_url: returnUrl(inv.id) },
    });
    assert.equal(refused.status, 400, refused.text);
    assert.deepEqual(refused.body.payload.errors, { return_url: ['NOT_ALLOWED'] });
    const elsewhere = await api('POST', `/v2/invoice/${inv.id}/pay`, {
      token: inv.token,
      body: { payment_methods: [{ payment_method_id: b.card, amount: 0 }], return_url: 'https://phish.example/back' },
    });
    assert.equal(elsewhere.status, 400, elsewhere.text);
    assert.deepEqual(elsewhere.body.payload.errors, { return_url: ['REDIRECT_NOT_ALLOWED'] });
    const pay = await api('POST', `/v2/invoice/${inv.id}/pay`, { body: { payment_methods: [{ payment_method_id: b.card, amount: 0 }] } });
    assert.equal(pay.status, 200, pay.text);
    assert.deepEqual([pay.body.payload.state, pay.body.payload.failure_reason], ['FAILED', 'authentication_required']);
    assert.equal(pay.body.payload.next_action_url, undefined);
  });

  it('the buyer present: 202 PROCESSING with the bank page; completing 3-D Secure settles it once through the webhooks', async () => {
    const b = await buyerWith('pm_card_authenticationRequired');
    const inv = await authorized(b.account_id, 1000);
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const pay = await hostedPay(inv, [{ payment_method_id: b.card, amount: 0 }]);
    assert.equal(pay.status, 202, pay.text);
    assert.equal(pay.headers.get('location'), `/v2/invoice/${inv.id}`);
    assert.equal(pay.body.payload.state, 'PROCESSING');
    const intent = await intentOf(inv.id, b.card);
    assert.equal(intent.snapshot.status, 'requires_action');
    assert.equal(pay.body.payload.next_action_url, `${fake.url}/3ds/${intent.objectId}`);
    const created = fake
      .requestsTo('POST', '/v1/payment_intents')
      .find((r) => r.body.metadata?.holdfast_ref === `invoice:${inv.id}:charge:${b.card}`)!;
    assert.equal(created.body.off_session, undefined, 'buyer present: not off-session');
    assert.equal(created.body.return_url, returnUrl(inv.id));
    // A pay meanwhile answers it as it stands; nothing moved.
    const again = await hostedPay(inv, [{ payment_method_id: b.card, amount: 0 }]);
    assert.deepEqual([again.status, again.body.payload.state, again.headers.get('location')], [202, 'PROCESSING', `/v2/invoice/${inv.id}`]);
    assert.deepEqual(await payPostings(inv.id), []);

    fake.authenticate(intent.objectId, 'complete');
    const done = await settled(inv.id);
    assert.deepEqual([done.state, done.failure_reason, done.next_action_url], ['SUCCESS', '', undefined]);
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), before + 500);
    assert.deepEqual(await payPostings(inv.id), paidOnce(inv.id));
    await fake.waitForEvent('payment_intent.succeeded', (e) => e.data.object.id === intent.objectId);
    await fake.eventsDelivered();
    assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${intent.objectId}/capture`).length, 1, 'captured once');
    assert.equal((await intentOf(inv.id, b.card)).snapshot.status, 'succeeded');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('failed (or abandoned) 3-D Secure: FAILED authentication_failed, no money moved, wallet part untouched', async () => {
    const b = await buyerWith('pm_card_authenticationRequired');
    await fund(b, 'USD:fiat', 300);
    const inv = await authorized(b.account_id, 1000);
    const pay = await hostedPay(inv, [
      { payment_method_id: b.wallets['USD:fiat'].pm, amount: 300 },
      { payment_method_id: b.card, amount: 0 },
    ]);
    assert.deepEqual([pay.status, pay.body.payload.state], [202, 'PROCESSING'], pay.text);
    const intent = await intentOf(inv.id, b.card);
    assert.equal(intent.snapshot.amount, 700);
    fake.authenticate(intent.objectId, 'fail');
    const done = await settled(inv.id);
    assert.deepEqual([done.state, done.failure_reason], ['FAILED', 'authentication_failed']);
    assert.deepEqual(await payPostings(inv.id), []);
    assert.equal(await balance(b.wallets['USD:fiat'].wallet), 300);
    assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${intent.objectId}/capture`).length, 0);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a wallet part no longer covering its share when the bank answers: FAILED, the card hold released, nothing moved', async () => {
    const b = await buyerWith('pm_card_authenticationRequired');
    await fund(b, 'USD:fiat', 300);
    const inv = await authorized(b.account_id, 1000);
    const pay = await hostedPay(inv, [
      { payment_method_id: b.wallets['USD:fiat'].pm, amount: 300 },
      { payment_method_id: b.card, amount: 0 },
    ]);
    assert.equal(pay.body.payload.state, 'PROCESSING', pay.text);
    // The wallet was not held: spent meanwhile, it is short when the pay is decided.
    await fund(b, 'USD:fiat', -200);
    const intent = await intentOf(inv.id, b.card);
    fake.authenticate(intent.objectId, 'complete');
    const done = await settled(inv.id);
    assert.deepEqual([done.state, done.failure_reason], ['FAILED', 'insufficient_funds']);
    assert.deepEqual(await payPostings(inv.id), []);
    assert.equal(await balance(b.wallets['USD:fiat'].wallet), 100);
    assert.equal((await intentOf(inv.id, b.card)).snapshot.status, 'canceled', 'the authorized hold is released');
    assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${intent.objectId}/capture`).length, 0);
  });

  it('another card declined while one awaits 3-D Secure: FAILED at once, the awaiting charge cancelled', async () => {
    const b = await buyerWith('pm_card_authenticationRequired');
    const declining = await api('POST', `/v1/${b.account_id}/payment_methods`, {
      body: { type: 'card', card: { stripe_payment_method: 'pm_card_chargeCustomerFail' } },
    });
    assert.equal(declining.status, 201, declining.text);
    const inv = await authorized(b.account_id, 1000);
    const pay = await hostedPay(inv, [
      { payment_method_id: declining.body.payload.id, amount: 400 },
      { payment_method_id: b.card, amount: 0 },
    ]);
    assert.equal(pay.status, 200, pay.text);
    assert.deepEqual([pay.body.payload.state, pay.body.payload.failure_reason], ['FAILED', 'card_declined']);
    const intent = await intentOf(inv.id, b.card);
    assert.equal(intent.snapshot.status, 'canceled', 'the buyer can no longer authenticate a charge of a failed pay');
    assert.equal(fake.api.paymentIntents.get(intent.objectId)?.status, 'canceled');
  });

  it('a worker without the Stripe client (the sandbox processor) leaves invoice.confirm pending rather than answer it', async () => {
    const b = await buyerWith('pm_card_authenticationRequired');
    const inv = await authorized(b.account_id, 1000);
    assert.equal((await hostedPay(inv, [{ payment_method_id: b.card, amount: 0 }])).body.payload.state, 'PROCESSING');
    const db = pooled(h().orm.em.fork());
    const commandId = await submitCommand(db, { integratorId: b.integrator_id, kind: 'invoice.confirm', targetId: inv.id });
    await assert.rejects(runCommandWith(invoiceCommands['invoice.confirm']!, h().orm.em.fork(), commandId), /no client for/);
    const [row] = await h().orm.em.fork().execute<Array<{ state: string }>>('select state from command where id = ?', [commandId]);
    assert.equal(row.state, 'pending');
    // Stripe's event then names the same pending command, which a worker with the client settles.
    fake.authenticate((await intentOf(inv.id, b.card)).objectId, 'fail');
    assert.equal((await settled(inv.id)).state, 'FAILED');
  });

  it('webhooks duplicated, out of order and stale settle the invoice once', async () => {
    const b = await buyerWith('pm_card_threeDSecure2Required');
    const inv = await authorized(b.account_id, 2000);
    const pay = await hostedPay(inv, [{ payment_method_id: b.card, amount: 0 }]);
    assert.equal(pay.body.payload.state, 'PROCESSING', pay.text);
    const intent = await intentOf(inv.id, b.card);
    const sent = fake.events.length;
    fake.holdEvents();
    fake.authenticate(intent.objectId, 'complete');
    // Newest first, then each once more.
    const released = fake.releaseEvents('reversed');
    assert.ok(
      released.some((e) => e.type === 'payment_intent.amount_capturable_updated'),
      released.map((e) => e.type).join(),
    );
    for (const e of released) fake.redeliver(e.id);
    const done = await settled(inv.id);
    assert.equal(done.state, 'SUCCESS');
    await fake.waitForEvent('payment_intent.succeeded', (e) => e.data.object.id === intent.objectId);
    await fake.eventsDelivered();
    for (const e of fake.events.slice(sent)) fake.redeliver(e.id);
    await fake.eventsDelivered();
    // A stale failure about the same intent (an older sight) after the success: looked at again, it changes nothing.
    const db = pooled(h().orm.em.fork());
    const stale = await providerEventHandlers.find('stripe', 'payment_intent.payment_failed')!(db, {
      providerEventId: `evt_${unique()}`,
      type: 'payment_intent.payment_failed',
      payload: { type: 'payment_intent.payment_failed', data: { object: { ...intent.snapshot, status: 'requires_payment_method' } } },
    } as unknown as ProviderEventRecord);
    assert.equal(stale, 'ignored');
    assert.equal((await api('GET', `/v2/invoice/${inv.id}`)).body.payload.state, 'SUCCESS');
    assert.deepEqual(await payPostings(inv.id), paidOnce(inv.id), 'paid once');
    assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${intent.objectId}/capture`).length, 1, 'captured once');
    const inbox = await h()
      .orm.em.fork()
      .execute<Array<{ type: string; n: string }>>(
        `select type, count(*) as n from provider_event where payload -> 'data' -> 'object' ->> 'id' = ? group by type`,
        [intent.objectId],
      );
    assert.ok(inbox.length > 0, 'the events reached the inbox');
    assert.ok(
      inbox.every((r) => r.n === '1'),
      'each event stored once',
    );
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});
