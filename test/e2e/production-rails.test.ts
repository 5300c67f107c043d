/**
 * Production on the real rails, as `npm start` runs it: a Holdfast process with APP_ENV=production
 * and CARD_PROCESSOR=stripe, IDENTITY_VERIFIER=stripe, PAYOUT_RAIL=paypal, pointed at the Stripe
 * and PayPal fakes over HTTPS (a certificate made for the run, trusted through
 * NODE_EXTRA_CA_CERTS, as production's `https://` API bases require) with a live-looking key. It
 * starts on a new database (recorded production), names the real rails in its banner, has no
 * demo client and no sandbox funding, refuses a raw card number, and carries one escrow paid by a
 * Stripe PaymentMethod and committed, a Stripe Identity check, and a PayPal payout end to end —
 * the fakes' webhooks reaching its /hooks/stripe and /hooks/paypal.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Agent } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import pg from 'pg';
import Stripe from 'stripe';
import { type PaypalFake, startPaypalFake } from '../support/fakes/paypal/paypal-fake.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { fakeTls } from '../support/fakes/tls.js';
import { call, dropDatabase, h, holdfastCli, scratchDatabase, unique, withDatabase } from '../support/harness.js';
import { removeFolders, type Started, startHoldfast, until } from '../support/holdfast-process.js';

const LIVE_KEY = `sk_live_holdfastFake${unique().replace(/\W/g, '')}`;
const WEBHOOK_SECRET = 'whsec_productionRailsFake0123456789';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      })
      .on('error', reject);
  });
}

describe('production on the real rails (APP_ENV=production, Stripe and PayPal fakes over HTTPS)', function () {
  this.timeout(180_000);
  const database = scratchDatabase('prod_rails');
  const databaseUrl = () => withDatabase(h().databaseUrl, database);
  let stripe: StripeFake;
  let paypal: PaypalFake;
  let holdfast: Started;
  let base: string;
  let env: Record<string, string>;
  let token: string;
  let integrator: string;

  before(async () => {
    const tls = fakeTls();
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    stripe = await startStripeFake({
      tls,
      secretKey: LIVE_KEY,
      publishableKey: 'pk_live_holdfastFake',
      webhooks: [{ url: `${base}/hooks/stripe`, secret: WEBHOOK_SECRET }],
      // The process may still be starting when the first event is sent.
      webhookRetry: { attempts: 8, delayMs: 250 },
    });
    paypal = await startPaypalFake({
      tls,
      webhookUrl: `${base}/hooks/paypal`,
      settleAfterMs: 100,
      deliveryRetries: 10,
      deliveryRetryMs: 300,
    });
    assert.match(stripe.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(paypal.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    env = {
      APP_ENV: 'production',
      DATABASE_URL: databaseUrl(),
      REDIS_URL: h().redisUrl,
      CARD_PROCESSOR: 'stripe',
      IDENTITY_VERIFIER: 'stripe',
      PAYOUT_RAIL: 'paypal',
      STRIPE_SECRET_KEY: LIVE_KEY,
      STRIPE_API_BASE: stripe.url,
      STRIPE_JS_URL: stripe.jsUrl,
      STRIPE_PUBLISHABLE_KEY: 'pk_live_holdfastproductiontest',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PAYPAL_CLIENT_ID: paypal.clientId,
      PAYPAL_CLIENT_SECRET: paypal.clientSecret,
      PAYPAL_WEBHOOK_ID: paypal.webhookId,
      PAYPAL_API_BASE: paypal.url,
      // The fakes' certificate, trusted by the spawned processes only: Holdfast itself has no option to skip the check.
      NODE_EXTRA_CA_CERTS: tls.certFile,
    };
    holdfast = startHoldfast({ ...env, PORT: String(port), PUBLIC_URL: base, ROLE: 'all' }, 170_000);
    await Promise.race([
      until('the banner', () => (holdfast.stdout().includes('Holdfast is up') ? true : undefined), 90_000),
      holdfast.exited.then((code) => {
        throw new Error(`Holdfast exited (${code}) before its banner: ${holdfast.stderr()}`);
      }),
    ]);
  });

  after(async () => {
    const code = await holdfast?.stop();
    await stripe?.stop();
    await paypal?.stop();
    removeFolders();
    await dropDatabase(database);
    assert.equal(code, 0, `a clean stop: ${holdfast?.stderr()}`);
  });

  /** The `holdfast` command with the process's variables (the CLI reads the rails and the database's environment too). */
  const cli = (args: string[]) => holdfastCli(args, env);

  const api = (method: string, p: string, body?: unknown, opts: { token?: string; headers?: Record<string, string> } = {}) =>
    call(method, p, { token: opts.token ?? token, baseUrl: base, headers: opts.headers, ...(body === undefined ? {} : { body }) });

  const sql = async <T>(text: string, params: unknown[] = []): Promise<T[]> => {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      return (await client.query(text, params)).rows as T[];
    } finally {
      await client.end();
    }
  };

  async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('the fakes speak HTTPS with a certificate a client must be told to trust (the `stripe` package: an https.Agent with `ca`)', async () => {
    const untrusting = new Stripe(LIVE_KEY, { ...stripe.clientOptions(), maxNetworkRetries: 0, telemetry: false });
    await assert.rejects(untrusting.customers.create({ email: 'nobody@example.com' }), (err: Error & { detail?: { code?: string } }) => {
      assert.equal(err.constructor.name, 'StripeConnectionError');
      assert.equal(err.detail?.code, 'DEPTH_ZERO_SELF_SIGNED_CERT');
      return true;
    });
    const trusting = new Stripe(LIVE_KEY, {
      ...stripe.clientOptions(),
      httpAgent: new Agent({ ca: fakeTls().cert }),
      maxNetworkRetries: 0,
      telemetry: false,
    });
    const customer = await trusting.customers.create({ email: 'somebody@example.com' });
    assert.match(customer.id, /^cus_/);
  });

  it('refuses to start when any one rail is on its sandbox adapter, the others real (APP_ENV or NODE_ENV), naming that variable', async () => {
    for (const [variable, production] of [
      ['CARD_PROCESSOR', { APP_ENV: 'production' }],
      ['IDENTITY_VERIFIER', { APP_ENV: '', NODE_ENV: 'production' }],
      ['PAYOUT_RAIL', { APP_ENV: 'production' }],
    ] as const) {
      const run = startHoldfast({ ...env, ...production, [variable]: 'sandbox', PORT: String(await freePort()), ROLE: 'all' });
      assert.equal(await run.exited, 1, run.stdout());
      assert.match(
        run.stderr(),
        new RegExp(`^holdfast: production \\([^)]+\\) refuses the sandbox money rails: set ${variable} to a real adapter`),
      );
      assert.equal(run.stdout(), '', 'no banner');
    }
  });

  it('starts: the banner says production and why, names the real rails, and prints no demo client', () => {
    const banner = holdfast.stdout();
    assert.match(banner, /^Holdfast is up \(ROLE=all, production: APP_ENV=production\)$/m);
    assert.match(banner, /^ {2}Money rails {4}cards stripe, identity stripe, payouts paypal$/m);
    assert.doesNotMatch(banner, /Demo|CLIENT_SECRET|sandbox/);
    assert.ok(!existsSync(path.join(holdfast.cwd, '.data', 'demo-client.json')), 'no demo client file');
    assert.ok(!banner.includes(LIVE_KEY) && !holdfast.stderr().includes(LIVE_KEY), 'the key is never printed');
  });

  it('recorded the new database as production; it holds no demo client and no sandbox funding, and the CLI funds nothing', async () => {
    assert.deepEqual(await sql('select name from environment'), [{ name: 'production' }]);
    assert.deepEqual(await sql('select id from client'), []);
    const created = await cli(['client', 'create', '--integrator', unique('shop-'), '--tos-signing', '--json']);
    assert.equal(created.status, 0, created.stderr);
    const client = JSON.parse(created.stdout);
    integrator = client.integrator;
    const fund = await cli(['integrator', 'fund', integrator, '--currency', 'USD', '--amount', '5000', '--reason', 'test']);
    assert.equal(fund.status, 1, fund.stderr);
    assert.equal(fund.stderr, 'holdfast: integrator fund is for staging only: this is a production database\n');
    assert.deepEqual(await sql(`select id from ledger_account where kind = 'sandbox_funding'`), []);
    assert.equal((await fetch(`${base}/ui/demo`)).status, 404, 'no demo shop');
    const res = await call('POST', '/token', {
      baseUrl: base,
      rawBody: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.client_id,
        client_secret: client.client_secret,
      }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 200, res.text);
    token = res.body.access_token;
  });

  it('refuses a raw card number (400 naming card.number), adds a card from a Stripe PaymentMethod, escrows, commits; then pays out through PayPal', async () => {
    const n = unique();
    const reg = async (name: string) => {
      const res = await api('POST', '/register', { username: `${name}-${n}`, email: { address: `${name}-${n}@example.com` } });
      assert.equal(res.status, 200, res.text);
      return res.body.payload.account_id as string;
    };
    const buyer = await reg('buyer');
    const seller = await reg('seller');

    // Card data never reaches Holdfast in production.
    const raw = await api('POST', `/v1/${buyer}/payment_methods`, {
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
    });
    assert.equal(raw.status, 400, raw.text);
    assert.deepEqual(raw.body.payload.errors, { 'card.number': ['NOT_ALLOWED'] });
    const added = await api('POST', `/v1/${buyer}/payment_methods`, { type: 'card', card: { stripe_payment_method: 'pm_card_visa' } });
    assert.equal(added.status, 201, added.text);
    const card = added.body.payload.id as string;
    assert.match(added.body.payload.psp_reference, /^pm_/);

    const methods = (await api('GET', `/v1/${seller}/payment_methods`)).body.payload;
    const sellerUsd = methods[0];
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
          recipients: [{ amount: 1200, currency: 'USD', destination_wallet_id: sellerUsd.provider_data.wallet_id }],
        },
      ],
    });
    assert.equal(escrow.status, 201, escrow.text);
    const escrowId = escrow.body.payload.id as string;
    const paid = await api('POST', `/v2/escrow/${escrowId}/pay`, undefined, { headers: { 'idempotency-key': `pay-${escrowId}` } });
    assert.equal(paid.body.payload?.status, 'ESCROWED', paid.text);
    const committed = await api('POST', `/v2/escrow/${escrowId}/commit`, undefined, {
      headers: { 'idempotency-key': `commit-${escrowId}` },
    });
    assert.equal(committed.body.payload?.status, 'COMMITTED', committed.text);
    assert.equal((await api('GET', `/v1/${seller}/payment_methods`)).body.payload[0].wallet_balance, '1200');

    // At Stripe: one PaymentIntent of USD 15.50, authorized then captured, with a live key over TLS.
    const intents = [...stripe.api.paymentIntents.values()].filter((pi) => pi.amount === 1550 && pi.metadata?.holdfast_command_id);
    assert.equal(intents.length, 1);
    assert.equal(intents[0].status, 'succeeded');
    assert.ok(stripe.requests.every((r) => r.status === undefined || r.status < 500));
    // Its webhooks reached /hooks/stripe, verified and stored once each.
    const captured = await stripe.waitForEvent('payment_intent.succeeded', (e) => e.data.object.id === intents[0].id);
    await stripe.eventsDelivered();
    assert.ok(stripe.deliveries.some((d) => d.eventId === captured.id && d.status === 200));
    await waitFor('the stored Stripe event', async () =>
      (await sql('select 1 from provider_event where provider = $1 and provider_event_id = $2', ['stripe', captured.id])).length
        ? true
        : undefined,
    );

    // KYC through Stripe Identity: the seller starts a session; the verified outcome arrives by webhook.
    const authorized = await api('POST', '/authorize/user', { account_id: seller, return_token: true });
    assert.equal(authorized.status, 200, authorized.text);
    const userToken = authorized.body.payload.token.access_token as string;
    const kyc = await api(
      'POST',
      `/v1/kyc/${seller}`,
      { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-12-10', address: '1 Analytical Row, London', country: 'GB' },
      { token: userToken },
    );
    assert.equal(kyc.status, 200, kyc.text);
    assert.equal(kyc.body.payload.state, 'PROCESSING');
    const session = [...stripe.api.verificationSessions.values()].find((s) => s.metadata?.kyc_id === kyc.body.payload.kyc_id);
    assert.ok(session, 'a VerificationSession at Stripe');
    assert.ok(String(kyc.body.payload.verification_url).startsWith(stripe.url));
    stripe.settleVerification(session.id, 'processing');
    stripe.settleVerification(session.id, 'verified');
    await waitFor('KYC ACCEPT', async () => {
      const state = (await api('GET', `/v1/kyc/${seller}`)).body.payload?.state;
      return state === 'ACCEPT' ? state : undefined;
    });

    // A payout of USD 10.00 to PayPal: approved by the operator, PROCESSING at PayPal, SUCCESS by its webhook.
    const destination = await api('POST', `/v1/${seller}/payment_methods`, {
      type: 'paypal',
      paypal: { email: `seller-${n}@example.com` },
    });
    assert.equal(destination.status, 201, destination.text);
    const requested = await api(
      'POST',
      `/v2/${seller}/payout`,
      { source_payment_method_id: sellerUsd.id, destination_payment_method_id: destination.body.payload.id, amount: 1000, currency: 'USD' },
      { headers: { 'idempotency-key': `payout-${n}` } },
    );
    assert.equal(requested.body.payload?.payout_status, 'FUNDS-IN-ESCROW', requested.text);
    const payoutId = requested.body.payload.payout_status_id as string;
    const approved = await cli(['payouts', 'approve', payoutId, '--reason', 'checked', '--json']);
    assert.equal(approved.status, 0, approved.stderr);
    assert.equal(JSON.parse(approved.stdout).payout_status, 'PROCESSING');
    const settled = await waitFor('the payout SUCCESS', async () => {
      const status = (await api('GET', `/v2/${seller}/payout/${payoutId}`)).body.payload?.payout_status;
      return status === 'SUCCESS' ? status : undefined;
    });
    assert.equal(settled, 'SUCCESS');
    const item = paypal.itemOfSenderBatch(`${payoutId}-1`);
    assert.equal(item?.transaction_status, 'SUCCESS');
    assert.deepEqual(item?.payout_item.amount, { currency: 'USD', value: '10.00' });
    assert.ok(paypal.deliveries.some((d) => d.eventType === 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED' && d.status === 200));
    assert.equal((await api('GET', `/v1/${seller}/payment_methods`)).body.payload[0].wallet_balance, '200');

    // Every event either fake sent reached the process and was taken (2xx) at the first attempt.
    await stripe.eventsDelivered();
    assert.deepEqual(
      stripe.deliveries.filter((d) => d.status !== 200 || d.attempt !== 1).map((d) => `${d.type} ${d.attempt}: ${d.status ?? d.error}`),
      [],
    );
    assert.ok(stripe.deliveries.some((d) => d.type === 'identity.verification_session.verified'));
    assert.deepEqual(
      paypal.deliveries.filter((d) => d.status !== 200).map((d) => `${d.eventType}: ${d.status}`),
      [],
    );

    // Every charge and payout Holdfast recorded matches a stored provider object.
    const verify = await cli(['ledger', 'verify']);
    assert.equal(verify.status, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, /^ledger ok/m);
  });
});
