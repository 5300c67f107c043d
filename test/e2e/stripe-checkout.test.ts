/**
 * The hosted checkout under CARD_PROCESSOR=stripe, in Chromium: the card is collected by the
 * stand-in of Stripe's browser library the Stripe fake serves (never posted to Holdfast), and a
 * card that needs 3-D Secure takes the buyer to the fake's bank page and back; Stripe's webhooks
 * settle the invoice. Completing it pays the seller; failing it moves no money.
 */
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';
import { launchChromium } from '../support/browser.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, register, startExtraApp, unique, type TestClient } from '../support/harness.js';
import { balance, party, type Party } from '../support/money.js';

/** Stripe's test card that asks for 3-D Secure on every payment. */
const THREE_DS_CARD = '4000002760003184';

describe('hosted checkout with 3-D Secure in Chromium (CARD_PROCESSOR=stripe, Stripe.js stand-in)', function () {
  this.timeout(90_000);
  let fake: StripeFake;
  let app: { baseUrl: string; close(): Promise<void> };
  let workers: RunningWorkers;
  let bus: CommandBus;
  let browser: Browser;
  let client: TestClient;
  let seller: Party;
  const prefix = `{holdfast-3ds-e2e-${unique()}}`;
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
    browser = await launchChromium();
    client = await newClient();
    seller = await party(client);
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await workers?.close();
    await bus?.close();
    await fake?.stop();
  });

  /** A checkout link for a new buyer, on the app under test (PUBLIC_URL is not where it listens). */
  async function checkoutLink(): Promise<{ url: string; invoiceId: string; buyer: string }> {
    const buyer = await register(client);
    const res = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      baseUrl: app.baseUrl,
      body: {
        account_id: buyer.account_id,
        invoice_mechanism: 'widget',
        reference_type: 'order',
        reference_id: unique('o'),
        description: 'Winter cape',
        line_items: [
          {
            amount: 1250,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 1000, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
          },
        ],
      },
    });
    assert.equal(res.status, 200, res.text);
    const redirect = new URL(res.body.payload.redirect);
    return {
      url: `${app.baseUrl}${redirect.pathname}${redirect.search}`,
      invoiceId: res.body.payload.authorized_invoice_id,
      buyer: buyer.account_id,
    };
  }

  /** Opens the checkout, accepts the terms, adds the 3-D Secure card through the Stripe.js stand-in and pays; resolves on the bank's page. */
  async function payWithThreeDs(page: Page, link: string): Promise<void> {
    await page.goto(link);
    await page.click('[data-hf=accept-tos]');
    await page.waitForSelector('[data-hf=pay]');
    if (await page.isVisible('[data-hf=add-card]')) await page.click('[data-hf=add-card]');
    // Stripe's card element, not Holdfast's fields: the page has no card number input of its own.
    await page.waitForSelector('[data-hf=stripe-card] [data-stripe-fake=number]');
    assert.equal(await page.locator('input[name=number]').count(), 0);
    await page.fill('[data-stripe-fake=number]', THREE_DS_CARD);
    await page.fill('[data-stripe-fake=expiry]', '12 / 34');
    await page.fill('[data-stripe-fake=cvc]', '123');
    await page.click('[data-hf=save-card]');
    await page.waitForSelector('text=Visa •••• 3184');
    await page.click('[data-hf=pay]');
    await page.waitForURL((url) => url.href.startsWith(`${fake.url}/3ds/`));
  }

  /** Every request body the page sent to Holdfast, and the CSP violations it reported. */
  function watch(page: Page) {
    const sentToHoldfast: string[] = [];
    const violations: string[] = [];
    page.on('request', (req) => {
      if (req.url().startsWith(app.baseUrl)) sentToHoldfast.push(req.postData() ?? '');
    });
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    return { sentToHoldfast, violations };
  }

  const invoice = async (id: string) =>
    (await call('GET', `/v2/invoice/${id}`, { token: client.token, baseUrl: app.baseUrl })).body.payload;

  it('adds the card through Stripe.js, completes 3-D Secure at the bank and comes back paid', async () => {
    const link = await checkoutLink();
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const page = await browser.newPage();
    const seen = watch(page);
    const shell = await page.request.get(`${app.baseUrl}/ui/checkout?authorized_invoice_id=x`);
    const policy = shell.headers()['content-security-policy'];
    assert.match(policy, new RegExp(`script-src 'self' ${fake.url}`));
    assert.match(policy, new RegExp(`connect-src 'self' ${fake.url}`));
    assert.match(policy, new RegExp(`frame-src ${fake.url}`));
    await payWithThreeDs(page, link.url);
    assert.equal((await invoice(link.invoiceId)).state, 'PROCESSING');
    await page.click('[data-stripe-fake=complete]');
    await page.waitForSelector('text=Payment complete');
    assert.match(page.url(), /redirect_status=succeeded/);
    const paid = await invoice(link.invoiceId);
    assert.equal(paid.state, 'SUCCESS');
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), before + 1000);
    assert.ok(
      seen.sentToHoldfast.every((body) => !body.includes(THREE_DS_CARD)),
      'the card number never reached Holdfast',
    );
    assert.ok(seen.sentToHoldfast.some((body) => body.includes('"stripe_payment_method":"pm_')));
    assert.deepEqual(seen.violations, []);
    await fake.eventsDelivered();
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    await page.close();
  });

  it('fails 3-D Secure at the bank: the page says so, the invoice is not paid and no money moves', async () => {
    const link = await checkoutLink();
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const page = await browser.newPage();
    await payWithThreeDs(page, link.url);
    await page.click('[data-stripe-fake=fail]');
    await page.waitForSelector('text=The payment was not confirmed with your bank.').catch(async (err) => {
      // What the page showed and what Stripe's webhooks got back, to tell a slow machine from a lost event.
      const failed = fake.deliveries.filter((d) => d.status !== 200).map((d) => `${d.type} ${d.attempt} ${d.status ?? d.error}`);
      throw new Error(`${err.message}\npage: ${await page.textContent('main')}\nwebhooks not answered 200: ${failed.join('; ')}`);
    });
    const failed = await invoice(link.invoiceId);
    assert.deepEqual([failed.state, failed.failure_reason], ['FAILED', 'authentication_failed']);
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), before);
    const postings = await h()
      .orm.em.fork()
      .execute('select 1 from ledger_posting where reference like ?', [`invoice:${link.invoiceId}:%`]);
    assert.equal(postings.length, 0);
    await fake.eventsDelivered();
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    await page.close();
  });
});
