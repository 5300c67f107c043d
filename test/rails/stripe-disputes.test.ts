/**
 * Disputes on the Stripe adapter, end to end: the app (with /hooks/stripe) and the command
 * workers run with CARD_PROCESSOR=stripe against the local Stripe fake, on a queue prefix of
 * their own. A card charge paid through Stripe is disputed at the fake, whose signed
 * `charge.dispute.*` events drive Holdfast's dispute — in any order, duplicated, the money
 * moved once — and evidence goes to Stripe's dispute.
 */
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../config/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { db as pooled } from '../../src/db/sql.js';
import { buildApp } from '../../src/http/app.js';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import type { CardProcessor } from '../../src/rails/card-processor.port.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { type StripeEvent, type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, TEST_QUEUE_PREFIX, unique, type ApiResponse, type TestClient } from '../support/harness.js';
import { party } from '../support/money.js';

const WEBHOOK_SECRET = 'whsec_testStripeDisputes0123456789';
const FEE = 1500;

const sql = <T = Record<string, any>>(text: string, params: unknown[] = []) => pooled(h().orm.em.fork()).execute<T[]>(text, params);

describe('disputes on Stripe (CARD_PROCESSOR=stripe, charge.dispute.* from the Stripe fake)', function () {
  this.timeout(60_000);
  let fake: StripeFake;
  let server: Server;
  let base = '';
  let workers: RunningWorkers;
  let bus: CommandBus;
  let cards: CardProcessor;
  let client: TestClient;
  let removeEndpoint: () => void;
  /** Runs after Stripe answered an evidence call, before Holdfast saves it (when set). */
  let afterEvidenceCall: (() => Promise<void>) | undefined;
  const prefix = `{holdfast-stripe-disputes-${unique()}}`;

  before(async () => {
    fake = await startStripeFake();
    const config = loadConfig({
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_API_BASE: fake.url,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
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
    // The app's processor is Stripe's, with a hook to let a test hold the answer of an evidence call.
    const provider = cards.provider!;
    const appCards: CardProcessor = {
      ...cards,
      provider: {
        ...provider,
        updateDispute: async (...args) => {
          const answer = await provider.updateDispute!(...args);
          await afterEvidenceCall?.();
          return answer;
        },
      },
    };
    const { orm, redis, signer } = h();
    const app = await buildApp({
      config: {
        appEnv: 'staging',
        publicUrl: 'http://localhost:3000',
        syncWaitMs: 20_000,
        queuePrefix: TEST_QUEUE_PREFIX,
        providerWebhooks: { stripeWebhookSecret: WEBHOOK_SECRET, paypalWebhookId: undefined },
      },
      orm,
      redis,
      signer,
      bus,
      cards: appCards,
      logger: createLogger('silent', 'holdfast-test'),
    });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    removeEndpoint = fake.addWebhookEndpoint({ url: `${base}/hooks/stripe`, secret: WEBHOOK_SECRET });
    client = await newClient();
  });

  after(async () => {
    removeEndpoint?.();
    server?.closeAllConnections?.();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await workers?.close();
    await bus?.close();
    await fake?.stop();
  });

  const api = <T = any>(method: string, path: string, body?: unknown): Promise<ApiResponse<T>> =>
    call<T>(method, path, {
      token: client.token,
      baseUrl: base,
      headers: { 'idempotency-key': unique('k') },
      ...(body === undefined ? {} : { body }),
    });

  /** A buyer's Stripe card charge of `amount` paying a purchase invoice: its invoice, card and PaymentIntent. */
  async function paidCharge(amount: number) {
    const buyer = await party(client);
    const card = await api('POST', `/v1/${buyer.account_id}/payment_methods`, {
      type: 'card',
      card: { stripe_payment_method: 'pm_card_visa' },
    });
    assert.equal(card.status, 201, card.text);
    const pm: string = card.body.payload.id;
    const created = await api('POST', '/v2/invoice', {
      account_id: buyer.account_id,
      payment_methods: [{ payment_method_id: pm, amount: 0 }],
      line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator' }],
    });
    assert.equal(created.status, 201, created.text);
    const invoiceId: string = created.body.payload.invoice_id;
    const paid = await api('POST', `/v2/invoice/${invoiceId}/pay`);
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    const [intent] = await sql<{ object_id: string }>(
      `select object_id from provider_object where holdfast_ref = ? and object_type = 'payment_intent'`,
      [`invoice:${invoiceId}:charge:${pm}`],
    );
    return { invoiceId, pm, intentId: intent!.object_id, integratorId: buyer.integrator_id };
  }

  /** Waits until every event sent was taken in and every command it led to has run. */
  async function settled(timeoutMs = 20_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await fake.eventsDelivered();
      const [row] = await sql<{ n: string }>(
        `select count(*) as n from command where state = 'pending' and (kind like 'dispute.%' or kind = 'provider-event.apply')`,
      );
      if (Number(row!.n) === 0) return;
      if (Date.now() > until) throw new Error(`${row!.n} commands still pending after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  const disputeOfInvoice = async (invoiceId: string) => {
    const res = await api('GET', `/v2/disputes?invoice_id=${invoiceId}`);
    assert.equal(res.status, 200, res.text);
    return res.body.payload.disputes[0];
  };

  /** The phases of a dispute's postings (`dispute:<id>:<phase>`), sorted. */
  const phasesOf = async (disputeId: string) =>
    (await sql<{ reference: string }>(`select reference from ledger_posting where reference like ?`, [`dispute:${disputeId}:%`]))
      .map((r) => r.reference.split(':')[2])
      .sort();

  async function systemBalance(integratorId: string, kind: 'publisher_wallet' | 'dispute_holding' | 'dispute_fees' | 'dispute_losses') {
    const id = await systemAccount(h().orm.em.fork(), integratorId, kind, 'USD');
    return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
  }

  const money = async (integratorId: string) => ({
    wallet: await systemBalance(integratorId, 'publisher_wallet'),
    holding: await systemBalance(integratorId, 'dispute_holding'),
    fees: await systemBalance(integratorId, 'dispute_fees'),
    losses: await systemBalance(integratorId, 'dispute_losses'),
  });

  /** The events Holdfast emitted about a dispute, oldest first. */
  const eventNamesOf = async (disputeId: string) =>
    (
      await sql<{ event_name: string }>(`select event_name from outbox where message ->> 'dispute_id' = ? order by created_at, id`, [
        disputeId,
      ])
    ).map((r) => r.event_name);

  const verifyClean = async () => assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

  const eventsOf = (disputeId: string) => fake.events.filter((e) => e.data.object.id === disputeId);
  const ofType = (events: StripeEvent[], type: string) => events.find((e) => e.type === `charge.dispute.${type}`)!.id;

  it('created: the dispute is recorded NEEDS_RESPONSE with nothing moved; funds_withdrawn moves the money once, duplicates or not', async () => {
    const c = await paidCharge(1200);
    const before = await money(c.integratorId);
    const dp = fake.openDispute(c.intentId, { reason: 'product_not_received', withdraw: false });
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    assert.ok(d, 'the dispute is recorded');
    assert.deepEqual(
      [d.status, d.amount, d.reason, d.funds, d.provider, d.provider_dispute_id, d.payment_method_id],
      ['NEEDS_RESPONSE', 1200, 'product_not_received', 'none', 'stripe', dp.id, c.pm],
    );
    assert.equal(d.evidence_due_by, new Date(dp.evidence_details.due_by * 1000).toISOString());
    assert.deepEqual(await phasesOf(d.dispute_id), []);
    assert.deepEqual(await money(c.integratorId), before);
    // The opening and its notice (which sets Stripe's deadline to the second) make one event.
    assert.deepEqual(await eventNamesOf(d.dispute_id), ['dispute-opened']);
    await verifyClean();

    // Stripe gives more time: the deadline moves, and the integrator hears of it.
    const later = dp.evidence_details.due_by + 3 * 86_400;
    fake.emitEvent('charge.dispute.updated', { ...dp, evidence_details: { ...dp.evidence_details, due_by: later } });
    await settled();
    assert.equal((await disputeOfInvoice(c.invoiceId)).evidence_due_by, new Date(later * 1000).toISOString());
    assert.deepEqual(await eventNamesOf(d.dispute_id), ['dispute-opened', 'dispute-updated']);

    fake.withdrawDisputeFunds(dp.id);
    await settled();
    const withdrawn = ofType(eventsOf(dp.id), 'funds_withdrawn');
    // The same delivery again, and the same notice under a new event id.
    fake.redeliver(withdrawn);
    fake.resend(withdrawn);
    fake.resend(ofType(eventsOf(dp.id), 'created'));
    await settled();
    assert.deepEqual(await phasesOf(d.dispute_id), ['open']);
    const after = await money(c.integratorId);
    assert.deepEqual([after.wallet - before.wallet, after.holding - before.holding, after.fees - before.fees], [-(1200 + FEE), 1200, FEE]);
    const now = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual([now.status, now.funds, now.dispute_id], ['NEEDS_RESPONSE', 'withdrawn', d.dispute_id]);
    assert.equal((await sql(`select id from dispute where provider_dispute_id = ?`, [dp.id])).length, 1);
    await verifyClean();
  });

  it("maps Stripe's reasons: its six by name, any other to general", async () => {
    const c = await paidCharge(600);
    fake.openDispute(c.intentId, { reason: 'credit_not_processed', withdraw: false });
    await settled();
    assert.equal((await disputeOfInvoice(c.invoiceId)).reason, 'general');
  });

  it('evidence: saved to Stripe (staged), then submitted under an idempotency key; won: the amount comes back, the fee stays', async () => {
    const c = await paidCharge(900);
    const before = await money(c.integratorId);
    const dp = fake.openDispute(c.intentId);
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    assert.equal(d.funds, 'withdrawn');

    const saved = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { product_description: '900 gems', uncategorized_text: 'x' });
    assert.equal(saved.status, 200, saved.text);
    assert.deepEqual([saved.body.payload.status, saved.body.payload.evidence.product_description], ['NEEDS_RESPONSE', '900 gems']);
    const staged = fake.requestsTo('POST', `/v1/disputes/${dp.id}`);
    assert.equal(staged.length, 1);
    assert.deepEqual(staged[0]!.body, { evidence: { product_description: '900 gems', uncategorized_text: 'x' }, submit: 'false' });
    assert.match(staged[0]!.idempotencyKey ?? '', new RegExp(`^dispute-evidence:${d.dispute_id}:[0-9a-f]{32}$`));
    assert.equal(fake.api.disputes.get(dp.id)!.status, 'needs_response');

    const submitted = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { uncategorized_text: '', submit: true });
    assert.equal(submitted.status, 200, submitted.text);
    assert.equal(submitted.body.payload.status, 'UNDER_REVIEW');
    assert.deepEqual(submitted.body.payload.evidence, { product_description: '900 gems' });
    const atStripe = fake.api.disputes.get(dp.id)!;
    assert.deepEqual(
      [
        atStripe.status,
        atStripe.evidence.product_description,
        atStripe.evidence.uncategorized_text,
        atStripe.evidence_details.submission_count,
      ],
      ['under_review', '900 gems', null, 1],
    );
    const calls = fake.requestsTo('POST', `/v1/disputes/${dp.id}`);
    assert.equal(calls.length, 2);
    assert.equal(calls[1]!.body.submit, 'true');
    assert.notEqual(calls[1]!.idempotencyKey, calls[0]!.idempotencyKey);
    await settled();
    assert.equal((await disputeOfInvoice(c.invoiceId)).status, 'UNDER_REVIEW');

    fake.closeDispute(dp.id, 'won');
    await settled();
    const won = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual([won.status, won.funds], ['WON', 'reinstated']);
    assert.deepEqual(await phasesOf(d.dispute_id), ['open', 'won']);
    const after = await money(c.integratorId);
    assert.deepEqual([after.wallet - before.wallet, after.holding - before.holding, after.fees - before.fees], [-FEE, 0, FEE]);
    await verifyClean();
  });

  it('evidence while Stripe is unavailable: 503 PROVIDER_UNAVAILABLE in the envelope, nothing saved; sent again, it goes through', async () => {
    const c = await paidCharge(800);
    const dp = fake.openDispute(c.intentId);
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    fake.fault('error', { requests: 1, path: '/v1/disputes' });
    const refused = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { product_description: 'gems', submit: true });
    assert.equal(refused.status, 503, refused.text);
    assert.deepEqual(refused.body.codes, ['PROVIDER_UNAVAILABLE']);
    assert.ok(!/sk_test|api_error|stack/i.test(refused.text));
    const unchanged = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual([unchanged.status, unchanged.evidence, unchanged.evidence_submitted], ['NEEDS_RESPONSE', {}, null]);
    const again = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { product_description: 'gems', submit: true });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.payload.status, 'UNDER_REVIEW');
    assert.equal(fake.api.disputes.get(dp.id)!.status, 'under_review');
    // Stripe refusing (the dispute is submitted already) is a 409, nothing saved.
    const late = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { product_description: 'more' });
    assert.equal(late.status, 409, late.text);
    await settled();
  });

  it("a submission Stripe took is saved even when Stripe's under_review webhook got there first", async () => {
    const c = await paidCharge(750);
    const dp = fake.openDispute(c.intentId);
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    afterEvidenceCall = async () => {
      await settled();
      assert.equal((await disputeOfInvoice(c.invoiceId)).status, 'UNDER_REVIEW', 'the webhook was applied first');
    };
    try {
      const submitted = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { service_date: '2026-11-20', submit: true });
      assert.equal(submitted.status, 200, submitted.text);
      assert.deepEqual([submitted.body.payload.status, submitted.body.payload.evidence], ['UNDER_REVIEW', { service_date: '2026-11-20' }]);
      assert.ok(submitted.body.payload.evidence_submitted);
    } finally {
      afterEvidenceCall = undefined;
    }
    assert.equal(fake.api.disputes.get(dp.id)!.evidence.service_date, '2026-11-20');
  });

  it('lost: the withdrawn amount moves from holding to losses', async () => {
    const c = await paidCharge(700);
    const before = await money(c.integratorId);
    const dp = fake.openDispute(c.intentId);
    await settled();
    fake.closeDispute(dp.id, 'lost');
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual([d.status, d.funds], ['LOST', 'lost']);
    assert.deepEqual(await phasesOf(d.dispute_id), ['lost', 'open']);
    const after = await money(c.integratorId);
    assert.deepEqual(
      [after.wallet - before.wallet, after.holding - before.holding, after.fees - before.fees, after.losses - before.losses],
      [-(700 + FEE), 0, FEE, 700],
    );
    await verifyClean();
  });

  it('an inquiry (warning_needs_response → warning_closed) is recorded and closes WON, moving nothing', async () => {
    const c = await paidCharge(500);
    const before = await money(c.integratorId);
    const dp = fake.openDispute(c.intentId, { inquiry: true });
    await settled();
    assert.deepEqual(
      [(await disputeOfInvoice(c.invoiceId)).status, (await disputeOfInvoice(c.invoiceId)).funds],
      ['NEEDS_RESPONSE', 'none'],
    );
    fake.closeDispute(dp.id, 'warning_closed');
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual([d.status, d.funds, d.inquiry], ['WON', 'none', true]);
    assert.equal((await storedDispute(dp.id))!.snapshot.status, 'warning_closed');
    assert.deepEqual(await phasesOf(d.dispute_id), []);
    assert.deepEqual(await money(c.integratorId), before);
    await verifyClean();
  });

  /** The Stripe dispute object stored as Stripe's last word on a dispute (provider_object), if any. */
  const storedDispute = async (dpId: string) =>
    (
      await sql<{ snapshot: any; holdfast_ref: string }>(
        `select snapshot, holdfast_ref from provider_object where provider = 'stripe' and object_type = 'dispute' and object_id = ?`,
        [dpId],
      )
    )[0];

  it('a dispute of a charge refunded in full is recorded, capped at 0 and flagged CAPPED: only its fee moves', async () => {
    const c = await paidCharge(1000);
    // Earlier disputes took the integrator's wallet below zero: give it what the refund needs.
    const clearing = await systemAccount(h().orm.em.fork(), c.integratorId, 'card_clearing', 'USD');
    const wallet = await systemAccount(h().orm.em.fork(), c.integratorId, 'publisher_wallet', 'USD');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: c.integratorId,
          reference: unique('fund-'),
          description: 'test',
          entries: [
            { account: clearing, currency: 'USD', amount: -100_000 },
            { account: wallet, currency: 'USD', amount: 100_000 },
          ],
        }),
      );
    const refunded = await api('POST', '/v2/refund', { invoice_id: c.invoiceId, reason: 'billing' });
    assert.equal(refunded.status, 200, refunded.text);
    const before = await money(c.integratorId);
    // The cardholder's bank disputes the whole charge all the same.
    const dp = fake.openDispute(c.intentId, { amount: 1000 });
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    assert.ok(d, 'the notice is recorded, not refused');
    assert.deepEqual(
      [d.status, d.amount, d.reported_amount, d.flags, d.funds, d.provider_dispute_id],
      ['NEEDS_RESPONSE', 0, 1000, ['CAPPED'], 'withdrawn', dp.id],
    );
    assert.deepEqual(d.traced, []);
    const after = await money(c.integratorId);
    assert.deepEqual([after.wallet - before.wallet, after.holding - before.holding, after.fees - before.fees], [-FEE, 0, FEE]);
    // Opened by `created`, its fee taken on `funds_withdrawn`.
    assert.deepEqual(await eventNamesOf(d.dispute_id), ['dispute-opened', 'dispute-updated']);
    await verifyClean();
    fake.closeDispute(dp.id, 'lost');
    await settled();
    const lost = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual([lost.status, lost.funds, lost.flags], ['LOST', 'withdrawn', ['CAPPED']]);
    assert.deepEqual(await money(c.integratorId), after, 'nothing beyond the fee moves');
    await verifyClean();
  });

  it('a notice on a charge Holdfast does not hold as paid is recorded with nothing disputed, flagged NOT_A_PAID_CHARGE', async () => {
    const c = await paidCharge(800);
    // Holdfast's invoice says the purchase did not go through (whatever Stripe's charge says).
    await sql(`update invoice set state = 'FAILED', failure_reason = 'test' where id = ?`, [c.invoiceId]);
    try {
      const before = await money(c.integratorId);
      const dp = fake.openDispute(c.intentId, { withdraw: false });
      await settled();
      const d = await disputeOfInvoice(c.invoiceId);
      assert.ok(d, 'the notice is recorded, not refused');
      assert.deepEqual([d.amount, d.reported_amount, d.flags, d.funds], [0, 800, ['CAPPED', 'NOT_A_PAID_CHARGE'], 'none']);
      const opened = await sql<{ result_status: number }>(
        `select result_status from command where kind = 'dispute.open' and target_id = ?`,
        [d.dispute_id],
      );
      assert.deepEqual(
        opened.map((r) => r.result_status),
        [200],
      );
      assert.equal(d.provider_dispute_id, dp.id);
      assert.deepEqual(await money(c.integratorId), before);
    } finally {
      await sql(`update invoice set state = 'SUCCESS', failure_reason = null where id = ?`, [c.invoiceId]);
    }
  });

  it("Stripe's last word on a dispute is stored, and ledger verify names a dispute that disagrees with it", async () => {
    const c = await paidCharge(450);
    const dp = fake.openDispute(c.intentId);
    await settled();
    fake.closeDispute(dp.id, 'lost');
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    const stored = await storedDispute(dp.id);
    assert.equal(stored!.holdfast_ref, `invoice:${c.invoiceId}:charge:${c.pm}:dispute`);
    assert.deepEqual(
      [stored!.snapshot.status, stored!.snapshot.amount, stored!.snapshot.currency, stored!.snapshot.payment_intent],
      ['lost', 450, 'usd', c.intentId],
    );
    await verifyClean();
    // A late event with an older view of the dispute does not replace the stored one.
    fake.resend(ofType(eventsOf(dp.id), 'created'));
    await settled();
    assert.equal((await storedDispute(dp.id))!.snapshot.status, 'lost');
    // Deliberately broken: Holdfast's dispute still open though Stripe lost it, and another amount.
    const [{ closed_at: closedAt }] = await sql<{ closed_at: Date }>(`select closed_at from dispute where id = ?`, [d.dispute_id]);
    await sql(`update dispute set status = 'NEEDS_RESPONSE', closed_at = null, reported_amount = 999 where id = ?`, [d.dispute_id]);
    try {
      const problems = (await verifyAll(h().orm.em.fork())).problems;
      assert.ok(
        problems.some((p) => p.includes(d.dispute_id) && p.includes('Stripe says lost') && p.includes('NEEDS_RESPONSE')),
        problems.join('\n'),
      );
      assert.ok(
        problems.some((p) => p.includes(d.dispute_id) && p.includes('Stripe reports 450, Holdfast 999')),
        problems.join('\n'),
      );
    } finally {
      await sql(`update dispute set status = 'LOST', closed_at = ?, reported_amount = 450 where id = ?`, [closedAt, d.dispute_id]);
    }
    // Its stored Stripe dispute gone: named too.
    await sql(`update provider_object set holdfast_ref = 'elsewhere' where provider = 'stripe' and object_id = ?`, [dp.id]);
    try {
      const problems = (await verifyAll(h().orm.em.fork())).problems;
      assert.ok(
        problems.some((p) => p.includes(d.dispute_id) && p.includes('has no stored Stripe dispute')),
        problems.join('\n'),
      );
    } finally {
      await sql(`update provider_object set holdfast_ref = ? where provider = 'stripe' and object_id = ?`, [stored!.holdfast_ref, dp.id]);
    }
    await verifyClean();
  });

  it('a second Stripe dispute of a charge already disputed is recorded as a flag, moves nothing, and verify names it', async () => {
    const c = await paidCharge(640);
    const dp = fake.openDispute(c.intentId);
    await settled();
    const d = await disputeOfInvoice(c.invoiceId);
    const before = await money(c.integratorId);
    const second = fake.openDispute(c.intentId, { amount: 100 });
    await settled();
    fake.resend(ofType(eventsOf(second.id), 'funds_withdrawn'));
    await settled();
    const now = await disputeOfInvoice(c.invoiceId);
    assert.deepEqual(
      [now.dispute_id, now.provider_dispute_id, now.flags, now.amount, now.funds],
      [d.dispute_id, dp.id, ['SECOND_PROVIDER_DISPUTE'], 640, 'withdrawn'],
    );
    assert.equal((await sql(`select id from dispute where invoice_id = ?`, [c.invoiceId])).length, 1);
    assert.deepEqual(await money(c.integratorId), before, 'the second dispute moves nothing here');
    // Opened, its money withdrawn, then flagged once (the second dispute's further events add nothing).
    assert.deepEqual(await eventNamesOf(d.dispute_id), ['dispute-opened', 'dispute-updated', 'dispute-updated']);
    assert.equal((await storedDispute(second.id))!.holdfast_ref, `invoice:${c.invoiceId}:charge:${c.pm}:dispute`);
    const problems = (await verifyAll(h().orm.em.fork())).problems;
    assert.ok(
      problems.some((p) => p.includes(d.dispute_id) && p.includes(`another dispute of its charge, ${second.id}`)),
      problems.join('\n'),
    );
    // An operator settled it with Stripe (here: its stored object set aside), and verify is clean again.
    await sql(`update provider_object set holdfast_ref = 'settled-by-operator' where provider = 'stripe' and object_id = ?`, [second.id]);
    await verifyClean();
  });

  describe('inquiries', () => {
    afterEach(() => fake.releaseEvents());

    it('an inquiry moves nothing; escalated to a chargeback it needs a response again and moves the money once', async () => {
      const c = await paidCharge(1400);
      const before = await money(c.integratorId);
      const dp = fake.openDispute(c.intentId, { inquiry: true });
      await settled();
      const d = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([d.status, d.funds, d.inquiry, d.flags], ['NEEDS_RESPONSE', 'none', true, []]);
      // The inquiry answered: under review at Stripe and in Holdfast.
      const submitted = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { product_description: '1400 gems', submit: true });
      assert.equal(submitted.status, 200, submitted.text);
      await settled();
      assert.equal(fake.api.disputes.get(dp.id)!.status, 'warning_under_review');
      assert.deepEqual(await money(c.integratorId), before, 'an inquiry takes no money');

      // The bank escalates: the same dispute, a chargeback now, needing a response again.
      const escalated = fake.escalateInquiry(dp.id, 10);
      await settled();
      const now = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual(
        [now.dispute_id, now.status, now.inquiry, now.funds, now.evidence_submitted, now.evidence],
        [d.dispute_id, 'NEEDS_RESPONSE', false, 'none', null, { product_description: '1400 gems' }],
      );
      assert.equal(now.evidence_due_by, new Date(escalated.evidence_details.due_by * 1000).toISOString());
      assert.deepEqual(await money(c.integratorId), before, 'escalated, no money moves before Stripe withdraws it');

      fake.withdrawDisputeFunds(dp.id);
      await settled();
      for (const e of eventsOf(dp.id)) fake.redeliver(e.id);
      fake.resend(ofType(eventsOf(dp.id), 'funds_withdrawn'));
      await settled();
      assert.deepEqual(await phasesOf(d.dispute_id), ['open']);
      const taken = await money(c.integratorId);
      assert.deepEqual(
        [taken.wallet - before.wallet, taken.holding - before.holding, taken.fees - before.fees],
        [-(1400 + FEE), 1400, FEE],
      );
      assert.deepEqual(
        [(await disputeOfInvoice(c.invoiceId)).status, (await disputeOfInvoice(c.invoiceId)).inquiry],
        ['NEEDS_RESPONSE', false],
        'the inquiry events again change nothing back',
      );

      // The chargeback's evidence goes to Stripe like any other; Stripe decides it.
      const again = await api('POST', `/v2/disputes/${d.dispute_id}/evidence`, { uncategorized_text: 'delivered', submit: true });
      assert.equal(again.status, 200, again.text);
      assert.equal(fake.api.disputes.get(dp.id)!.status, 'under_review');
      fake.closeDispute(dp.id, 'lost');
      await settled();
      const lost = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([lost.status, lost.funds], ['LOST', 'lost']);
      assert.deepEqual(await phasesOf(d.dispute_id), ['lost', 'open']);
      assert.equal((await storedDispute(dp.id))!.snapshot.status, 'lost');
      await verifyClean();
    });

    it('an escalation whose events come in reverse, each twice: recorded from the last word, the money moved and lost once', async () => {
      const c = await paidCharge(1250);
      const before = await money(c.integratorId);
      fake.holdEvents();
      const dp = fake.openDispute(c.intentId, { inquiry: true });
      fake.escalateInquiry(dp.id);
      fake.withdrawDisputeFunds(dp.id);
      fake.closeDispute(dp.id, 'lost');
      const events = eventsOf(dp.id);
      assert.deepEqual(
        events.map((e) => e.type),
        ['charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.funds_withdrawn', 'charge.dispute.closed'],
      );
      fake.releaseEvents('reversed');
      await settled();
      for (const e of [...events].reverse()) fake.redeliver(e.id);
      fake.resend(ofType(events, 'created'));
      await settled();
      const d = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([d.status, d.funds, d.inquiry, d.amount], ['LOST', 'lost', false, 1250]);
      assert.deepEqual(await phasesOf(d.dispute_id), ['lost', 'open']);
      const after = await money(c.integratorId);
      assert.deepEqual(
        [after.wallet - before.wallet, after.losses - before.losses, after.holding - before.holding],
        [-(1250 + FEE), 1250, 0],
      );
      assert.equal((await storedDispute(dp.id))!.snapshot.status, 'lost');
      await verifyClean();
    });

    it('an inquiry first, its escalation next, the inquiry event again last: the late inquiry changes nothing', async () => {
      const c = await paidCharge(975);
      fake.holdEvents();
      const dp = fake.openDispute(c.intentId, { inquiry: true });
      fake.escalateInquiry(dp.id);
      const events = eventsOf(dp.id);
      fake.releaseEvents([ofType(events, 'created'), ofType(events, 'updated')]);
      await settled();
      const escalated = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([escalated.status, escalated.inquiry], ['NEEDS_RESPONSE', false]);
      fake.resend(ofType(events, 'created'));
      await settled();
      const d = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([d.status, d.inquiry, d.evidence_due_by], ['NEEDS_RESPONSE', false, escalated.evidence_due_by]);
      assert.equal((await storedDispute(dp.id))!.snapshot.status, 'needs_response');
      await verifyClean();
    });
  });

  describe('out of order', () => {
    afterEach(() => fake.releaseEvents());

    it('closed (lost) before funds_withdrawn, created last: recorded from the first event, the money moved and lost once', async () => {
      const c = await paidCharge(1100);
      const before = await money(c.integratorId);
      fake.holdEvents();
      const dp = fake.openDispute(c.intentId, { withdraw: false });
      // Decided before Stripe's withdrawal shows: the closed event's object has no balance transaction yet.
      fake.closeDispute(dp.id, 'lost');
      fake.withdrawDisputeFunds(dp.id);
      const events = eventsOf(dp.id);
      fake.releaseEvents([ofType(events, 'closed'), ofType(events, 'funds_withdrawn'), ofType(events, 'created')]);
      await settled();
      const d = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([d.status, d.funds, d.amount, d.provider_dispute_id], ['LOST', 'lost', 1100, dp.id]);
      assert.deepEqual(await phasesOf(d.dispute_id), ['lost', 'open']);
      const after = await money(c.integratorId);
      assert.deepEqual(
        [after.wallet - before.wallet, after.losses - before.losses, after.holding - before.holding],
        [-(1100 + FEE), 1100, 0],
      );
      await verifyClean();
    });

    it('funds_reinstated before closed (won), and every event of the life reversed: the amount back once', async () => {
      for (const order of ['reinstated-first', 'reversed'] as const) {
        const c = await paidCharge(1300);
        const before = await money(c.integratorId);
        fake.holdEvents();
        const dp = fake.openDispute(c.intentId);
        fake.closeDispute(dp.id, 'won');
        const events = eventsOf(dp.id);
        if (order === 'reversed') fake.releaseEvents('reversed');
        else
          fake.releaseEvents([
            ofType(events, 'created'),
            ofType(events, 'funds_withdrawn'),
            ofType(events, 'funds_reinstated'),
            ofType(events, 'closed'),
          ]);
        await settled();
        for (const e of events) fake.redeliver(e.id);
        fake.resend(ofType(events, 'funds_reinstated'));
        await settled();
        const d = await disputeOfInvoice(c.invoiceId);
        assert.deepEqual([d.status, d.funds], ['WON', 'reinstated'], order);
        assert.deepEqual(await phasesOf(d.dispute_id), ['open', 'won'], order);
        const after = await money(c.integratorId);
        assert.deepEqual([after.wallet - before.wallet, after.holding - before.holding, after.fees - before.fees], [-FEE, 0, FEE], order);
        await verifyClean();
      }
    });

    it('an update (under_review) arriving after the decision changes nothing', async () => {
      const c = await paidCharge(650);
      fake.holdEvents();
      const dp = fake.openDispute(c.intentId);
      const submitted = fake.api.updateDispute(
        dp.id,
        { evidence: { product_description: 'x' }, submit: 'true' },
        { requestId: '', idempotencyKey: null, publishable: false },
      );
      assert.equal(submitted.status, 'under_review');
      fake.closeDispute(dp.id, 'lost');
      fake.releaseEvents('reversed');
      await settled();
      const d = await disputeOfInvoice(c.invoiceId);
      assert.deepEqual([d.status, d.funds], ['LOST', 'lost']);
      assert.deepEqual(await phasesOf(d.dispute_id), ['lost', 'open']);
      await verifyClean();
    });
  });

  it('a dispute of a charge Holdfast did not make is ignored; an event with no dispute in it is refused (failed)', async () => {
    const c = await paidCharge(550);
    const dp = fake.openDispute(c.intentId, { withdraw: false });
    await settled();
    const foreign = fake.emitEvent('charge.dispute.created', {
      ...dp,
      id: 'dp_foreign000',
      payment_intent: 'pi_elsewhere',
      charge: 'ch_elsewhere',
    });
    const malformed = fake.emitEvent('charge.dispute.funds_withdrawn', { ...dp, amount: 'lots' });
    await settled();
    const outcome = async (id: string) =>
      (await sql<{ outcome: string }>(`select outcome from provider_event where provider = 'stripe' and provider_event_id = ?`, [id]))[0]
        ?.outcome;
    assert.equal(await outcome(foreign.id), 'ignored');
    assert.equal(await outcome(malformed.id), 'failed');
    assert.equal((await sql(`select id from dispute where provider_dispute_id = 'dp_foreign000'`)).length, 0);
    assert.deepEqual(await phasesOf((await disputeOfInvoice(c.invoiceId)).dispute_id), []);
  });
});
