/**
 * The escrow, refund and payouts walk-throughs on the real adapters, as pasted from docs/stripe.md
 * ("The walk-throughs on Stripe"): `npm start` runs as a process of its own with
 * CARD_PROCESSOR=stripe and PAYOUT_RAIL=paypal, pointed at the Stripe and PayPal fakes (whose
 * webhooks reach its /hooks/stripe and /hooks/paypal), on a new database; each block runs in bash
 * with its demo client and the same variables (the `holdfast` command in the blocks reads them
 * too: `payouts approve` calls PayPal itself).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { type PaypalFake, startPaypalFake } from '../support/fakes/paypal/paypal-fake.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { dropDatabase, h, scratchDatabase, withDatabase } from '../support/harness.js';
import { removeFolders, type Started, startHoldfast, until } from '../support/holdfast-process.js';
import { freePort, runBlock } from '../support/walkthroughs.js';

const STRIPE_DOC = 'docs/stripe.md';
const WEBHOOK_SECRET = 'whsec_stripeWalkthroughs0123456789';

describe('the walk-throughs on Stripe and PayPal (docs/stripe.md), through the fakes', function () {
  this.timeout(120_000);
  const database = scratchDatabase('stripe_walk');
  let stripe: StripeFake;
  let paypal: PaypalFake;
  let holdfast: Started;
  let base: string;
  let env: Record<string, string>;
  let demoFile: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stripe = await startStripeFake({
      webhooks: [{ url: `${base}/hooks/stripe`, secret: WEBHOOK_SECRET }],
      webhookRetry: { attempts: 8, delayMs: 250 },
    });
    paypal = await startPaypalFake({ webhookUrl: `${base}/hooks/paypal`, settleAfterMs: 100, deliveryRetries: 10, deliveryRetryMs: 300 });
    env = {
      APP_ENV: 'staging',
      DATABASE_URL: withDatabase(h().databaseUrl, database),
      REDIS_URL: h().redisUrl,
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_API_BASE: stripe.url,
      STRIPE_JS_URL: stripe.jsUrl,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYOUT_RAIL: 'paypal',
      PAYPAL_CLIENT_ID: paypal.clientId,
      PAYPAL_CLIENT_SECRET: paypal.clientSecret,
      PAYPAL_WEBHOOK_ID: paypal.webhookId,
      PAYPAL_API_BASE: paypal.url,
    };
    holdfast = startHoldfast({ ...env, PORT: String(port), PUBLIC_URL: base, ROLE: 'all' }, 600_000);
    await Promise.race([
      until('the banner', () => (holdfast.stdout().includes('Holdfast is up') ? true : undefined), 90_000),
      holdfast.exited.then((code) => {
        throw new Error(`Holdfast exited (${code}) before its banner: ${holdfast.stderr()}`);
      }),
    ]);
    assert.match(holdfast.stdout(), /^ {2}Money rails {4}cards stripe, identity sandbox, payouts paypal$/m);
    // The demo client `npm start` made in its folder, as the blocks read it.
    demoFile = path.join(holdfast.cwd, '.data', 'demo-client.json');
  });

  after(async () => {
    await holdfast?.stop();
    await stripe?.stop();
    await paypal?.stop();
    removeFolders();
    await dropDatabase(database);
  });

  const run = (title: string) => runBlock(title, demoFile, { file: STRIPE_DOC, baseUrl: base, env, limitMs: 110_000 });

  it('the escrow walk-through: pay and commit with pm_card_visa; pay and cancel (a Stripe Refund); Stripe’s events in', async () => {
    const before = stripe.requestsTo('POST', '/v1/payment_intents').length;
    const result = await run('Escrow on Stripe');
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, 7), ['ESCROWED', 'COMMITTED', '1200', 'ESCROWED', 'CANCELLED', 'ESCROW_STATE_ERROR', 'USD 15.50']);
    // Stripe's events were stored and acted on (the API answers had settled both escrows already).
    assert.match(lines[7], /^payment_intent\.succeeded: (ignored|applied)$/);
    assert.match(lines[8], /^charge\.refunded: (ignored|applied)$/);
    assert.equal(lines.length, 10, result.stdout);
    assert.match(lines[9], /^ledger ok/);
    // At Stripe: two PaymentIntents, the first captured, the second captured and refunded in full.
    const created = stripe.requestsTo('POST', '/v1/payment_intents').slice(before);
    assert.equal(created.filter((r) => r.path === '/v1/payment_intents').length, 2);
    assert.ok(stripe.requestsTo('POST', '/v1/refunds').some((r) => r.body.amount === '1550' || r.body.amount === 1550));
  });

  it('the refunds walk-through: a line-item refund and a full refund, each a Stripe Refund, paid from the integrator’s wallet', async () => {
    const before = stripe.requestsTo('POST', '/v1/refunds').length;
    const result = await run('Refunds on Stripe');
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -2), [
      '5000',
      'SUCCESS',
      'REFUND-SUCCESS',
      '500',
      '1500',
      '1500',
      'NOTHING_TO_REFUND',
      'true',
      '2000',
      'the sword',
      'null',
      'succeeded',
      '2000',
      '1000',
      'refund-completed of the invoice: USD 500 back, 0 failed',
      'refund-completed of the invoice: USD 1500 back, 0 failed',
      'deleted',
    ]);
    assert.match(lines.at(-2) ?? '', /^refund\.created: (ignored|applied)$/);
    assert.match(lines.at(-1) ?? '', /^ledger ok/);
    // Two Refunds at Stripe: USD 5.00, then the USD 15.00 left of the charge.
    assert.deepEqual(
      stripe
        .requestsTo('POST', '/v1/refunds')
        .slice(before)
        .filter((r) => r.status === 200 && !r.replayed)
        .map((r) => Number(r.body.amount)),
      [500, 1500],
    );
  });

  it('the payouts walk-through: escrow paid with pm_card_visa, payout approved to PayPal (PROCESSING), settled by its webhook', async () => {
    const result = await run('Payouts on Stripe and PayPal');
    assert.equal(result.status, 0, result.stderr);
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.slice(0, -1), [
      'ESCROWED',
      'COMMITTED',
      '1200',
      'NODATA',
      'ACCEPT',
      'FULL',
      'FUNDS-IN-ESCROW',
      '200',
      // PayPal took it: no longer reversible
      'PROCESSING',
      '409',
      // PayPal's webhook settled it
      'SUCCESS',
      'PAYMENT.PAYOUTS-ITEM.SUCCEEDED: applied',
      'kyc-webhook: ACCEPT',
      'payout-complete: FUNDS-IN-ESCROW USD 1000',
      'payout-complete: PROCESSING USD 1000',
      'payout-complete: SUCCESS USD 1000',
      '1',
      'deleted',
    ]);
    assert.match(lines.at(-1) ?? '', /^ledger ok/);
    assert.ok(paypal.deliveries.some((d) => d.eventType === 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' && d.status === 200));
  });
});
