/**
 * What Holdfast keeps of Stripe's PaymentIntents, against the Stripe fake: one PaymentIntent
 * per card charge, whose snapshot only moves forward and keeps no secret; and a capture Stripe
 * refuses (the hold lapsed) ends the command with the charge named by `ledger verify`, instead
 * of retrying for ever.
 */
import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { db as pooled } from '../../src/db/sql.js';
import {
  authorizeInvoiceCards,
  commandsWithUnsettledHolds,
  releaseCardAuthorizations,
  saveIntentSight,
} from '../../src/invoices/card-charges.service.js';
import { invoiceCommandsWith } from '../../src/invoices/invoice.commands.js';
import { readInvoice } from '../../src/invoices/invoice.repository.js';
import { insertProviderEvent } from '../../src/provider-events/provider-event.repository.js';
import { newId } from '../../src/ids.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { CardProviderUnavailable, type CardProcessor } from '../../src/rails/card-processor.port.js';
import { findProviderObject, providerObjectsOf, saveProviderObject } from '../../src/rails/provider-object.repository.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, startExtraApp, unique, type ApiResponse, type TestClient } from '../support/harness.js';
import { party, type Party } from '../support/money.js';

describe('Stripe PaymentIntents as Holdfast keeps them (against the Stripe fake)', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  let cards: CardProcessor;
  let stripeApi: ReturnType<typeof loadConfig>['stripeApi'];
  let bus: CommandBus;
  let workers: RunningWorkers;
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  let client: TestClient;
  let seller: Party;
  const prefix = `{holdfast-stripe-snap-${unique()}}`;

  before(async () => {
    fake = await startStripeFake();
    const config = loadConfig({
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_API_BASE: fake.url,
      STRIPE_WEBHOOK_SECRET: 'whsec_test_snapshots_fake',
    });
    stripeApi = config.stripeApi;
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
  const db = () => pooled(h().orm.em.fork());

  async function buyerWith(token: string): Promise<Party & { card: string }> {
    const p = await party(client);
    const res = await api('POST', `/v1/${p.account_id}/payment_methods`, { type: 'card', card: { stripe_payment_method: token } });
    assert.equal(res.status, 201, res.text);
    return { ...p, card: res.body.payload.id };
  }

  async function invoice(buyer: string, card: string, amount: number): Promise<string> {
    const res = await api('POST', '/v2/invoice', {
      account_id: buyer,
      reference_type: 'order',
      reference_id: unique('o'),
      payment_methods: [{ payment_method_id: card, amount: 0 }],
      line_items: [
        {
          amount,
          currency: 'USD',
          transaction_type: 'user_to_user',
          recipients: [{ amount: Math.floor(amount / 2), currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
        },
      ],
    });
    assert.equal(res.status, 201, res.text);
    return res.body.payload.invoice_id as string;
  }

  const intentsOf = async (invoiceId: string, pm: string) =>
    (await providerObjectsOf(db(), `invoice:${invoiceId}:charge:${pm}`)).filter((o) => o.objectType === 'payment_intent');

  it('stores no client_secret: not in a PaymentIntent, a VerificationSession, nor a stored event', async () => {
    const b = await buyerWith('pm_card_visa');
    const id = await invoice(b.account_id, b.card, 700);
    assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
    const [intent] = await intentsOf(id, b.card);
    // Stripe answered it with one: the adapter's call saw it, the stored snapshot does not keep it.
    const answered = fake.requestsTo('POST', '/v1/payment_intents').find((r) => r.body.metadata?.holdfast_ref === intent!.holdfastRef);
    assert.ok(answered);
    assert.equal(intent!.snapshot.status, 'succeeded');
    assert.equal('client_secret' in intent!.snapshot, false);
    const [row] = await h()
      .orm.em.fork()
      .execute('select snapshot::text as t from provider_object where object_id = ?', [intent!.objectId]);
    assert.doesNotMatch(row.t, /_secret_/);

    const session = {
      id: `vs_${unique()}`,
      object: 'identity.verification_session',
      status: 'requires_input',
      client_secret: 'vs_x_secret_y',
      url: 'https://verify.stripe.com/start/abc',
      metadata: { kyc_id: 'k' },
    };
    await saveProviderObject(db(), {
      provider: 'stripe',
      objectId: session.id,
      objectType: 'identity.verification_session',
      integratorId: null,
      holdfastRef: `kyc:test:${session.id}`,
      snapshot: session,
    });
    assert.deepEqual((await findProviderObject(db(), 'stripe', session.id))?.snapshot, {
      id: session.id,
      object: 'identity.verification_session',
      status: 'requires_input',
      metadata: { kyc_id: 'k' },
    });

    const eventId = `evt_${unique()}`;
    await insertProviderEvent(db(), {
      id: newId('pev'),
      provider: 'stripe',
      providerEventId: eventId,
      type: 'payment_intent.succeeded',
      payload: {
        id: eventId,
        type: 'payment_intent.succeeded',
        data: { object: { id: 'pi_x', object: 'payment_intent', client_secret: 'pi_x_secret_y' } },
      },
    });
    const [event] = await h().orm.em.fork().execute('select payload from provider_event where provider_event_id = ?', [eventId]);
    assert.deepEqual(event.payload.data.object, { id: 'pi_x', object: 'payment_intent' });
  });

  it('a PaymentIntent snapshot never goes back: an older sight after the capture changes nothing', async () => {
    const b = await buyerWith('pm_card_visa');
    const id = await invoice(b.account_id, b.card, 900);
    assert.equal((await api('POST', `/v2/invoice/${id}/pay`)).body.payload.state, 'SUCCESS');
    const [stored] = await intentsOf(id, b.card);
    assert.equal(stored!.snapshot.status, 'succeeded');
    // The authorization's answer (or its `payment_intent.amount_capturable_updated` event) arriving late.
    const older = { ...stored!, snapshot: { ...stored!.snapshot, status: 'requires_capture', amount_capturable: 900 } };
    assert.equal(await saveIntentSight(db(), older), false);
    assert.equal((await findProviderObject(db(), 'stripe', stored!.objectId))?.snapshot.status, 'succeeded');
    assert.equal((await commandsWithUnsettledHolds(db(), 0)).length, 0);
    // Nor may a later status unknown to Holdfast replace it; an earlier not-yet-authorized one may follow another.
    assert.equal(await saveIntentSight(db(), { ...stored!, snapshot: { ...stored!.snapshot, status: 'some_new_status' } }), false);
    const fresh = { ...stored!, objectId: `pi_${unique()}`, holdfastRef: `test:${unique()}` };
    assert.equal(await saveIntentSight(db(), { ...fresh, snapshot: { status: 'requires_action' } }), true);
    assert.equal(await saveIntentSight(db(), { ...fresh, snapshot: { status: 'requires_payment_method' } }), true);
    assert.equal(await saveIntentSight(db(), { ...fresh, snapshot: { status: 'requires_capture' } }), true);
    assert.equal(await saveIntentSight(db(), { ...fresh, snapshot: { status: 'requires_action' } }), false);
    assert.equal(await saveIntentSight(db(), { ...fresh, snapshot: { status: 'canceled' } }), true);
    assert.equal(await saveIntentSight(db(), { ...fresh, snapshot: { status: 'succeeded' } }), false);
  });

  for (const released of [true, false]) {
    it(`one PaymentIntent per charge: a pay after one refused before deciding (its hold ${released ? 'released' : 'still open'}) captures its own`, async () => {
      const b = await buyerWith('pm_card_visa');
      const id = await invoice(b.account_id, b.card, 1100);
      // A first pay authorized the card, then was refused before deciding (as when the buyer merged meanwhile).
      const first = await submitCommand(db(), { integratorId: b.integrator_id, kind: 'invoice.pay', targetId: id, inputKey: 'refused' });
      const inv = (await readInvoice(db(), id))!;
      await authorizeInvoiceCards(db(), cards.provider!, first, inv);
      if (released) await releaseCardAuthorizations(db(), cards.provider!, first, inv);
      const [previous] = await intentsOf(id, b.card);
      assert.equal(previous!.snapshot.status, released ? 'canceled' : 'requires_capture');

      const paid = await api('POST', `/v2/invoice/${id}/pay`);
      assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
      const intents = await intentsOf(id, b.card);
      assert.equal(intents.length, 1);
      assert.notEqual(intents[0]!.objectId, previous!.objectId);
      assert.equal(intents[0]!.snapshot.status, 'succeeded');
      const moved = await findProviderObject(db(), 'stripe', previous!.objectId);
      assert.deepEqual(
        [moved?.holdfastRef, moved?.snapshot.status],
        [`${previous!.holdfastRef}:replaced:${previous!.objectId}`, 'canceled'],
      );
      assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${previous!.objectId}/capture`).length, 0);
      // The database refuses a second PaymentIntent behind the reference.
      await assert.rejects(saveIntentSight(db(), { ...intents[0]!, objectId: `pi_${unique()}` }), /provider_object_intent_ref_uq/);
      // The first pay's command, run to its end, finds the invoice paid: it touches neither intent.
      await runCommandWith(invoiceCommandsWith(cards)['invoice.pay']!, h().orm.em.fork(), first);
      assert.equal((await intentsOf(id, b.card))[0]!.snapshot.status, 'succeeded');
      assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    });
  }

  it('a capture Stripe refuses (the hold lapsed) ends the command: the intent stored canceled, ledger verify names the charge', async () => {
    const b = await buyerWith('pm_card_visa');
    const id = await invoice(b.account_id, b.card, 1300);
    const commandId = await submitCommand(db(), { integratorId: b.integrator_id, kind: 'invoice.pay', targetId: id });
    // Stripe down for the capture: the pay decides (SUCCESS), its hold stays open…
    const down: CardProcessor = {
      ...cards,
      provider: { ...cards.provider!, capture: () => Promise.reject(new CardProviderUnavailable('Stripe could not answer a capture')) },
    };
    await assert.rejects(runCommandWith(invoiceCommandsWith(down)['invoice.pay']!, h().orm.em.fork(), commandId), CardProviderUnavailable);
    const [held] = await intentsOf(id, b.card);
    assert.equal(held!.snapshot.status, 'requires_capture');
    // …past Stripe's seven days: the authorization lapses.
    fake.expireAuthorization(held!.objectId);

    // Run again, the command finishes: no error, the hold no longer open, nothing left for the sweep.
    const warnings: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logged = cardProcessorFor('stripe', stripeApi, { warn: (fields, message) => warnings.push({ fields, message }) });
    const result = await runCommandWith(invoiceCommandsWith(logged)['invoice.pay']!, h().orm.em.fork(), commandId);
    assert.equal(result?.status, 200);
    assert.equal((await readInvoice(db(), id))?.state, 'SUCCESS');
    const [now] = await intentsOf(id, b.card);
    assert.deepEqual([now!.snapshot.status, now!.snapshot.cancellation_reason], ['canceled', 'automatic']);
    assert.equal((await commandsWithUnsettledHolds(db(), 0)).filter((c) => c.id === commandId).length, 0);
    assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${held!.objectId}/capture`).length, 1);
    // Once more: nothing asked of Stripe again, and it was told once, to the process's log.
    await runCommandWith(invoiceCommandsWith(logged)['invoice.pay']!, h().orm.em.fork(), commandId);
    assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${held!.objectId}/capture`).length, 1);
    assert.equal(warnings.length, 1);
    assert.deepEqual(
      [warnings[0]!.fields.payment_intent, warnings[0]!.fields.status, warnings[0]!.fields.cancellation_reason],
      [held!.objectId, 'canceled', 'automatic'],
    );
    assert.match(warnings[0]!.message, /Stripe refused the capture/);

    const problems = (await verifyAll(h().orm.em.fork())).problems;
    assert.ok(
      problems.includes(
        `invoice ${id}: card charge of payment method ${b.card} (1300 USD): Stripe refused its capture, its PaymentIntent ${held!.objectId} is canceled (automatic): the purchase is paid in the ledger, the card never charged`,
      ),
      problems.join('\n'),
    );
    // The run's database stays clean for the files after this one.
    await h()
      .orm.em.fork()
      .execute(`update provider_object set snapshot = jsonb_set(snapshot, '{status}', '"succeeded"') where object_id = ?`, [
        held!.objectId,
      ]);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});
