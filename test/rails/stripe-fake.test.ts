import assert from 'node:assert/strict';
import vm from 'node:vm';
import Stripe from 'stripe';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { type Received, type Receiver, startReceiver } from '../support/receiver.js';

const WEBHOOK_SECRET = 'whsec_stripe_fake_test';

/**
 * A server-side confirmation without a return_url needs an intent that takes no redirect-based
 * payment method (card only), as on Stripe since API version 2023-08-16.
 */
const CARD_ONLY = { payment_method_types: ['card'] };

/** The official client configured as Holdfast configures it from STRIPE_API_BASE. */
function client(fake: StripeFake, options: Partial<Stripe.StripeConfig> = {}): Stripe {
  const base = new URL(fake.url);
  return new Stripe(fake.secretKey, {
    host: base.hostname,
    port: Number(base.port),
    protocol: base.protocol.replace(':', '') as 'http',
    maxNetworkRetries: 0,
    ...options,
  });
}

async function cardError(promise: Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof Stripe.errors.StripeError, `expected a StripeError, got ${e}`);
    return e;
  }
  assert.fail('expected the call to fail');
}

/** The event a webhook delivery carried, verified as Holdfast verifies it. */
function verified(stripe: Stripe, request: Received): Stripe.Event {
  return stripe.webhooks.constructEvent(request.body, String(request.headers['stripe-signature']), WEBHOOK_SECRET);
}

describe('Stripe fake, driven by the official stripe package', () => {
  let fake: StripeFake;
  let receiver: Receiver;
  let stripe: Stripe;

  before(async () => {
    receiver = await startReceiver();
    fake = await startStripeFake({ webhooks: [{ url: receiver.url, secret: WEBHOOK_SECRET }], refundFailureDelayMs: 50 });
    stripe = client(fake);
  });
  after(async () => {
    await fake?.stop();
    await receiver?.close();
  });

  async function customerWithCard(token: string) {
    const customer = await stripe.customers.create({ email: 'buyer@example.test', metadata: { account: 'acc_1' } });
    const pm = await stripe.paymentMethods.attach(token, { customer: customer.id });
    return { customer, pm };
  }

  it('refuses a request without the secret key, in Stripe’s error shape', async () => {
    const wrong = new Stripe('sk_test_wrong_key_1234', { ...fake.clientOptions(), maxNetworkRetries: 0 });
    const e = await cardError(wrong.customers.create({}));
    assert.equal(e.type, 'StripeAuthenticationError');
    assert.equal(e.statusCode, 401);
  });

  it('creates and retrieves a customer; attaching a test card gives a pm_ of that customer with card details', async () => {
    const { customer, pm } = await customerWithCard('pm_card_visa');
    assert.match(customer.id, /^cus_/);
    assert.deepEqual((await stripe.customers.retrieve(customer.id)) as Stripe.Customer, customer);
    assert.match(pm.id, /^pm_/);
    assert.notEqual(pm.id, 'pm_card_visa');
    assert.equal(pm.customer, customer.id);
    assert.equal(pm.card?.brand, 'visa');
    assert.equal(pm.card?.last4, '4242');
    assert.ok(pm.card?.exp_month && pm.card.exp_year && pm.card.fingerprint);
    const again = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    assert.equal(again.card?.fingerprint, pm.card?.fingerprint, 'the same card number has the same fingerprint');
    assert.equal((await stripe.paymentMethods.retrieve(pm.id)).customer, customer.id);
    const mastercard = await stripe.paymentMethods.attach('pm_card_mastercard', { customer: customer.id });
    assert.deepEqual([mastercard.card?.brand, mastercard.card?.last4], ['mastercard', '4444']);
  });

  it('lists and detaches a customer’s PaymentMethods', async () => {
    const { customer, pm } = await customerWithCard('pm_card_visa');
    const second = await stripe.paymentMethods.attach('pm_card_mastercard', { customer: customer.id });
    const listed = await stripe.customers.listPaymentMethods(customer.id, { type: 'card' });
    assert.deepEqual(
      listed.data.map((m) => m.id),
      [second.id, pm.id],
    );
    const detached = await stripe.paymentMethods.detach(pm.id);
    assert.equal(detached.customer, null);
    assert.deepEqual(
      (await stripe.paymentMethods.list({ customer: customer.id, type: 'card' })).data.map((m) => m.id),
      [second.id],
    );
  });

  it('refuses an amount under Stripe’s minimum charge and a missing currency, naming the param', async () => {
    const small = await cardError(stripe.paymentIntents.create({ amount: 49, currency: 'usd', payment_method: 'pm_card_visa' }));
    assert.equal(small.statusCode, 400);
    assert.equal(small.code, 'amount_too_small');
    assert.equal(small.param, 'amount');
    const missing = await cardError(stripe.paymentIntents.create({ amount: 100 } as any));
    assert.equal(missing.code, 'parameter_missing');
    assert.equal(missing.param, 'currency');
    const unknown = await cardError(stripe.paymentIntents.retrieve('pi_nope'));
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.code, 'resource_missing');
  });

  it('updates an intent’s metadata and confirms it later', async () => {
    const intent = await stripe.paymentIntents.create({ amount: 800, currency: 'usd', metadata: { a: '1', b: '2' } });
    assert.equal(intent.status, 'requires_payment_method');
    const updated = await stripe.paymentIntents.update(intent.id, { metadata: { b: '', c: '3' }, payment_method: 'pm_card_visa' });
    assert.deepEqual(updated.metadata, { a: '1', c: '3' });
    assert.equal(updated.status, 'requires_confirmation');
    const noReturn = await cardError(stripe.paymentIntents.confirm(intent.id, { off_session: true }));
    assert.equal(noReturn.statusCode, 400);
    assert.match(noReturn.message, /return_url/, 'an intent open to redirect-based methods needs a return_url');
    const confirmed = await stripe.paymentIntents.confirm(intent.id, { off_session: true, return_url: 'https://holdfast.test/back' });
    assert.equal(confirmed.status, 'succeeded');
    const never = await stripe.paymentIntents.create({
      amount: 800,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      confirm: true,
      off_session: true,
    });
    assert.equal(never.status, 'succeeded');
    const again = await cardError(stripe.paymentIntents.confirm(intent.id));
    assert.equal(again.code, 'payment_intent_unexpected_state');
    const cancel = await cardError(stripe.paymentIntents.cancel(intent.id));
    assert.equal(cancel.code, 'payment_intent_unexpected_state');
  });

  it('charges a card off-session: succeeded with latest_charge, with form-encoded metadata', async () => {
    const { customer, pm } = await customerWithCard('pm_card_visa');
    const intent = await stripe.paymentIntents.create({
      ...CARD_ONLY,
      amount: 2500,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      off_session: true,
      description: 'invoice inv_1',
      metadata: { invoice: 'inv_1', step: 'charge' },
    });
    assert.equal(intent.status, 'succeeded');
    assert.equal(intent.amount_received, 2500);
    assert.match(String(intent.latest_charge), /^ch_/);
    assert.deepEqual(intent.metadata, { invoice: 'inv_1', step: 'charge' });
    const logged = fake.requestsTo('POST', '/v1/payment_intents').at(-1)!;
    assert.deepEqual(logged.body.metadata, { invoice: 'inv_1', step: 'charge' });
    assert.match(String(logged.idempotencyKey), /^stripe-node-retry-/, 'the package keys every POST');
    const charge = await stripe.charges.retrieve(String(intent.latest_charge));
    assert.equal(charge.status, 'succeeded');
    assert.equal(charge.payment_method_details?.card?.last4, '4242');
    const expanded = await stripe.paymentIntents.retrieve(intent.id, { expand: ['latest_charge'] });
    assert.equal((expanded.latest_charge as Stripe.Charge).id, charge.id);
  });

  for (const [token, code, declineCode] of [
    ['pm_card_chargeDeclined', 'card_declined', 'generic_decline'],
    ['pm_card_visa_chargeDeclinedInsufficientFunds', 'card_declined', 'insufficient_funds'],
    ['pm_card_chargeDeclinedExpiredCard', 'expired_card', undefined],
  ] as const) {
    it(`declines ${token} (${declineCode ?? code}): 402 card_error at attach, and at a charge the intent is back in requires_payment_method`, async () => {
      const customer = await stripe.customers.create({});
      // Stripe: "The cards in the previous table can't be attached to a Customer object."
      const atAttach = await cardError(stripe.paymentMethods.attach(token, { customer: customer.id }));
      assert.ok(atAttach instanceof Stripe.errors.StripeCardError);
      // The package gives a card error without a decline code an empty one.
      assert.deepEqual([atAttach.statusCode, atAttach.code, atAttach.decline_code], [402, code, declineCode ?? '']);
      const e = await cardError(
        stripe.paymentIntents.create({
          ...CARD_ONLY,
          amount: 1000,
          currency: 'usd',
          customer: customer.id,
          payment_method: token,
          confirm: true,
        }),
      );
      assert.ok(e instanceof Stripe.errors.StripeCardError);
      assert.equal(e.statusCode, 402);
      assert.equal(e.code, code);
      assert.equal(e.decline_code, declineCode ?? '');
      const intent = e.payment_intent as Stripe.PaymentIntent;
      assert.equal(intent.last_payment_error?.decline_code, declineCode);
      assert.equal(intent.status, 'requires_payment_method');
      assert.equal(intent.last_payment_error?.code, code);
      assert.equal((await stripe.paymentIntents.retrieve(intent.id)).status, 'requires_payment_method');
      await fake.waitForEvent('payment_intent.payment_failed', (ev) => ev.data.object.id === intent.id);
    });
  }

  it('declines an attached pm_card_chargeCustomerFail off-session (generic_decline)', async () => {
    const { customer, pm } = await customerWithCard('pm_card_chargeCustomerFail');
    assert.equal(pm.customer, customer.id);
    const e = await cardError(
      stripe.paymentIntents.create({
        ...CARD_ONLY,
        amount: 1000,
        currency: 'usd',
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        off_session: true,
      }),
    );
    assert.equal(e.decline_code, 'generic_decline');
    assert.equal(fake.api.charges.get(String(e.charge))?.status, 'failed');
  });

  it('fails an off-session charge of a card that needs authentication with authentication_required', async () => {
    const { customer, pm } = await customerWithCard('pm_card_authenticationRequired');
    const e = await cardError(
      stripe.paymentIntents.create({
        ...CARD_ONLY,
        amount: 1200,
        currency: 'eur',
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        off_session: true,
      }),
    );
    assert.equal(e.statusCode, 402);
    assert.equal(e.code, 'authentication_required');
    assert.equal((e.payment_intent as Stripe.PaymentIntent).status, 'requires_payment_method');
  });

  it('on-session, asks for 3-D Secure; completing it on the fake’s page succeeds and sends payment_intent.succeeded', async () => {
    const { customer, pm } = await customerWithCard('pm_card_authenticationRequired');
    const intent = await stripe.paymentIntents.create({
      amount: 1200,
      currency: 'eur',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      off_session: false,
      return_url: 'https://holdfast.test/checkout/done',
    });
    assert.equal(intent.status, 'requires_action');
    assert.equal(intent.next_action?.type, 'redirect_to_url');
    const challenge = String(intent.next_action?.redirect_to_url?.url);
    assert.ok(challenge.startsWith(`${fake.url}/3ds/${intent.id}`));
    assert.match(await (await fetch(challenge)).text(), /Complete/);
    const done = await fetch(`${challenge}?outcome=complete`, { method: 'POST', redirect: 'manual' });
    assert.equal(done.status, 303);
    const back = new URL(String(done.headers.get('location')));
    assert.equal(back.origin + back.pathname, 'https://holdfast.test/checkout/done');
    assert.equal(back.searchParams.get('payment_intent'), intent.id);
    assert.equal(back.searchParams.get('redirect_status'), 'succeeded');
    assert.equal((await stripe.paymentIntents.retrieve(intent.id)).status, 'succeeded');
    await receiver.until((got) => got.some((r) => r.json?.type === 'payment_intent.succeeded' && r.json.data.object.id === intent.id));
  });

  it('on-session, a failed 3-D Secure leaves the intent in requires_payment_method with last_payment_error', async () => {
    const { customer, pm } = await customerWithCard('pm_card_authenticationRequired');
    const intent = await stripe.paymentIntents.create({ amount: 900, currency: 'eur', customer: customer.id, payment_method: pm.id });
    const action = await stripe.paymentIntents.confirm(intent.id, { return_url: 'https://holdfast.test/back' });
    assert.equal(action.status, 'requires_action');
    const failed = fake.authenticate(intent.id, 'fail');
    assert.equal(failed.status, 'requires_payment_method');
    const after = await stripe.paymentIntents.retrieve(intent.id);
    assert.equal(after.last_payment_error?.code, 'payment_intent_authentication_failure');
    await fake.waitForEvent('payment_intent.payment_failed', (ev) => ev.data.object.id === intent.id);
    const canceled = await stripe.paymentIntents.cancel(intent.id);
    assert.equal(canceled.status, 'canceled');
  });

  describe('separate authorization and capture (capture_method=manual)', () => {
    async function authorize(token = 'pm_card_visa', amount = 1000) {
      const { customer, pm } = await customerWithCard(token);
      return stripe.paymentIntents.create({
        ...CARD_ONLY,
        amount,
        currency: 'usd',
        customer: customer.id,
        payment_method: pm.id,
        capture_method: 'manual',
        confirm: true,
        off_session: true,
      });
    }

    it('holds the amount, then captures part of it; the rest is released and refunds stop at what was captured', async () => {
      const intent = await authorize();
      assert.equal(intent.status, 'requires_capture');
      assert.equal(intent.amount_capturable, 1000);
      const held = await stripe.charges.retrieve(String(intent.latest_charge));
      assert.deepEqual([held.status, held.captured, held.amount_captured], ['succeeded', false, 0]);
      await fake.waitForEvent('payment_intent.amount_capturable_updated', (e) => e.data.object.id === intent.id);
      const captured = await stripe.paymentIntents.capture(intent.id, { amount_to_capture: 600 });
      assert.deepEqual([captured.status, captured.amount_received, captured.amount_capturable], ['succeeded', 600, 0]);
      const charge = await stripe.charges.retrieve(String(intent.latest_charge));
      assert.deepEqual([charge.captured, charge.amount_captured], [true, 600]);
      await fake.waitForEvent('charge.captured', (e) => e.data.object.id === charge.id);
      const again = await cardError(stripe.paymentIntents.capture(intent.id));
      assert.equal(again.code, 'payment_intent_unexpected_state');
      const tooMuch = await cardError(stripe.refunds.create({ payment_intent: intent.id, amount: 601 }));
      assert.equal(tooMuch.statusCode, 400);
      assert.equal((await stripe.refunds.create({ payment_intent: intent.id })).amount, 600);
    });

    it('cancels an authorization (released, nothing captured) and lets another lapse with charge.expired', async () => {
      const intent = await authorize();
      const canceled = await stripe.paymentIntents.cancel(intent.id);
      assert.deepEqual([canceled.status, canceled.amount_capturable, canceled.amount_received], ['canceled', 0, 0]);
      assert.equal((await stripe.charges.retrieve(String(intent.latest_charge))).refunded, true);
      const lapsing = await authorize();
      fake.expireAuthorization(lapsing.id);
      assert.equal((await stripe.paymentIntents.retrieve(lapsing.id)).cancellation_reason, 'automatic');
      await fake.waitForEvent('charge.expired', (e) => e.data.object.payment_intent === lapsing.id);
    });

    it('holds the amount after an on-session 3-D Secure challenge', async () => {
      const { customer, pm } = await customerWithCard('pm_card_authenticationRequired');
      const intent = await stripe.paymentIntents.create({
        ...CARD_ONLY,
        amount: 2000,
        currency: 'usd',
        customer: customer.id,
        payment_method: pm.id,
        capture_method: 'manual',
        confirm: true,
        return_url: 'https://holdfast.test/back',
      });
      assert.equal(intent.status, 'requires_action');
      assert.equal(fake.authenticate(intent.id, 'complete').status, 'requires_capture');
      assert.equal((await stripe.paymentIntents.capture(intent.id)).amount_received, 2000);
    });

    it('declines at authorization as at a charge', async () => {
      const e = await cardError(authorize('pm_card_chargeCustomerFail'));
      assert.equal(e.decline_code, 'generic_decline');
      const auth = await cardError(authorize('pm_card_authenticationRequired'));
      assert.equal(auth.code, 'authentication_required');
    });
  });

  it('replays an idempotent request and refuses the key with another body (400 idempotency_error)', async () => {
    const { customer, pm } = await customerWithCard('pm_card_visa');
    const params = {
      ...CARD_ONLY,
      amount: 700,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      off_session: true,
    };
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'cmd-42-charge' });
    const second = await stripe.paymentIntents.create(params, { idempotencyKey: 'cmd-42-charge' });
    assert.equal(second.id, first.id);
    assert.equal(second.lastResponse.headers['idempotent-replayed'], 'true');
    const created = fake.events.filter((e) => e.type === 'charge.succeeded' && e.data.object.payment_intent === first.id);
    assert.equal(created.length, 1, 'charged once');
    const e = await cardError(stripe.paymentIntents.create({ ...params, amount: 701 }, { idempotencyKey: 'cmd-42-charge' }));
    assert.equal(e.statusCode, 400);
    assert.equal(e.type, 'StripeIdempotencyError');
    // A decline is stored too: the retry sees the same 402, not a second attempt.
    const declined = await customerWithCard('pm_card_chargeCustomerFail');
    const dParams = { ...params, customer: declined.customer.id, payment_method: declined.pm.id };
    const d1 = await cardError(stripe.paymentIntents.create(dParams, { idempotencyKey: 'cmd-43-charge' }));
    const d2 = await cardError(stripe.paymentIntents.create(dParams, { idempotencyKey: 'cmd-43-charge' }));
    assert.equal((d2.payment_intent as Stripe.PaymentIntent).id, (d1.payment_intent as Stripe.PaymentIntent).id);
  });

  it('refunds part and then the rest of a charge; a refund beyond it is refused', async () => {
    const { customer, pm } = await customerWithCard('pm_card_visa');
    const intent = await stripe.paymentIntents.create({
      ...CARD_ONLY,
      amount: 1000,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      off_session: true,
    });
    const part = await stripe.refunds.create({ payment_intent: intent.id, amount: 300, metadata: { line: 'l1' } });
    assert.equal(part.status, 'succeeded');
    assert.equal(part.amount, 300);
    assert.deepEqual(part.metadata, { line: 'l1' });
    assert.equal((await stripe.refunds.retrieve(part.id)).id, part.id);
    const tooMuch = await cardError(stripe.refunds.create({ payment_intent: intent.id, amount: 701 }));
    assert.equal(tooMuch.statusCode, 400);
    const rest = await stripe.refunds.create({ payment_intent: intent.id });
    assert.equal(rest.amount, 700);
    assert.equal((await stripe.charges.retrieve(String(intent.latest_charge))).refunded, true);
    await fake.waitForEvent('refund.created', (ev) => ev.data.object.id === rest.id);
  });

  it('fails a refund of pm_card_refundFail later, with refund.failed and charge.refund.updated', async () => {
    const { customer, pm } = await customerWithCard('pm_card_refundFail');
    const intent = await stripe.paymentIntents.create({
      ...CARD_ONLY,
      amount: 1500,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      off_session: true,
    });
    const refund = await stripe.refunds.create({ payment_intent: intent.id });
    assert.equal(refund.status, 'succeeded', 'a failing refund first looks successful, as Stripe documents');
    const failed = await fake.waitForEvent('refund.failed', (ev) => ev.data.object.id === refund.id);
    assert.equal(failed.data.object.failure_reason, 'expired_or_canceled_card');
    await fake.waitForEvent('charge.refund.updated', (ev) => ev.data.object.id === refund.id);
    assert.equal((await stripe.refunds.retrieve(refund.id)).status, 'failed');
    assert.equal((await stripe.charges.retrieve(String(intent.latest_charge))).amount_refunded, 0);
  });

  it('keeps a refund of pm_card_pendingRefund pending, then succeeds it with refund.updated', async () => {
    const { customer, pm } = await customerWithCard('pm_card_pendingRefund');
    const intent = await stripe.paymentIntents.create({
      ...CARD_ONLY,
      amount: 1500,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      off_session: true,
    });
    const refund = await stripe.refunds.create({ payment_intent: intent.id });
    assert.equal(refund.status, 'pending');
    const updated = await fake.waitForEvent('refund.updated', (ev) => ev.data.object.id === refund.id);
    assert.equal(updated.data.object.status, 'succeeded');
    assert.deepEqual(updated.data.previous_attributes, { status: 'pending' });
  });

  it('declines a card after its 3-D Secure challenge passes (insufficient funds), back to the return_url as failed', async () => {
    const { customer, pm } = await customerWithCard('pm_card_authenticationRequiredChargeDeclinedInsufficientFunds');
    const intent = await stripe.paymentIntents.create({
      ...CARD_ONLY,
      amount: 1500,
      currency: 'usd',
      customer: customer.id,
      payment_method: pm.id,
      confirm: true,
      return_url: 'https://holdfast.test/back',
    });
    assert.equal(intent.status, 'requires_action');
    const back = await fetch(`${intent.next_action?.redirect_to_url?.url}?outcome=complete`, { method: 'POST', redirect: 'manual' });
    assert.equal(new URL(String(back.headers.get('location'))).searchParams.get('redirect_status'), 'failed');
    const after = await stripe.paymentIntents.retrieve(intent.id);
    assert.deepEqual([after.status, after.last_payment_error?.decline_code], ['requires_payment_method', 'insufficient_funds']);
  });

  describe('disputes', () => {
    async function captured(amount = 1000) {
      const { customer, pm } = await customerWithCard('pm_card_visa');
      return stripe.paymentIntents.create({
        ...CARD_ONLY,
        amount,
        currency: 'usd',
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        off_session: true,
      });
    }

    it('opens a dispute on a charge (created, then funds_withdrawn), stages and submits evidence, and wins it back (closed, funds_reinstated)', async () => {
      const intent = await captured(1000);
      const dp = fake.openDispute(intent.id, { reason: 'product_not_received' });
      const created = await fake.waitForEvent('charge.dispute.created', (e) => e.data.object.id === dp.id);
      assert.deepEqual([created.data.object.status, created.data.object.balance_transactions.length], ['needs_response', 0]);
      const withdrawn = await fake.waitForEvent('charge.dispute.funds_withdrawn', (e) => e.data.object.id === dp.id);
      assert.deepEqual(
        withdrawn.data.object.balance_transactions.map((t: any) => [t.amount, t.fee, t.reporting_category]),
        [[-1000, 1500, 'dispute']],
      );
      const dispute = await stripe.disputes.retrieve(dp.id);
      assert.deepEqual(
        [dispute.amount, dispute.charge, dispute.payment_intent, dispute.reason, dispute.status],
        [1000, intent.latest_charge, intent.id, 'product_not_received', 'needs_response'],
      );
      assert.equal((await stripe.charges.retrieve(String(intent.latest_charge))).disputed, true);

      const staged = await stripe.disputes.update(dp.id, { evidence: { product_description: 'gems' }, submit: false });
      assert.deepEqual(
        [staged.status, staged.evidence.product_description, staged.evidence_details.has_evidence],
        ['needs_response', 'gems', true],
      );
      const unknown = await cardError(stripe.disputes.update(dp.id, { evidence: { receipt_text: 'x' } as any, submit: false }));
      assert.equal(unknown.statusCode, 400);
      const submitted = await stripe.disputes.update(dp.id, { evidence: { product_description: '' }, submit: true });
      assert.deepEqual(
        [submitted.status, submitted.evidence.product_description, submitted.evidence_details.submission_count],
        ['under_review', null, 1],
      );
      await fake.waitForEvent('charge.dispute.updated', (e) => e.data.object.id === dp.id && e.data.object.status === 'under_review');
      const late = await cardError(stripe.disputes.update(dp.id, { evidence: { product_description: 'more' } }));
      assert.equal(late.code, 'charge_dispute_submitted');

      fake.closeDispute(dp.id, 'won');
      const closed = await fake.waitForEvent('charge.dispute.closed', (e) => e.data.object.id === dp.id);
      assert.equal(closed.data.object.status, 'won');
      const back = await fake.waitForEvent('charge.dispute.funds_reinstated', (e) => e.data.object.id === dp.id);
      assert.deepEqual(
        back.data.object.balance_transactions.map((t: any) => t.amount),
        [-1000, 1000],
      );
      assert.ok(fake.events.indexOf(closed) < fake.events.indexOf(back));
      const after = await cardError(stripe.disputes.update(dp.id, { metadata: { a: 'b' } }));
      assert.equal(after.code, 'charge_dispute_closed');
    });

    it('an inquiry withdraws nothing and closes warning_closed; accepting a dispute (close) loses it', async () => {
      const inquiry = fake.openDispute((await captured(500)).id, { inquiry: true });
      assert.equal(inquiry.status, 'warning_needs_response');
      fake.closeDispute(inquiry.id, 'warning_closed');
      assert.equal(fake.events.filter((e) => e.data.object.id === inquiry.id && e.type === 'charge.dispute.funds_withdrawn').length, 0);
      const dp = fake.openDispute((await captured(700)).id);
      const accepted = await stripe.disputes.close(dp.id);
      assert.equal(accepted.status, 'lost');
      await fake.waitForEvent('charge.dispute.closed', (e) => e.data.object.id === dp.id);
    });
  });

  describe('identity', () => {
    async function session() {
      const vs = await stripe.identity.verificationSessions.create({
        type: 'document',
        metadata: { account: 'acc_7' },
        return_url: 'https://holdfast.test/kyc/done',
      });
      assert.equal(vs.status, 'requires_input');
      assert.ok(vs.url?.startsWith(`${fake.url}/identity/${vs.id}`));
      return vs;
    }

    it('moves a session to processing then verified, each with its event', async () => {
      const vs = await session();
      assert.match(await (await fetch(String(vs.url))).text(), /Submit a valid document/);
      const page = await fetch(`${vs.url}?outcome=verified`, { method: 'POST', redirect: 'manual' });
      await fake.waitForEvent('identity.verification_session.processing', (e) => e.data.object.id === vs.id);
      assert.equal(page.status, 303);
      assert.equal(page.headers.get('location'), 'https://holdfast.test/kyc/done');
      const done = await stripe.identity.verificationSessions.retrieve(vs.id);
      assert.equal(done.status, 'verified');
      assert.deepEqual(done.metadata, { account: 'acc_7' });
      await fake.waitForEvent('identity.verification_session.verified', (e) => e.data.object.id === vs.id);
    });

    it('needs input again with a last_error', async () => {
      const vs = await session();
      fake.settleVerification(vs.id, 'requires_input', 'document_expired');
      const ev = await fake.waitForEvent('identity.verification_session.requires_input', (e) => e.data.object.id === vs.id);
      assert.equal(ev.data.object.last_error.code, 'document_expired');
      assert.equal((await stripe.identity.verificationSessions.retrieve(vs.id)).last_error?.code, 'document_expired');
    });

    it('is canceled through the API, and a verified session cannot be', async () => {
      const vs = await session();
      const canceled = await stripe.identity.verificationSessions.cancel(vs.id);
      assert.equal(canceled.status, 'canceled');
      await fake.waitForEvent('identity.verification_session.canceled', (e) => e.data.object.id === vs.id);
      const other = await session();
      fake.settleVerification(other.id, 'verified');
      const e = await cardError(stripe.identity.verificationSessions.cancel(other.id));
      assert.equal(e.statusCode, 400);
    });
  });

  describe('webhooks', () => {
    it('signs deliveries so constructEvent verifies them, and a forged one is refused', async () => {
      const { customer } = await customerWithCard('pm_card_visa');
      await receiver.until((got) => got.some((r) => r.json?.type === 'customer.created' && r.json.data.object.id === customer.id));
      const delivery = receiver.received.find((r) => r.json?.type === 'customer.created' && r.json.data.object.id === customer.id)!;
      const event = verified(stripe, delivery);
      assert.equal(event.object, 'event');
      assert.match(event.id, /^evt_/);
      assert.equal(event.livemode, false);
      assert.equal(event.api_version, Stripe.API_VERSION);
      const before = receiver.received.length;
      const [forged] = await fake.sendForged({ type: 'payment_intent.succeeded', object: { id: 'pi_forged', object: 'payment_intent' } });
      assert.equal(forged.forged, true);
      const request = receiver.received.slice(before).find((r) => r.json?.data?.object?.id === 'pi_forged')!;
      assert.throws(() => verified(stripe, request), Stripe.errors.StripeSignatureVerificationError);
      await fake.sendForged(event as any, 'tampered-body');
      const tampered = receiver.received.find((r) => r.json?.id === event.id && r.body.includes('"livemode": true'))!;
      assert.throws(() => verified(stripe, tampered), Stripe.errors.StripeSignatureVerificationError);
      await fake.sendForged(event as any, 'stale-timestamp');
      const stale = receiver.received.filter((r) => r.json?.id === event.id).at(-1)!;
      assert.throws(() => verified(stripe, stale), Stripe.errors.StripeSignatureVerificationError);
    });

    it('redelivers an event (a duplicate) and releases held events out of order', async () => {
      fake.holdEvents();
      const a = await stripe.customers.create({ email: 'a@example.test' });
      const b = await stripe.customers.create({ email: 'b@example.test' });
      const held = fake.events.filter((e) => [a.id, b.id].includes(e.data.object.id));
      assert.equal(held.length, 2);
      await fake.eventsDelivered();
      assert.ok(!receiver.received.some((r) => r.json?.data?.object?.id === a.id), 'held events are not sent');
      fake.releaseEvents('reversed');
      await fake.eventsDelivered();
      const order = receiver.received.filter((r) => [a.id, b.id].includes(r.json?.data?.object?.id)).map((r) => r.json.data.object.id);
      assert.deepEqual(order, [b.id, a.id]);
      fake.redeliver(held[0].id);
      await fake.eventsDelivered();
      const copies = receiver.received.filter((r) => r.json?.id === held[0].id);
      assert.equal(copies.length, 2);
      assert.equal(verified(stripe, copies[1]).id, held[0].id);
    });

    it('retries a delivery the endpoint refused', async () => {
      const flaky = await startReceiver();
      flaky.respond = (_r, n) => (n === 0 ? 503 : 200);
      const remove = fake.addWebhookEndpoint({ url: flaky.url, secret: WEBHOOK_SECRET, enabledEvents: ['customer.created'] });
      try {
        const c = await stripe.customers.create({ email: 'retry@example.test' });
        await flaky.until((got) => got.filter((r) => r.json?.data?.object?.id === c.id).length === 2);
        await fake.eventsDelivered();
        assert.deepEqual(
          fake.deliveries.filter((d) => d.url === flaky.url).map((d) => [d.attempt, d.status]),
          [
            [1, 503],
            [2, 200],
          ],
        );
      } finally {
        remove();
        await flaky.close();
      }
    });
  });

  describe('faults', () => {
    afterEach(() => fake.clearFault());

    it('answers 500 during a fault window, then works again', async () => {
      fake.fault('error', { forMs: 300 });
      const e = await cardError(stripe.customers.create({}));
      assert.equal(e.statusCode, 500);
      assert.equal(e.type, 'StripeAPIError');
      await new Promise((r) => setTimeout(r, 350));
      assert.match((await stripe.customers.create({})).id, /^cus_/);
    });

    it('can fail one endpoint only, and answer 429 as Stripe’s rate limit', async () => {
      fake.fault('error', { status: 429, requests: 1, path: '/v1/refunds' });
      const customer = await stripe.customers.create({});
      assert.match(customer.id, /^cus_/, 'other endpoints answer');
      const e = await cardError(stripe.refunds.create({ payment_intent: 'pi_any' }));
      assert.equal(e.type, 'StripeRateLimitError');
      assert.equal(e.code, 'rate_limit');
    });

    it('hangs past the client’s timeout without doing anything', async () => {
      const impatient = client(fake, { timeout: 200 });
      fake.fault('hang', { requests: 1 });
      const before = fake.api.customers.size;
      const e = await cardError(impatient.customers.create({ email: 'slow@example.test' }));
      assert.equal(e.type, 'StripeConnectionError');
      assert.equal(fake.api.customers.size, before);
    });

    it('refuses connections for a while; the package’s retries outlast it', async () => {
      fake.fault('refuse', { forMs: 400 });
      const e = await cardError(stripe.customers.create({}));
      assert.equal(e.type, 'StripeConnectionError');
      const patient = client(fake, { maxNetworkRetries: 5 });
      const started = Date.now();
      const customer = await patient.customers.create({ email: 'patient@example.test' });
      assert.match(customer.id, /^cus_/);
      assert.ok(Date.now() - started >= 100);
    });

    it('loses the answer of a charge it made; the package retries with the same key and gets the replay (charged once)', async () => {
      const { customer, pm } = await customerWithCard('pm_card_visa');
      const params = {
        ...CARD_ONLY,
        amount: 4200,
        currency: 'usd',
        customer: customer.id,
        payment_method: pm.id,
        confirm: true,
        off_session: true,
      };
      fake.fault('lose-response', { requests: 1 });
      // A dropped connection is retried once by the package even with retries off, under the same key.
      const intent = await stripe.paymentIntents.create(params, { idempotencyKey: 'cmd-99-charge' });
      assert.equal(intent.status, 'succeeded');
      const tries = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.idempotencyKey === 'cmd-99-charge');
      assert.deepEqual(
        tries.map((r) => [r.fault, r.replayed]),
        [
          ['lose-response', false],
          [undefined, true],
        ],
      );
      assert.equal(fake.events.filter((e) => e.type === 'charge.succeeded' && e.data.object.payment_intent === intent.id).length, 1);
    });
  });

  it('runs its browser library: typed test card → createPaymentMethod → confirmCardPayment → 3-D Secure page → return_url', async () => {
    // A minimal DOM (this machine has no Chromium): enough for the card element's inputs.
    const node = () => {
      const el: any = { value: '', attributes: {}, children: [] as any[], listeners: {} as Record<string, (() => void)[]> };
      el.setAttribute = (k: string, v: string) => {
        el.attributes[k] = v;
      };
      el.addEventListener = (t: string, fn: () => void) => {
        el.listeners[t] = [...(el.listeners[t] ?? []), fn];
      };
      el.appendChild = (child: any) => {
        el.children.push(child);
        child.parentNode = el;
      };
      el.removeChild = (child: any) => el.children.splice(el.children.indexOf(child), 1);
      return el;
    };
    const mountPoint = node();
    const assigned: string[] = [];
    const window: any = { location: { href: 'https://shop.test/pay', assign: (url: string) => assigned.push(url) } };
    const context = vm.createContext({
      window,
      fetch,
      document: { createElement: node, querySelector: (sel: string) => (sel === '#card' ? mountPoint : null) },
    });
    vm.runInContext(await (await fetch(fake.jsUrl)).text(), context);
    const stripeJs = window.Stripe(fake.publishableKey);
    const card = stripeJs.elements().create('card');
    card.mount('#card');
    const input = (name: string) => mountPoint.children[0].children.find((c: any) => c.attributes['data-stripe-fake'] === name);
    input('number').value = '4000 0027 6000 3184';
    input('expiry').value = '12 / 31';
    input('cvc').value = '123';
    const made = await stripeJs.createPaymentMethod({ type: 'card', card });
    assert.equal(made.error, undefined);
    assert.equal(made.paymentMethod.card.last4, '3184');
    const customer = await stripe.customers.create({});
    await stripe.paymentMethods.attach(made.paymentMethod.id, { customer: customer.id });
    const intent = await stripe.paymentIntents.create({ amount: 3000, currency: 'usd', customer: customer.id });
    const pending = stripeJs.confirmCardPayment(intent.client_secret, {
      payment_method: made.paymentMethod.id,
      return_url: 'https://holdfast.test/pay/return',
    });
    const deadline = Date.now() + 5000;
    while (assigned.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    void pending;
    assert.equal(assigned.length, 1, 'the page is sent to the 3-D Secure page');
    const back = await fetch(`${assigned[0]}?outcome=complete`, { method: 'POST', redirect: 'manual' });
    assert.equal(new URL(String(back.headers.get('location'))).searchParams.get('redirect_status'), 'succeeded');
    const { paymentIntent } = await stripeJs.retrievePaymentIntent(intent.client_secret);
    assert.equal(paymentIntent.status, 'succeeded');
    const wrong = await stripeJs.retrievePaymentIntent(`${intent.id}_secret_wrong`);
    assert.equal(wrong.error.code, 'resource_missing', 'the publishable key needs the client secret');
    input('number').value = '4000 0000 0000 0002';
    const declinedPm = (await stripeJs.createPaymentMethod({ type: 'card', card })).paymentMethod;
    const other = await stripe.paymentIntents.create({ amount: 3000, currency: 'usd' });
    const refused = await stripeJs.confirmCardPayment(other.client_secret, { payment_method: declinedPm.id });
    assert.equal(refused.error.decline_code, 'generic_decline');
    input('number').value = '1234 5678 9012 3456';
    assert.equal((await stripeJs.createPaymentMethod({ type: 'card', card })).error.code, 'incorrect_number');
  });

  it('serves a browser library that creates a PaymentMethod from a typed test card number', async () => {
    const js = await (await fetch(fake.jsUrl)).text();
    assert.match(js, /window\.Stripe = Stripe/);
    // What the library posts: the typed number with the publishable key.
    const res = await fetch(`${fake.url}/v1/payment_methods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.publishableKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'type=card&card[number]=4000002760003184&card[exp_month]=12&card[exp_year]=2031&card[cvc]=123',
    });
    assert.equal(res.status, 200);
    const pm = (await res.json()) as Stripe.PaymentMethod;
    assert.equal(pm.card?.last4, '3184');
    const customer = await stripe.customers.create({});
    const attached = await stripe.paymentMethods.attach(pm.id, { customer: customer.id });
    const e = await cardError(
      stripe.paymentIntents.create({
        ...CARD_ONLY,
        amount: 500,
        currency: 'usd',
        customer: customer.id,
        payment_method: attached.id,
        confirm: true,
        off_session: true,
      }),
    );
    assert.equal(e.code, 'authentication_required');
    const server = await fetch(`${fake.url}/v1/payment_methods`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.secretKey}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'type=card&card[number]=4242424242424242',
    });
    assert.equal(server.status, 400, 'raw card numbers are refused from a server');
  });
});
