/**
 * Refunds and escrow cancels on the Stripe adapter, where a provider call can be lost, refused,
 * retried or fail later: the app and command workers run with CARD_PROCESSOR=stripe against the
 * Stripe fake (its own queue prefix), and some commands are run here directly with a processor
 * that dies after Stripe answered or cannot reach it.
 */
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { db as pooled } from '../../src/db/sql.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { cancelsWithOpenRefunds } from '../../src/escrow/escrow-phases.service.js';
import { escrowCommandsWith } from '../../src/escrow/escrow.commands.js';
import { post, systemAccount } from '../../src/ledger/ledger.service.js';
import { providerEventHandlers } from '../../src/provider-events/provider-event-handlers.js';
import type { ProviderEventRecord } from '../../src/provider-events/provider-event.rules.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { CardProviderUnavailable, type CardProcessor } from '../../src/rails/card-processor.port.js';
import { providerObjectsOf } from '../../src/rails/provider-object.repository.js';
import { refundCommandsWith } from '../../src/refunds/refund.commands.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, startExtraApp, unique, type ApiResponse } from '../support/harness.js';
import { balance, party, type Party } from '../support/money.js';

describe('refunds on Stripe: plans, retries, refusals and late failures', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  let app: { baseUrl: string; close(): Promise<void> };
  let workers: RunningWorkers;
  let bus: CommandBus;
  let cards: CardProcessor;
  const prefix = `{holdfast-stripe-refunds-${unique()}}`;

  before(async () => {
    fake = await startStripeFake();
    const config = loadConfig({
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_API_BASE: fake.url,
      STRIPE_WEBHOOK_SECRET: 'whsec_test_refunds_fake',
    });
    cards = cardProcessorFor(config.rails.cards, config.stripeApi);
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
    app = await startExtraApp({ bus, cards, syncWaitMs: 20_000 });
  });
  after(async () => {
    await app?.close();
    await workers?.close();
    await bus?.close();
    await fake?.stop();
  });

  /** An integrator of its own (its publisher wallet holds only what its sales left it), a seller and the API. */
  async function integrator() {
    const client = await newClient();
    const seller = await party(client);
    const api = <T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> =>
      call<T>(method, path, { token: client.token, baseUrl: app.baseUrl, ...(body === undefined ? {} : { body }) });
    const buyer = async (token = 'pm_card_visa'): Promise<Party & { card: string }> => {
      const p = await party(client);
      const res = await api('POST', `/v1/${p.account_id}/payment_methods`, { type: 'card', card: { stripe_payment_method: token } });
      assert.equal(res.status, 201, res.text);
      return { ...p, card: res.body.payload.id };
    };
    const lineItems = (amount: number) => [
      {
        amount,
        currency: 'USD',
        transaction_type: 'user_to_user',
        recipients: [{ amount: amount / 2, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
      },
    ];
    /** A purchase of `amount` paid by the buyer's card. */
    const paid = async (b: Party & { card: string }, amount: number) => {
      const res = await api('POST', '/v2/invoice', {
        account_id: b.account_id,
        reference_type: 'order',
        reference_id: unique('o'),
        payment_methods: [{ payment_method_id: b.card, amount: 0 }],
        line_items: lineItems(amount),
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body.payload.invoice_id as string;
      assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
      return id;
    };
    const escrow = async (b: Party & { card: string }, amount: number) => {
      const res = await api('POST', '/v2/escrow', {
        account_id: b.account_id,
        reference_type: 'order',
        reference_id: unique('o'),
        description: 'A shield',
        payment_methods: [{ payment_method_id: b.card, amount: 0 }],
        line_items: lineItems(amount),
      });
      assert.equal(res.status, 201, res.text);
      const e = res.body.payload as { id: string; escrow_invoice_id: string };
      assert.equal((await api('POST', `/v2/escrow/${e.id}/pay`)).body.payload.status, 'ESCROWED');
      return e;
    };
    const publisherAccount = () => systemAccount(h().orm.em.fork(), seller.integrator_id, 'publisher_wallet', 'USD');
    const publisher = async () => balance(await publisherAccount());
    /** Money in the integrator's wallet (as its earlier sales would have left it). */
    const fundPublisher = async (amount: number) => {
      const source = await systemAccount(h().orm.em.fork(), seller.integrator_id, 'card_clearing', 'USD');
      const wallet = await publisherAccount();
      await h()
        .orm.em.fork()
        .transactional((tx) =>
          post(tx, {
            integratorId: seller.integrator_id,
            reference: unique('fund-'),
            description: 'test funding',
            entries: [
              { account: source, currency: 'USD', amount: -amount },
              { account: wallet, currency: 'USD', amount },
            ],
          }),
        );
    };
    return { client, seller, api, buyer, paid, escrow, publisher, fundPublisher, integratorId: seller.integrator_id };
  }

  const db = () => pooled(h().orm.em.fork());
  const intentOf = async (invoiceId: string, pm: string) =>
    (await providerObjectsOf(db(), `invoice:${invoiceId}:charge:${pm}`)).find((o) => o.objectType === 'payment_intent')!;
  const stripeRefundsOf = (paymentIntentId: string) =>
    [...fake.api.refunds.values()].filter((r: any) => r.payment_intent === paymentIntentId);
  const postings = async (like: string) =>
    (
      await h().orm.em.fork().execute<Array<{ reference: string }>>('select reference from ledger_posting where reference like ?', [like])
    ).map((r) => r.reference);
  const outbox = (invoiceId: string) =>
    h()
      .orm.em.fork()
      .execute<Array<{ event_name: string; message: any }>>(
        `select event_name, message from outbox where message->>'invoice_id' = ? and event_name = 'refund-completed' order by created_at, id`,
        [invoiceId],
      );
  /** A processor whose refunds reach Stripe and then the process dies, before it records anything. */
  const dyingAfterRefund = (): CardProcessor => ({
    ...cards,
    provider: {
      ...cards.provider!,
      refund: async (...args) => {
        await cards.provider!.refund(...args);
        throw new Error('the worker died after Stripe refunded');
      },
    },
  });
  const runRefund = (processor: CardProcessor, commandId: string) =>
    runCommandWith(refundCommandsWith(processor)['invoice.refund']!, h().orm.em.fork(), commandId);

  describe('the refund command: planned and committed before Stripe is asked', () => {
    it('a run that died after Stripe refunded resumes its plan: refunded once, never rejected, though the wallet was spent meanwhile', async () => {
      const i = await integrator();
      const b = await i.buyer();
      const first = await i.paid(b, 1000);
      const second = await i.paid(b, 1000);
      assert.equal(await i.publisher(), 1000, 'the integrator kept half of each sale');
      const command = await submitCommand(db(), {
        integratorId: i.integratorId,
        kind: 'invoice.refund',
        targetId: first,
        input: { reason: 'product_related' },
      });
      await assert.rejects(runRefund(dyingAfterRefund(), command), /the worker died/);
      const intent = await intentOf(first, b.card);
      assert.equal(stripeRefundsOf(intent.objectId).length, 1, 'Stripe refunded');
      // The plan is committed: the money left the integrator's wallet, the refund shows PROCESSING.
      assert.equal(await i.publisher(), 0);
      const during = await i.api('GET', `/v2/invoice/${first}/refunds`);
      assert.deepEqual(
        during.body.payload.refunds.map((r: any) => [r.status, r.payment_methods[0].status]),
        [['REFUND-PROCESSING', 'processing']],
      );
      assert.equal(during.body.payload.refundable.USD, 0, 'a processing refund counts as given back');
      // Meanwhile another refund finds the wallet empty: rejected, as it should be.
      const other = await i.api('POST', '/v2/refund', { invoice_id: second, reason: 'fraud' });
      assert.equal(other.status, 409, other.text);
      assert.deepEqual(other.body.codes, ['REFUND_REJECTED']);

      const resumed = await runRefund(cards, command);
      assert.equal(resumed?.status, 200, JSON.stringify(resumed));
      const [r] = (resumed!.body as any).payload.refunds;
      assert.deepEqual([r.status, r.payment_methods[0].status], ['REFUND-SUCCESS', 'succeeded']);
      assert.equal(stripeRefundsOf(intent.objectId).length, 1, 'one Stripe Refund');
      const asked = fake.requestsTo('POST', '/v1/refunds').filter((x) => x.idempotencyKey === `${command}:refund:${b.card}`);
      assert.equal(asked.length, 2);
      assert.ok(asked[1].replayed, 'asked again under the same key: Stripe replayed its answer');
      assert.deepEqual(await postings(`invoice:${r.refund_invoice_id}:%`), [`invoice:${r.refund_invoice_id}:refund`]);
      assert.equal((await outbox(r.refund_invoice_id)).length, 1, 'refund-completed once');
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });

    it('Stripe refusing the idempotency key (same key, other parameters) fails the part for an operator, never retried forever', async () => {
      const i = await integrator();
      const b = await i.buyer();
      const id = await i.paid(b, 800);
      const elsewhere = await intentOf(await i.paid(b, 500), b.card);
      await i.fundPublisher(2000);
      const before = await i.publisher();
      const command = await submitCommand(db(), {
        integratorId: i.integratorId,
        kind: 'invoice.refund',
        targetId: id,
        input: { reason: 'product_related' },
      });
      // Someone used the command's key first, for another request (another charge's refund).
      const foreign = await fetch(`${fake.url}/v1/refunds`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${fake.secretKey}`,
          'content-type': 'application/x-www-form-urlencoded',
          'idempotency-key': `${command}:refund:${b.card}`,
        },
        body: new URLSearchParams({ payment_intent: elsewhere.objectId, amount: '1' }).toString(),
      });
      assert.equal(foreign.status, 200);
      const result = await runRefund(cards, command);
      assert.equal(result?.status, 200, JSON.stringify(result));
      const [r] = (result!.body as any).payload.refunds;
      assert.deepEqual([r.status, r.failure_reason], ['REFUND-FAILED', 'provider_idempotency_conflict']);
      assert.deepEqual(r.payment_methods, [{ payment_method_id: b.card, amount: 800, status: 'failed' }]);
      // The money posted for it came back to the integrator in one reversing posting.
      assert.equal(await i.publisher(), before);
      assert.deepEqual((await postings(`refund:${r.refund_invoice_id}:%`)).sort(), [`refund:${r.refund_invoice_id}:${b.card}:reversed`]);
      const [event] = await outbox(r.refund_invoice_id);
      assert.deepEqual(event.message.failed_refunds, [
        { payment_method_id: b.card, amount: 800, currency: 'USD', failure_reason: 'provider_idempotency_conflict' },
      ]);
      const invoice = await i.api('GET', `/v2/invoice/${r.refund_invoice_id}`);
      assert.deepEqual([invoice.body.payload.state, invoice.body.payload.failure_reason], ['FAILED', 'provider_idempotency_conflict']);
      // Still refundable, under a new command (a new key).
      const again = await i.api('POST', '/v2/refund', { invoice_id: id, reason: 'product_related' });
      assert.equal(again.body.payload.refunds[1].status, 'REFUND-SUCCESS', again.text);
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });
  });

  describe('a Refund that fails after it was recorded (refund.failed)', () => {
    it('moves the money back in one reversing posting, whatever the order and number of events; the summary and event say failed', async () => {
      const i = await integrator();
      const b = await i.buyer('pm_card_refundFail');
      const id = await i.paid(b, 1000);
      await i.fundPublisher(1000);
      const before = await i.publisher();
      const res = await i.api('POST', '/v2/refund', { invoice_id: id, reason: 'product_related' });
      const [r] = res.body.payload.refunds;
      assert.equal(r.status, 'REFUND-SUCCESS', res.text);
      assert.equal(await i.publisher(), before - 1000);
      const [stored] = await providerObjectsOf(db(), `invoice:${r.refund_invoice_id}:refund:${b.card}`);
      // The card fails its refunds later (Stripe `pm_card_refundFail`): the fake sends the events.
      fake.failRefund(stored.objectId);
      const events = fake.events.filter((e) => e.data.object.id === stored.objectId);
      assert.deepEqual(
        events.map((e) => e.type),
        ['refund.created', 'refund.updated', 'charge.refund.updated', 'refund.failed'],
      );
      const apply = async (e: (typeof events)[number]) => {
        const em = h().orm.em.fork();
        return pooled(em).transaction((tx) =>
          providerEventHandlers.find('stripe', e.type)!(tx, {
            providerEventId: e.id,
            type: e.type,
            payload: e as unknown as Record<string, unknown>,
          } as ProviderEventRecord),
        );
      };
      const [created, ...later] = events;
      // Out of order, duplicated, and two at once.
      const answers = await Promise.all([apply(later[2]!), apply(later[1]!)]);
      for (const e of [...later, ...later, created!]) answers.push(await apply(e));
      assert.ok(answers.includes('applied'), JSON.stringify(answers));
      assert.deepEqual(await postings(`refund:${r.refund_invoice_id}:%`), [`refund:${r.refund_invoice_id}:${b.card}:reversed`]);
      assert.equal(await i.publisher(), before, 'the money is back with the integrator');
      const summary = await i.api('GET', `/v2/invoice/${id}/refunds`);
      const [now] = summary.body.payload.refunds;
      assert.deepEqual([now.status, now.payment_methods[0].status], ['REFUND-FAILED', 'failed']);
      assert.equal(summary.body.payload.refundable.USD, 1000, 'refundable again');
      const announced = await outbox(r.refund_invoice_id);
      assert.deepEqual(
        announced.map((e) => e.message.status),
        ['REFUND-SUCCESS', 'REFUND-FAILED'],
      );
      assert.deepEqual(announced[1].message.failed_refunds, [
        { payment_method_id: b.card, amount: 1000, currency: 'USD', failure_reason: 'expired_or_canceled_card' },
      ]);
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

      // A reversing posting that stands for no reversed part is named (the part's record edited).
      const sql = (q: string, p: unknown[]) => h().orm.em.fork().getConnection().execute(q, p);
      await sql(`update invoice set payment_methods = jsonb_set(payment_methods, '{0,reversed}', 'false') where id = ?`, [
        r.refund_invoice_id,
      ]);
      const problems = (await verifyAll(h().orm.em.fork())).problems;
      assert.ok(
        problems.includes(
          `invoice ${r.refund_invoice_id}: its card part to payment method ${b.card} was reversed for 0 but reversing postings moved 1000`,
        ),
        problems.join('\n'),
      );
      await sql(`update invoice set payment_methods = jsonb_set(payment_methods, '{0,reversed}', 'true') where id = ?`, [
        r.refund_invoice_id,
      ]);
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
      // A part reversed while its Refund stands as taken: the money would have gone out twice.
      const failedSnapshot = (await providerObjectsOf(db(), `invoice:${r.refund_invoice_id}:refund:${b.card}`))[0]!.snapshot;
      await sql(`update provider_object set snapshot = jsonb_set(snapshot, '{status}', '"succeeded"') where object_id = ?`, [
        stored.objectId,
      ]);
      const taken = (await verifyAll(h().orm.em.fork())).problems;
      assert.ok(
        taken.includes(
          `refund invoice ${r.refund_invoice_id}: card refund to payment method ${b.card} (1000 USD) was reversed, but its stored Refund ${stored.objectId} is 1000 USD succeeded (expected failed or canceled)`,
        ),
        taken.join('\n'),
      );
      await sql(`update provider_object set snapshot = ?::jsonb where object_id = ?`, [JSON.stringify(failedSnapshot), stored.objectId]);
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });

    it('a failed Refund whose part was never reversed is named by ledger verify', async () => {
      const i = await integrator();
      const b = await i.buyer();
      const id = await i.paid(b, 600);
      await i.fundPublisher(600);
      const res = await i.api('POST', '/v2/refund', { invoice_id: id, reason: 'product_related' });
      const [r] = res.body.payload.refunds;
      const [stored] = await providerObjectsOf(db(), `invoice:${r.refund_invoice_id}:refund:${b.card}`);
      const sql = (q: string, p: unknown[]) => h().orm.em.fork().getConnection().execute(q, p);
      await sql(`update provider_object set snapshot = jsonb_set(snapshot, '{status}', '"failed"') where object_id = ?`, [stored.objectId]);
      const problems = (await verifyAll(h().orm.em.fork())).problems;
      assert.ok(
        problems.includes(
          `refund invoice ${r.refund_invoice_id}: card refund to payment method ${b.card} (600 USD): its stored Refund ${stored.objectId} is 600 USD failed (expected 600 USD succeeded or pending)`,
        ),
        problems.join('\n'),
      );
      await sql(`update provider_object set snapshot = ?::jsonb where object_id = ?`, [JSON.stringify(stored.snapshot), stored.objectId]);
    });
  });

  describe('a token purchase', () => {
    it('its Refund failing later gives the buyer back the tokens the refund took, once', async () => {
      const name = unique('stripe-refunds-gem-');
      const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
      const client = await newClient({ integrator: name });
      const api = (method: string, path: string, body?: unknown) => call(method, path, { token: client.token, baseUrl: app.baseUrl, body });
      const who = await party(client);
      const added = await api('POST', `/v1/${who.account_id}/payment_methods`, {
        type: 'card',
        card: { stripe_payment_method: 'pm_card_refundFail' },
      });
      assert.equal(added.status, 201, added.text);
      const bought = await api('POST', '/v2/token/purchase', { payment_method_id: added.body.payload.id, amount: 1000, currency: 'GEM' });
      assert.equal(bought.body.payload.state, 'SUCCESS', bought.text);
      const gems = who.wallets['GEM:standard'].wallet;
      assert.equal(await balance(gems), 1000);
      const res = await api('POST', '/v2/refund', { invoice_id: bought.body.payload.invoice_id, reason: 'product_related' });
      const [r] = res.body.payload.refunds;
      assert.equal(r.status, 'REFUND-SUCCESS', res.text);
      assert.equal(await balance(gems), 0, 'the refund took the tokens back');
      const [stored] = await providerObjectsOf(db(), `invoice:${r.refund_invoice_id}:refund:${added.body.payload.id}`);
      fake.failRefund(stored.objectId);
      const failed = fake.events.find((e) => e.type === 'refund.failed' && e.data.object.id === stored.objectId)!;
      for (let n = 0; n < 2; n++)
        await pooled(h().orm.em.fork()).transaction((tx) =>
          providerEventHandlers.find('stripe', failed.type)!(tx, {
            providerEventId: failed.id,
            type: failed.type,
            payload: failed as unknown as Record<string, unknown>,
          } as ProviderEventRecord),
        );
      assert.equal(await balance(gems), 1000, 'the tokens are back with the buyer');
      assert.deepEqual((await postings(`refund:${r.refund_invoice_id}:%`)).sort(), [
        `refund:${r.refund_invoice_id}:${added.body.payload.id}:reversed`,
        `refund:${r.refund_invoice_id}:${added.body.payload.id}:reversed-tokens`,
      ]);
      assert.equal(
        await balance(await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD')),
        400,
        'the USD back with the integrator',
      );
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });
  });

  describe('escrow cancel', () => {
    it('a card refund Stripe refuses is recorded failed: the money stays with the integrator, reversed once, reported', async () => {
      const i = await integrator();
      const b = await i.buyer();
      const e = await i.escrow(b, 900);
      const intent = await intentOf(e.escrow_invoice_id, b.card);
      // Refunded at Stripe behind Holdfast's back: Stripe refuses the cancel's refund.
      await fetch(`${fake.url}/v1/refunds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${fake.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ payment_intent: intent.objectId }).toString(),
      });
      const before = await i.publisher();
      const cancelled = await i.api('POST', `/v2/escrow/${e.id}/cancel`);
      assert.equal(cancelled.body.payload.status, 'CANCELLED', cancelled.text);
      const cancelInvoice = (await i.api('GET', `/v2/escrow/${e.id}`)).body.payload.cancel_invoice_id as string;
      const invoice = await i.api('GET', `/v2/invoice/${cancelInvoice}`);
      assert.equal(invoice.status, 200, invoice.text);
      const parts = (
        await h()
          .orm.em.fork()
          .execute<Array<{ payment_methods: any[] }>>('select payment_methods from invoice where id = ?', [cancelInvoice])
      )[0].payment_methods;
      assert.deepEqual(
        parts.map((p) => [p.payment_method_id, p.status, p.reversed, p.failure_reason]),
        [[b.card, 'failed', true, 'refund_declined']],
      );
      assert.equal(await i.publisher(), before + 900, 'the integrator holds what its buyer is owed');
      assert.deepEqual(await postings(`refund:${cancelInvoice}:%`), [`refund:${cancelInvoice}:${b.card}:reversed`]);
      const [event] = await outbox(cancelInvoice);
      assert.deepEqual(event.message, {
        account_id: b.account_id,
        invoice_id: cancelInvoice,
        payment_invoice_id: e.escrow_invoice_id,
        status: 'REFUND-FAILED',
        successful_refunds: [],
        failed_refunds: [{ payment_method_id: b.card, amount: 900, currency: 'USD', failure_reason: 'refund_declined' }],
      });
      // The job run again changes nothing.
      await bus.requeue(cancelled.headers.get('x-command-id')!, 'escrow.cancel');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal((await outbox(cancelInvoice)).length, 1);
      assert.equal(await i.publisher(), before + 900);
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });

    it('a card refund whose job gave up (Stripe down) is found by the sweep and refunded once', async () => {
      const i = await integrator();
      const b = await i.buyer();
      const e = await i.escrow(b, 700);
      const down: CardProcessor = {
        ...cards,
        provider: {
          ...cards.provider!,
          refund: () => Promise.reject(new CardProviderUnavailable('Stripe could not answer a refund: StripeConnectionError')),
        },
      };
      const cancel = await submitCommand(db(), { integratorId: i.integratorId, kind: 'escrow.cancel', targetId: e.id });
      await assert.rejects(runCommandWith(escrowCommandsWith(down)['escrow.cancel']!, h().orm.em.fork(), cancel), CardProviderUnavailable);
      assert.equal((await i.api('GET', `/v2/escrow/${e.id}`)).body.payload.status, 'CANCELLED');
      const cancelInvoice = (await i.api('GET', `/v2/escrow/${e.id}`)).body.payload.cancel_invoice_id as string;
      assert.deepEqual(await providerObjectsOf(db(), `invoice:${cancelInvoice}:refund:${b.card}`), []);
      const found = (await cancelsWithOpenRefunds(db(), 0)).filter((c) => c.id === cancel);
      assert.deepEqual(found, [{ id: cancel, kind: 'escrow.cancel' }]);
      // Requeued on the Stripe workers (as the maintenance sweep does): the done cancel refunds what is left.
      await bus.requeue(cancel, 'escrow.cancel');
      let stored: Awaited<ReturnType<typeof providerObjectsOf>> = [];
      for (let n = 0; n < 100 && !stored.length; n++) {
        await new Promise((r) => setTimeout(r, 100));
        stored = await providerObjectsOf(db(), `invoice:${cancelInvoice}:refund:${b.card}`);
      }
      assert.equal(stored.length, 1);
      const intent = await intentOf(e.escrow_invoice_id, b.card);
      assert.deepEqual(
        fake
          .requestsTo('POST', '/v1/refunds')
          .filter((r) => r.body.payment_intent === intent.objectId)
          .map((r) => r.idempotencyKey),
        [`${cancel}:refund:${b.card}`],
      );
      for (let n = 0; n < 50 && (await cancelsWithOpenRefunds(db(), 0)).some((c) => c.id === cancel); n++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        (await cancelsWithOpenRefunds(db(), 0)).filter((c) => c.id === cancel),
        [],
        'recorded: the sweep finds it no more',
      );
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });
  });
});
