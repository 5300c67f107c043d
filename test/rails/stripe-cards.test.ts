/**
 * The card rail on the Stripe adapter, end to end: the app and the command workers run with
 * CARD_PROCESSOR=stripe against the local Stripe fake (the official `stripe` package is the
 * client), on a queue prefix of their own so the suite's sandbox workers never run these
 * commands. Cards are added from Stripe's test PaymentMethods; pays authorize and capture
 * PaymentIntents; refunds and escrow cancels are Refunds; every call carries its command's
 * idempotency key.
 */
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { systemAccount } from '../../src/ledger/ledger.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { CardProviderUnavailable, type CardProcessor } from '../../src/rails/card-processor.port.js';
import { runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { commandsWithUnsettledHolds, saveRefundSight } from '../../src/invoices/card-charges.service.js';
import { invoiceCommandsWith } from '../../src/invoices/invoice.commands.js';
import { escrowCommandsWith } from '../../src/escrow/escrow.commands.js';
import { providerEventHandlers } from '../../src/provider-events/provider-event-handlers.js';
import type { ProviderEventRecord } from '../../src/provider-events/provider-event.rules.js';
import { findProviderObject, providerObjectsOf } from '../../src/rails/provider-object.repository.js';
import { createLogger } from '../../src/runtime/logger.js';
import { db as pooled } from '../../src/db/sql.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, holdfastCli, newClient, startExtraApp, unique, type ApiResponse, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

describe('cards on Stripe (CARD_PROCESSOR=stripe, against the Stripe fake)', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  let app: { baseUrl: string; close(): Promise<void> };
  let workers: RunningWorkers;
  let bus: CommandBus;
  let cards: CardProcessor;
  let client: TestClient;
  let seller: Party;
  const prefix = `{holdfast-stripe-${unique()}}`;

  before(async () => {
    fake = await startStripeFake();
    // Configured as a process is: STRIPE_API_BASE split into the package's host, port and protocol.
    const config = loadConfig({
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_API_BASE: fake.url,
      STRIPE_WEBHOOK_SECRET: 'whsec_test_cards_fake',
    });
    assert.deepEqual([config.stripeApi.host, config.stripeApi.port, config.stripeApi.protocol], [fake.host, fake.port, 'http']);
    cards = cardProcessorFor(config.rails.cards, config.stripeApi);
    bus = new CommandBus(h().redisUrl, prefix);
    workers = await startWorkers({
      orm: h().orm,
      redisUrl: h().redisUrl,
      queuePrefix: prefix,
      logger: createLogger('silent', 'holdfast-test'),
      commandSweepAfterMs: 30_000,
      // Commands only: the suite's sweeper and ours must not trade commands across processors.
      queues: [QueueName.Commands],
      cards,
    });
    app = await startExtraApp({ bus, cards, syncWaitMs: 20_000 });
    client = await newClient();
    seller = await party(client);
  });
  after(async () => {
    await app?.close();
    await workers?.close();
    await bus?.close();
    await fake?.stop();
  });

  const api = <T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> =>
    call<T>(method, path, { token: client.token, baseUrl: app.baseUrl, ...(body === undefined ? {} : { body }) });

  async function addStripeCard(accountId: string, token: string): Promise<string> {
    const res = await api('POST', `/v1/${accountId}/payment_methods`, { type: 'card', card: { stripe_payment_method: token } });
    assert.equal(res.status, 201, res.text);
    return res.body.payload.id;
  }

  async function buyerWith(...tokens: string[]): Promise<Party & { cards: string[] }> {
    const p = await party(client);
    const cards: string[] = [];
    for (const t of tokens) cards.push(await addStripeCard(p.account_id, t));
    return { ...p, cards };
  }

  const lineItems = (amount: number) => [
    {
      amount,
      currency: 'USD',
      transaction_type: 'user_to_user',
      recipients: [{ amount: Math.floor(amount / 2), currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
    },
  ];

  async function invoice(buyer: string, charges: Array<{ payment_method_id: string; amount: number }>, amount: number) {
    const res = await api('POST', '/v2/invoice', {
      account_id: buyer,
      reference_type: 'order',
      reference_id: unique('o'),
      payment_methods: charges,
      line_items: lineItems(amount),
    });
    assert.equal(res.status, 201, res.text);
    return res.body.payload.invoice_id as string;
  }

  async function escrow(buyer: string, charges: Array<{ payment_method_id: string; amount: number }>, amount: number) {
    const res = await api('POST', '/v2/escrow', {
      account_id: buyer,
      reference_type: 'order',
      reference_id: unique('o'),
      description: 'A sword',
      payment_methods: charges,
      line_items: lineItems(amount),
    });
    assert.equal(res.status, 201, res.text);
    return res.body.payload as { id: string; escrow_invoice_id: string };
  }

  const intentsOf = async (invoiceId: string, pm: string) =>
    (await providerObjectsOf(pooled(h().orm.em.fork()), `invoice:${invoiceId}:charge:${pm}`)).map((o) => o.snapshot as any);

  describe('adding a card', () => {
    it('adds a card from a Stripe PaymentMethod, attached to the one Stripe Customer of the account', async () => {
      const p = await party(client);
      const first = await api('POST', `/v1/${p.account_id}/payment_methods`, {
        type: 'card',
        card: { stripe_payment_method: 'pm_card_visa' },
      });
      assert.equal(first.status, 201, first.text);
      const card = first.body.payload;
      assert.equal(card.provider, 'card');
      assert.deepEqual([card.provider_data.brand, card.provider_data.last4, card.display_string], ['visa', '4242', 'Visa •••• 4242']);
      assert.match(card.psp_reference, /^pm_/);
      assert.notEqual(card.psp_reference, 'pm_card_visa', 'Stripe gives a test token a PaymentMethod of its own');
      assert.ok(card.psp_hash_code, "Stripe's fingerprint");
      const second = await addStripeCard(p.account_id, 'pm_card_mastercard');
      const rows = await h()
        .orm.em.fork()
        .execute<Array<{ id: string; details: any }>>(
          `select id, details from payment_method where account_id = ? and provider = 'card' order by created_at`,
          [p.account_id],
        );
      assert.deepEqual(
        rows.map((r) => r.id),
        [card.id, second],
      );
      assert.match(rows[0].details.customer_id, /^cus_/);
      assert.equal(rows[1].details.customer_id, rows[0].details.customer_id, 'one Customer per account');
      assert.equal(fake.requestsTo('POST', '/v1/customers').filter((r) => r.body.metadata?.holdfast_account_id === p.account_id).length, 1);
      assert.ok(!JSON.stringify(rows).includes('4242424242424242'));
    });

    it('refuses a raw card number under the Stripe processor (400 naming card.number)', async () => {
      const p = await party(client);
      const res = await api('POST', `/v1/${p.account_id}/payment_methods`, {
        type: 'card',
        card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { 'card.number': ['NOT_ALLOWED'] });
    });

    it('refuses a stripe_payment_method under the sandbox processor (400 naming it)', async () => {
      const p = await party(client);
      const res = await call('POST', `/v1/${p.account_id}/payment_methods`, {
        token: client.token,
        body: { type: 'card', card: { stripe_payment_method: 'pm_card_visa' } },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { 'card.stripe_payment_method': ['NOT_ALLOWED'] });
    });

    for (const [token, reason] of [
      ['pm_card_chargeDeclined', 'card_declined'],
      ['pm_card_visa_chargeDeclinedInsufficientFunds', 'insufficient_funds'],
    ] as const) {
      it(`refuses a card Stripe declines when it is attached (${token}: 400 DECLINED, ${reason})`, async () => {
        const p = await party(client);
        const res = await api('POST', `/v1/${p.account_id}/payment_methods`, { type: 'card', card: { stripe_payment_method: token } });
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body.payload.errors, { 'card.stripe_payment_method': ['DECLINED'] });
        assert.match(res.body.message.join(' '), new RegExp(`\\(${reason}\\)`));
        const methods = await api('GET', `/v1/${p.account_id}/payment_methods`);
        assert.equal(methods.body.payload.filter((m: any) => m.provider === 'card').length, 0);
      });
    }

    it('answers 400 naming the field for a PaymentMethod Stripe does not know', async () => {
      const p = await party(client);
      const res = await api('POST', `/v1/${p.account_id}/payment_methods`, {
        type: 'card',
        card: { stripe_payment_method: 'pm_nothing_here' },
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { 'card.stripe_payment_method': ['NOT_FOUND'] });
    });
  });

  describe('paying an invoice (off-session)', () => {
    it('charges the card: a PaymentIntent authorized, then captured, each call under its command key', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1500);
      const paid = await api('POST', `/v2/invoice/${id}/pay`);
      assert.equal(paid.status, 200, paid.text);
      assert.equal(paid.body.payload.state, 'SUCCESS');
      const commandId = paid.headers.get('x-command-id')!;
      const [intent] = await intentsOf(id, b.cards[0]);
      assert.equal(intent.status, 'succeeded');
      assert.equal(intent.amount, 1500);
      assert.equal(intent.capture_method, 'manual');
      const created = fake
        .requestsTo('POST', '/v1/payment_intents')
        .filter((r) => r.body.metadata?.holdfast_ref === `invoice:${id}:charge:${b.cards[0]}`);
      assert.equal(created.length, 1);
      assert.equal(created[0].idempotencyKey, `${commandId}:charge:${b.cards[0]}`);
      assert.equal(created[0].body.off_session, 'true');
      const captured = fake.requestsTo('POST', `/v1/payment_intents/${intent.id}/capture`);
      assert.deepEqual(
        captured.map((r) => r.idempotencyKey),
        [`${commandId}:capture:${b.cards[0]}`],
      );
      assert.equal((await balance(seller.wallets['USD:fiat'].wallet)) > 0, true);
    });

    // Stripe's declining test cards cannot be attached (see 'adding a card'); pm_card_chargeCustomerFail
    // attaches and then declines its charges, as a card that went bad after it was added does.
    for (const [token, reason] of [
      ['pm_card_chargeCustomerFail', 'card_declined'],
      ['pm_card_authenticationRequired', 'authentication_required'],
    ] as const) {
      it(`fails the pay with ${reason} (${token}), moving no money`, async () => {
        const b = await buyerWith(token);
        const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1200);
        const paid = await api('POST', `/v2/invoice/${id}/pay`);
        assert.equal(paid.status, 200, paid.text);
        assert.deepEqual([paid.body.payload.state, paid.body.payload.failure_reason], ['FAILED', reason]);
        const postings = await h()
          .orm.em.fork()
          .execute('select id from ledger_posting where reference like ?', [`invoice:${id}:%`]);
        assert.equal(postings.length, 0);
      });
    }

    it('all or nothing: with a declined second card, the first card’s authorization is released, never captured', async () => {
      const b = await buyerWith('pm_card_visa', 'pm_card_chargeCustomerFail');
      const id = await invoice(
        b.account_id,
        [
          { payment_method_id: b.cards[0], amount: 800 },
          { payment_method_id: b.cards[1], amount: 0 },
        ],
        1600,
      );
      const paid = await api('POST', `/v2/invoice/${id}/pay`);
      assert.deepEqual([paid.body.payload.state, paid.body.payload.failure_reason], ['FAILED', 'card_declined'], paid.text);
      const [held] = await intentsOf(id, b.cards[0]);
      assert.equal(held.status, 'canceled');
      assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${held.id}/capture`).length, 0);
    });

    it('all or nothing: a wallet that cannot cover its part asks nothing of the card', async () => {
      const b = await buyerWith('pm_card_visa');
      const before = fake.requestsTo('POST', '/v1/payment_intents').length;
      const id = await invoice(
        b.account_id,
        [
          { payment_method_id: b.wallets['USD:fiat'].pm, amount: 500 },
          { payment_method_id: b.cards[0], amount: 0 },
        ],
        1500,
      );
      const paid = await api('POST', `/v2/invoice/${id}/pay`);
      assert.deepEqual([paid.body.payload.state, paid.body.payload.failure_reason], ['FAILED', 'insufficient_funds'], paid.text);
      assert.equal(fake.requestsTo('POST', '/v1/payment_intents').length, before);
    });

    it('wallet and card together: both pay, the card captured', async () => {
      const b = await buyerWith('pm_card_visa');
      await fund(b, 'USD:fiat', 500);
      const id = await invoice(
        b.account_id,
        [
          { payment_method_id: b.wallets['USD:fiat'].pm, amount: 500 },
          { payment_method_id: b.cards[0], amount: 0 },
        ],
        1500,
      );
      const paid = await api('POST', `/v2/invoice/${id}/pay`);
      assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
      assert.equal(await balance(b.wallets['USD:fiat'].wallet), 0);
      const [intent] = await intentsOf(id, b.cards[0]);
      assert.deepEqual([intent.status, intent.amount], ['succeeded', 1000]);
    });
  });

  describe('escrow', () => {
    it('pays, then cancels: the cancel refunds the card charge through Stripe', async () => {
      const b = await buyerWith('pm_card_visa');
      const e = await escrow(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 2000);
      const paid = await api('POST', `/v2/escrow/${e.id}/pay`);
      assert.equal(paid.body.payload.status, 'ESCROWED', paid.text);
      const [intent] = await intentsOf(e.escrow_invoice_id, b.cards[0]);
      assert.equal(intent.status, 'succeeded');
      const cancelled = await api('POST', `/v2/escrow/${e.id}/cancel`);
      assert.equal(cancelled.body.payload.status, 'CANCELLED', cancelled.text);
      const cancelCommand = cancelled.headers.get('x-command-id')!;
      const refunds = fake.requestsTo('POST', '/v1/refunds').filter((r) => r.body.payment_intent === intent.id);
      assert.deepEqual(
        refunds.map((r) => [r.body.amount, r.idempotencyKey]),
        [['2000', `${cancelCommand}:refund:${b.cards[0]}`]],
      );
      const cancelInvoice =
        cancelled.body.payload.cancel_invoice_id ?? (await api('GET', `/v2/escrow/${e.id}`)).body.payload.cancel_invoice_id;
      const stored = await providerObjectsOf(pooled(h().orm.em.fork()), `invoice:${cancelInvoice}:refund:${b.cards[0]}`);
      assert.equal(stored.length, 1);
      assert.equal(stored[0].objectType, 'refund');
    });

    it('pays and commits: the charge is captured once, nothing refunded', async () => {
      const b = await buyerWith('pm_card_visa');
      const e = await escrow(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 900);
      assert.equal((await api('POST', `/v2/escrow/${e.id}/pay`)).body.payload.status, 'ESCROWED');
      assert.equal((await api('POST', `/v2/escrow/${e.id}/commit`)).body.payload.status, 'COMMITTED');
      const [intent] = await intentsOf(e.escrow_invoice_id, b.cards[0]);
      assert.equal(intent.status, 'succeeded');
      assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${intent.id}/capture`).length, 1);
      assert.equal(fake.requestsTo('POST', '/v1/refunds').filter((r) => r.body.payment_intent === intent.id).length, 0);
    });

    it('all or nothing in the batch path: a wallet short of its part fails the pay, the card never asked', async () => {
      const b = await buyerWith('pm_card_visa');
      const before = fake.requestsTo('POST', '/v1/payment_intents').length;
      const e = await escrow(
        b.account_id,
        [
          { payment_method_id: b.wallets['USD:fiat'].pm, amount: 300 },
          { payment_method_id: b.cards[0], amount: 0 },
        ],
        900,
      );
      const paid = await api('POST', `/v2/escrow/${e.id}/pay`);
      assert.equal(paid.body.payload.status, 'ESCROW-FAILED', paid.text);
      assert.equal(fake.requestsTo('POST', '/v1/payment_intents').length, before);
    });

    it('Stripe down for a while: the escrow pay waits and finishes once it is back, charged once', async () => {
      const b = await buyerWith('pm_card_visa');
      const e = await escrow(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 650);
      fake.fault('refuse', { forMs: 2_000 });
      const paid = await call('POST', `/v2/escrow/${e.id}/pay`, {
        token: client.token,
        baseUrl: app.baseUrl,
        headers: { prefer: 'respond-async' },
      });
      assert.equal(paid.status, 202, paid.text);
      let status = 'OPEN';
      for (let i = 0; i < 200 && status === 'OPEN'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await api('GET', `/v2/escrow/${e.id}`)).body.payload.status;
      }
      assert.equal(status, 'ESCROWED');
      // The capture follows the decision's commit: wait for it too.
      let [intent] = await intentsOf(e.escrow_invoice_id, b.cards[0]);
      for (let i = 0; i < 50 && intent.status !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        [intent] = await intentsOf(e.escrow_invoice_id, b.cards[0]);
      }
      assert.equal(intent.status, 'succeeded');
      const intents = [...fake.api.paymentIntents.values()].filter(
        (pi: any) => pi.metadata?.holdfast_ref === `invoice:${e.escrow_invoice_id}:charge:${b.cards[0]}`,
      );
      assert.equal(intents.length, 1);
    });

    it('a card needing authentication fails the escrow pay (ESCROW-FAILED, authentication_required)', async () => {
      const b = await buyerWith('pm_card_authenticationRequired');
      const e = await escrow(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 900);
      const paid = await api('POST', `/v2/escrow/${e.id}/pay`);
      assert.equal(paid.body.payload.status, 'ESCROW-FAILED', paid.text);
      const inv = await api('GET', `/v2/invoice/${e.escrow_invoice_id}`);
      assert.deepEqual([inv.body.payload.state, inv.body.payload.failure_reason], ['FAILED', 'authentication_required']);
    });
  });

  describe('refunds', () => {
    const refund = (invoiceId: string, extra: Record<string, unknown> = {}) =>
      api('POST', '/v2/refund', { invoice_id: invoiceId, reason: 'product_related', ...extra });

    it('a full refund is a Stripe Refund of the PaymentIntent, under the refund command’s key', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1000);
      assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
      const [intent] = await intentsOf(id, b.cards[0]);
      const res = await refund(id);
      assert.equal(res.status, 200, res.text);
      const [r] = res.body.payload.refunds;
      assert.equal(r.status, 'REFUND-SUCCESS');
      const asked = fake.requestsTo('POST', '/v1/refunds').filter((x) => x.body.payment_intent === intent.id);
      assert.deepEqual(
        asked.map((x) => [x.body.amount, x.idempotencyKey]),
        [['1000', `${res.headers.get('x-command-id')}:refund:${b.cards[0]}`]],
      );
      const stored = await providerObjectsOf(pooled(h().orm.em.fork()), `invoice:${r.refund_invoice_id}:refund:${b.cards[0]}`);
      assert.equal(stored.length, 1);
    });

    it('a line-item refund refunds that part of the charge', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1000);
      assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
      const lineItemId = (Object.values((await api('GET', `/v2/invoice/${id}`)).body.payload.line_items)[0] as any).line_item_id;
      const [intent] = await intentsOf(id, b.cards[0]);
      const res = await api('POST', '/v2/line-item/refund', {
        reason: 'product_related',
        line_item_id: lineItemId,
        amount: 300,
        payment_methods: [b.cards[0]],
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.payload.refunds[0].status, 'REFUND-SUCCESS');
      assert.deepEqual(
        fake
          .requestsTo('POST', '/v1/refunds')
          .filter((x) => x.body.payment_intent === intent.id)
          .map((x) => x.body.amount),
        ['300'],
      );
      assert.equal(fake.api.charges.get(fake.api.paymentIntents.get(intent.id)!.latest_charge)!.amount_refunded, 300);
    });

    it('a refund Stripe refuses is a failed refund, as today’s failed refunds are: no money moves', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1000);
      assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
      const [intent] = await intentsOf(id, b.cards[0]);
      // Refunded at Stripe behind Holdfast's back (the dashboard): Stripe refuses the next refund.
      await fetch(`${fake.url}/v1/refunds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ payment_intent: intent.id }).toString(),
      });
      const publisher = await systemAccount(h().orm.em.fork(), b.integrator_id, 'publisher_wallet', 'USD');
      const before = await balance(publisher);
      const res = await refund(id);
      assert.equal(res.status, 200, res.text);
      const [r] = res.body.payload.refunds;
      assert.deepEqual([r.status, r.failure_reason], ['REFUND-FAILED', 'refund_declined']);
      assert.deepEqual(r.payment_methods, [{ payment_method_id: b.cards[0], amount: 1000, status: 'failed' }]);
      assert.equal(await balance(publisher), before);
    });
  });

  describe('retries and outages', () => {
    it('a command run again charges once: the same idempotency keys, one PaymentIntent', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 700);
      // Stripe does the work but the answer is lost: the job fails and runs again.
      fake.fault('lose-response', { requests: 1 });
      const paid = await api('POST', `/v2/invoice/${id}/pay`);
      assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
      const commandId = paid.headers.get('x-command-id')!;
      const creates = fake
        .requestsTo('POST', '/v1/payment_intents')
        .filter((r) => r.idempotencyKey === `${commandId}:charge:${b.cards[0]}`);
      assert.ok(creates.length >= 2, 'asked again after the lost answer');
      assert.ok(creates.slice(1).every((r) => r.replayed));
      const intents = [...fake.api.paymentIntents.values()].filter(
        (pi: any) => pi.metadata?.holdfast_ref === `invoice:${id}:charge:${b.cards[0]}`,
      );
      assert.equal(intents.length, 1, 'one PaymentIntent');
      assert.equal(intents[0].status, 'succeeded');
    });

    it('a hold left open after the decision (Stripe down past the job’s retries) is found by the sweep and captured', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 800);
      const db = pooled(h().orm.em.fork());
      const commandId = await submitCommand(db, { integratorId: b.integrator_id, kind: 'invoice.pay', targetId: id });
      // The same adapter, its captures failing as an outage would: the decision commits, the hold stays.
      const real = ((c) => cardProcessorFor(c.rails.cards, c.stripeApi))(
        loadConfig({
          CARD_PROCESSOR: 'stripe',
          STRIPE_SECRET_KEY: fake.secretKey,
          STRIPE_API_BASE: fake.url,
          STRIPE_WEBHOOK_SECRET: 'whsec_test_cards_fake',
        }),
      );
      const down: CardProcessor = {
        ...real,
        provider: {
          ...real.provider!,
          capture: () => Promise.reject(new CardProviderUnavailable('Stripe could not answer a capture: StripeConnectionError')),
        },
      };
      await assert.rejects(
        runCommandWith(invoiceCommandsWith(down)['invoice.pay']!, h().orm.em.fork(), commandId),
        CardProviderUnavailable,
      );
      assert.equal((await api('GET', `/v2/invoice/${id}`)).body.payload.state, 'SUCCESS');
      const [held] = await intentsOf(id, b.cards[0]);
      assert.equal(held.status, 'requires_capture');

      const found = await commandsWithUnsettledHolds(db, 0);
      assert.deepEqual(
        found.filter((c) => c.id === commandId),
        [{ id: commandId, kind: 'invoice.pay' }],
      );
      // Requeued on the Stripe workers (as the command sweeper does), the done command captures its hold.
      await bus.requeue(commandId, 'invoice.pay');
      let status = held.status;
      for (let i = 0; i < 100 && status !== 'succeeded'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        [{ status }] = await intentsOf(id, b.cards[0]);
      }
      assert.equal(status, 'succeeded');
      assert.deepEqual(
        fake.requestsTo('POST', `/v1/payment_intents/${held.id}/capture`).map((r) => r.idempotencyKey),
        [`${commandId}:capture:${b.cards[0]}`],
      );
      assert.equal((await commandsWithUnsettledHolds(db, 0)).filter((c) => c.id === commandId).length, 0);
    });

    it('a hold left open by a failed capture is released, never captured, once its escrow was cancelled', async () => {
      const b = await buyerWith('pm_card_visa');
      const e = await escrow(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1200);
      const db = pooled(h().orm.em.fork());
      const real = ((c) => cardProcessorFor(c.rails.cards, c.stripeApi))(
        loadConfig({
          CARD_PROCESSOR: 'stripe',
          STRIPE_SECRET_KEY: fake.secretKey,
          STRIPE_API_BASE: fake.url,
          STRIPE_WEBHOOK_SECRET: 'whsec_test_cards_fake',
        }),
      );
      // Stripe down for captures and releases: the pay decides (ESCROWED), its hold stays open;
      // the cancel decides (CANCELLED, the money back in the ledger), its release fails too.
      const outage = () => Promise.reject(new CardProviderUnavailable('Stripe could not answer: StripeConnectionError'));
      const down: CardProcessor = { ...real, provider: { ...real.provider!, capture: outage, cancel: outage } };
      const pay = await submitCommand(db, { integratorId: b.integrator_id, kind: 'escrow.pay', targetId: e.id });
      await assert.rejects(runCommandWith(escrowCommandsWith(down)['escrow.pay']!, h().orm.em.fork(), pay), CardProviderUnavailable);
      const cancel = await submitCommand(db, { integratorId: b.integrator_id, kind: 'escrow.cancel', targetId: e.id });
      await assert.rejects(runCommandWith(escrowCommandsWith(down)['escrow.cancel']!, h().orm.em.fork(), cancel), CardProviderUnavailable);
      assert.equal((await api('GET', `/v2/escrow/${e.id}`)).body.payload.status, 'CANCELLED');
      const [held] = await intentsOf(e.escrow_invoice_id, b.cards[0]);
      assert.equal(held.status, 'requires_capture');
      // Stripe is back; the sweep requeues the pay whose hold is open: it releases the hold.
      await runCommandWith(escrowCommandsWith(real)['escrow.pay']!, h().orm.em.fork(), pay);
      const [after] = await intentsOf(e.escrow_invoice_id, b.cards[0]);
      assert.equal(after.status, 'canceled');
      assert.deepEqual(fake.requestsTo('POST', `/v1/payment_intents/${held.id}/capture`), [], 'never captured');
    });

    it('Stripe down for a while: the pay waits and finishes once it is back, charged once', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 600);
      fake.fault('error', { forMs: 3_000, status: 503 });
      const paid = await call('POST', `/v2/invoice/${id}/pay`, {
        token: client.token,
        baseUrl: app.baseUrl,
        headers: { prefer: 'respond-async' },
      });
      assert.equal(paid.status, 202, paid.text);
      let state = 'OPEN';
      for (let i = 0; i < 200 && state === 'OPEN'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        state = (await api('GET', `/v2/invoice/${id}`)).body.payload.state;
      }
      assert.equal(state, 'SUCCESS');
      const intents = [...fake.api.paymentIntents.values()].filter(
        (pi: any) => pi.metadata?.holdfast_ref === `invoice:${id}:charge:${b.cards[0]}`,
      );
      assert.equal(intents.length, 1);
      assert.ok(
        fake.requestsTo('POST', '/v1/payment_intents').some((r) => r.fault === 'error'),
        'it was down',
      );
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });
  });

  describe('ledger verify against the stored Stripe objects', () => {
    const sql = (query: string, params: unknown[] = []) => h().orm.em.fork().getConnection().execute(query, params);

    it('is clean after charges, refunds and an escrow cancel; names a snapshot changed or deleted, then is clean again', async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1000);
      assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
      const refunded = await api('POST', '/v2/refund', { invoice_id: id, reason: 'product_related' });
      assert.equal(refunded.body.payload.refunds[0].status, 'REFUND-SUCCESS', refunded.text);
      const refundInvoice = refunded.body.payload.refunds[0].refund_invoice_id as string;
      const e = await escrow(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 700);
      assert.equal((await api('POST', `/v2/escrow/${e.id}/pay`)).body.payload.status, 'ESCROWED');
      assert.equal((await api('POST', `/v2/escrow/${e.id}/cancel`)).body.payload.status, 'CANCELLED');

      const clean = await holdfastCli(['ledger', 'verify']);
      assert.equal(clean.status, 0, clean.stdout + clean.stderr);

      const chargeRef = `invoice:${id}:charge:${b.cards[0]}`;
      await sql(`update provider_object set snapshot = jsonb_set(snapshot, '{amount}', '999') where holdfast_ref = ?`, [chargeRef]);
      const changed = await holdfastCli(['ledger', 'verify']);
      assert.equal(changed.status, 1, changed.stdout + changed.stderr);
      assert.match(
        changed.stdout,
        new RegExp(
          `invoice ${id}: card charge of payment method ${b.cards[0]} \\(1000 USD\\): its stored PaymentIntent pi_\\w+ is 999 USD succeeded \\(expected 1000 USD succeeded\\)`,
        ),
      );
      await sql(`update provider_object set snapshot = jsonb_set(snapshot, '{amount}', '1000') where holdfast_ref = ?`, [chargeRef]);

      const refundRef = `invoice:${refundInvoice}:refund:${b.cards[0]}`;
      const [kept] = await sql(`select * from provider_object where holdfast_ref = ?`, [refundRef]);
      assert.ok(kept, 'the Refund is stored');
      await sql(`delete from provider_object where holdfast_ref = ?`, [refundRef]);
      const deleted = await holdfastCli(['ledger', 'verify']);
      assert.equal(deleted.status, 1, deleted.stdout + deleted.stderr);
      assert.ok(
        deleted.stdout.includes(
          `refund invoice ${refundInvoice}: card refund to payment method ${b.cards[0]} (1000 USD) has 0 stored Stripe Refunds (expected 1)`,
        ),
        deleted.stdout,
      );
      await sql(
        `insert into provider_object (provider, object_id, object_type, integrator_id, holdfast_ref, snapshot, created_at, updated_at)
         values (?, ?, ?, ?, ?, ?::jsonb, ?, ?)`,
        [
          kept.provider,
          kept.object_id,
          kept.object_type,
          kept.integrator_id,
          kept.holdfast_ref,
          JSON.stringify(kept.snapshot),
          kept.created_at,
          kept.updated_at,
        ],
      );
      const again = await holdfastCli(['ledger', 'verify']);
      assert.equal(again.status, 0, again.stdout + again.stderr);
    });

    it('a Refund that fails later (refund.failed): its snapshot moves forward once, whatever the order, and its part is reversed', async () => {
      const b = await buyerWith('pm_card_refundFail');
      const id = await invoice(b.account_id, [{ payment_method_id: b.cards[0], amount: 0 }], 1000);
      assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
      const res = await api('POST', '/v2/refund', { invoice_id: id, reason: 'product_related' });
      const [r] = res.body.payload.refunds;
      assert.equal(r.status, 'REFUND-SUCCESS', res.text);
      const db = pooled(h().orm.em.fork());
      const [stored] = await providerObjectsOf(db, `invoice:${r.refund_invoice_id}:refund:${b.cards[0]}`);
      assert.equal(stored.snapshot.status, 'succeeded');
      fake.failRefund(stored.objectId);
      const events = fake.events.filter((e) => e.data.object.id === stored.objectId);
      assert.deepEqual(
        events.map((e) => e.type),
        ['refund.created', 'refund.updated', 'charge.refund.updated', 'refund.failed'],
      );
      const apply = (e: (typeof events)[number]) =>
        providerEventHandlers.find('stripe', e.type)!(db, {
          providerEventId: e.id,
          type: e.type,
          payload: e as unknown as Record<string, unknown>,
        } as ProviderEventRecord);
      // Out of order and duplicated: the failure first, then every event again, the creation last.
      const [created, ...later] = events;
      const answers = [];
      for (const e of [...later.reverse(), ...later, created!]) answers.push(await apply(e));
      assert.deepEqual(answers, ['applied', 'ignored', 'ignored', 'ignored', 'ignored', 'ignored', 'ignored']);
      const now = await findProviderObject(db, 'stripe', stored.objectId);
      assert.deepEqual([now?.snapshot.status, now?.snapshot.failure_reason], ['failed', 'expired_or_canceled_card']);
      // Asked again under the refund command's key, Stripe answers its first sight back: the stored failure stands.
      const intent = (await intentsOf(id, b.cards[0]))[0];
      const replayed = await cards.provider!.refund(intent.id, 1000, `${res.headers.get('x-command-id')}:refund:${b.cards[0]}`);
      assert.equal(replayed.snapshot?.status, 'succeeded', 'Stripe replays its first answer');
      await saveRefundSight(db, {
        provider: 'stripe',
        objectId: replayed.refundId!,
        objectType: 'refund',
        integratorId: b.integrator_id,
        holdfastRef: `invoice:${r.refund_invoice_id}:refund:${b.cards[0]}`,
        snapshot: replayed.snapshot!,
      });
      assert.equal((await findProviderObject(db, 'stripe', stored.objectId))?.snapshot.status, 'failed');
      // The failure was acted on once: the part reversed, which `ledger verify` accepts.
      const summary = await api('GET', `/v2/invoice/${id}/refunds`);
      assert.equal(summary.body.payload.refunds[0].status, 'REFUND-FAILED');
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });
  });
});
