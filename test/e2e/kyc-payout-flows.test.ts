/**
 * The hosted KYC and payout flows in Chromium, through the widget on a stand-in shop: the KYC
 * form's submission and the sandbox verifier's outcome, its field messages, a second visit, an
 * operator's CANCEL until reopened, a provider session's way on; the payout flow adding and
 * choosing a PayPal destination.
 */
import assert from 'node:assert/strict';
import type { Browser, Frame, Page } from 'playwright-core';
import { decideKyc, reopenKyc } from '../../src/kyc/kyc.service.js';
import type { IdentityCheckRequest, IdentityCheckStart, IdentityVerifier } from '../../src/rails/identity-verifier.port.js';
import { call, h, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';
import { launchChromium, startShop } from '../support/browser.js';

/** The redirect the API answered, on the server under test (the harness's PUBLIC_URL is not where it listens). */
const onTestServer = (redirect: string) => {
  const url = new URL(redirect);
  return `${h().baseUrl}${url.pathname}${url.search}`;
};

describe('hosted KYC and payout flows in Chromium, through the widget', function () {
  this.timeout(60_000);
  let browser: Browser;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let client: TestClient;
  before(async () => {
    browser = await launchChromium();
    shop = await startShop(h().baseUrl);
    client = await newClient();
  });
  after(async () => {
    await browser?.close();
    await shop?.close();
  });

  const link = async (accountId: string) =>
    onTestServer((await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId } })).body.payload.redirect);
  /** Opens the shop page running the widget with `flow`; returns the page and the widget's frame once it shows `selector`. */
  const openShop = async (
    accountId: string,
    flow: string,
    selector: string,
    on: { shop: string; redirect: (url: string) => string } = { shop: shop.url, redirect: (url) => url },
  ): Promise<{ page: Page; frame: Frame }> => {
    const page = await browser.newPage();
    await page.goto(`${on.shop}/shop?${new URLSearchParams({ redirect: on.redirect(await link(accountId)), flow })}`);
    const frame = (await (await page.waitForSelector('iframe')).contentFrame())!;
    await frame.waitForSelector(selector);
    return { page, frame };
  };
  const events = async (page: Page) => {
    await page.waitForFunction(() => (window as any).events.length > 0);
    return page.evaluate(() => (window as any).events);
  };
  const fillKyc = async (frame: Frame, values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) await frame.fill(`input[name=${name}]`, value);
  };
  const ada = { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-12-10', address: '1 Analytical Row, London', country: 'gb' };
  const kycState = async (accountId: string) => (await call('GET', `/v1/kyc/${accountId}`, { token: client.token })).body.payload.state;

  it('takes the identity data with labelled fields and ends with svc.kyc.complete {state: ACCEPT}', async () => {
    const user = await register(client);
    const { page, frame } = await openShop(user.account_id, 'kyc', '[data-hf=kyc-submit]');
    assert.equal(await page.getAttribute('iframe', 'title'), 'Verify your identity');
    // Every field has its label, found the way assistive technology finds it.
    for (const label of ['First name', 'Last name', 'Date of birth', 'Address', 'Country']) {
      assert.equal(await frame.getByLabel(label, { exact: true }).count(), 1, label);
    }
    await fillKyc(frame, ada);
    await frame.click('[data-hf=kyc-submit]');
    await frame.waitForSelector('[data-hf=kyc-state][data-hf-state=ACCEPT]');
    assert.equal(await frame.textContent('[data-hf=kyc-message]'), 'Your identity is verified.');
    await frame.click('[data-hf=done]');
    assert.deepEqual(await events(page), [['complete', { event: 'svc.kyc.complete', source: 'svc', state: 'ACCEPT' }]]);
    assert.equal(await page.$('iframe'), null, 'the widget removes its frame');
    assert.equal(await kycState(user.account_id), 'ACCEPT');
    await page.close();
  });

  it('ends with DENY when the sandbox verifier denies (last name Deny)', async () => {
    const user = await register(client);
    const { page, frame } = await openShop(user.account_id, 'kyc', '[data-hf=kyc-submit]');
    await fillKyc(frame, { ...ada, last_name: 'Deny' });
    await frame.click('[data-hf=kyc-submit]');
    await frame.waitForSelector('[data-hf=kyc-state][data-hf-state=DENY]');
    await frame.click('[data-hf=done]');
    assert.deepEqual(await events(page), [['complete', { event: 'svc.kyc.complete', source: 'svc', state: 'DENY' }]]);
    assert.equal(await kycState(user.account_id), 'DENY');
    await page.close();
  });

  it("shows a 400's field messages next to their fields, marked invalid, then takes the corrected form", async () => {
    const user = await register(client);
    const { page, frame } = await openShop(user.account_id, 'kyc', '[data-hf=kyc-submit]');
    await fillKyc(frame, { ...ada, first_name: '   ', date_of_birth: '1990-13-45', country: 'G1' });
    await frame.click('[data-hf=kyc-submit]');
    await frame.waitForSelector('[data-hf-error=first_name]:not(:empty)');
    const message = (name: string) => frame.textContent(`[data-hf-error=${name}]`);
    assert.equal(await message('first_name'), 'Fill this in.');
    assert.equal(await message('date_of_birth'), 'Write the date as YYYY-MM-DD.');
    assert.equal(await message('country'), 'Give the two-letter country code, such as GB.');
    assert.equal(await message('last_name'), '');
    assert.equal(await frame.getAttribute('input[name=first_name]', 'aria-invalid'), 'true');
    assert.equal(await frame.getAttribute('input[name=last_name]', 'aria-invalid'), null);
    // The message is read with its field, and the field with the problem has the focus.
    assert.match((await frame.getAttribute('input[name=first_name]', 'aria-describedby')) ?? '', /hf-kyc-first_name-error/);
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('name')), 'first_name');
    assert.equal(await frame.textContent('[data-hf=kyc-error]'), 'Some details need correcting.');
    assert.equal(await kycState(user.account_id), 'NODATA', 'nothing was taken');
    await fillKyc(frame, ada);
    await frame.click('[data-hf=kyc-submit]');
    await frame.waitForSelector('[data-hf=kyc-state][data-hf-state=ACCEPT]');
    await page.close();
  });

  it('shows a check already submitted as its state, with no form; Done ends the flow with that state; Cancel ends an unsent form', async () => {
    const user = await register(client);
    const first = await openShop(user.account_id, 'kyc', '[data-hf=kyc-submit]');
    await first.frame.click('[data-hf=cancel]');
    assert.deepEqual(await events(first.page), [['complete', { event: 'svc.kyc.complete', source: 'svc', state: 'cancel' }]]);
    const submitted = await call('POST', `/v1/kyc/${user.account_id}`, {
      token: (await call('POST', '/authorize/user', { token: client.token, body: { account_id: user.account_id, return_token: true } }))
        .body.payload.token.access_token,
      body: { ...ada, last_name: 'Review' },
    });
    assert.equal(submitted.body.payload.state, 'MANUAL_REVIEW', submitted.text);
    const again = await openShop(user.account_id, 'kyc', '[data-hf=kyc-state]');
    assert.equal(await again.frame.getAttribute('[data-hf=kyc-state]', 'data-hf-state'), 'MANUAL_REVIEW');
    assert.match((await again.frame.textContent('[data-hf=kyc-message]')) ?? '', /being reviewed/);
    assert.equal(await again.frame.$('form'), null, 'nothing to submit');
    assert.equal(await again.frame.$('input'), null);
    await again.frame.click('[data-hf=done]');
    assert.deepEqual(await events(again.page), [['complete', { event: 'svc.kyc.complete', source: 'svc', state: 'MANUAL_REVIEW' }]]);
    for (const p of [first.page, again.page]) await p.close();
  });

  it("shows an operator's CANCEL as its state with no form until the operator reopens it; then the form again", async () => {
    const user = await register(client);
    await decideKyc(h().orm.em.fork(), user.account_id, 'CANCEL', false);
    const cancelled = await openShop(user.account_id, 'kyc', '[data-hf=kyc-state]');
    assert.equal(await cancelled.frame.getAttribute('[data-hf=kyc-state]', 'data-hf-state'), 'CANCEL');
    assert.equal(await cancelled.frame.textContent('[data-hf=kyc-message]'), 'Your identity check was cancelled.');
    assert.equal(await cancelled.frame.$('form'), null, 'nothing to submit');
    await reopenKyc(h().orm.em.fork(), user.account_id, 'asked again by support');
    const reopened = await openShop(user.account_id, 'kyc', '[data-hf=kyc-submit]');
    await fillKyc(reopened.frame, ada);
    await reopened.frame.click('[data-hf=kyc-submit]');
    await reopened.frame.waitForSelector('[data-hf=kyc-state][data-hf-state=ACCEPT]');
    for (const p of [cancelled.page, reopened.page]) await p.close();
  });

  it("behind a provider's verifier, the submission answers PROCESSING with a link on to the provider's page", async () => {
    const verifier: IdentityVerifier = {
      name: 'test-sessions',
      start: async (request: IdentityCheckRequest): Promise<IdentityCheckStart> => ({
        kind: 'session',
        sessionId: `vs_test_${request.kycId}`,
        verificationUrl: `https://verify.example/session/${request.kycId}`,
      }),
    };
    const app = await startExtraApp({ identityVerifier: verifier });
    const theirShop = await startShop(app.baseUrl);
    try {
      const user = await register(client);
      const { page, frame } = await openShop(user.account_id, 'kyc', '[data-hf=kyc-submit]', {
        shop: theirShop.url,
        redirect: (url) => url.replace(h().baseUrl, app.baseUrl),
      });
      await fillKyc(frame, ada);
      await frame.click('[data-hf=kyc-submit]');
      await frame.waitForSelector('[data-hf=kyc-state][data-hf-state=PROCESSING]');
      const kycId = (await call('GET', `/v1/kyc/${user.account_id}`, { token: client.token })).body.payload.kyc_id;
      assert.equal(await frame.getAttribute('[data-hf=kyc-verify]', 'href'), `https://verify.example/session/${kycId}`);
      assert.equal(await frame.getAttribute('[data-hf=kyc-verify]', 'target'), '_top');
      assert.equal(await frame.textContent('[data-hf=kyc-message]'), 'Your identity check is being processed.');
      await page.close();
    } finally {
      await theirShop.close();
      await app.close();
    }
  });

  const paypalMethods = async (accountId: string) =>
    ((await call('GET', `/v1/${accountId}/payment_methods`, { token: client.token })).body.payload as any[]).filter(
      (m) => m.provider === 'paypal',
    );

  it('adds a PayPal payout destination by e-mail and ends with svc.pm.complete {id, pm_state}; a bad address is named beside its field', async () => {
    const user = await register(client);
    const { page, frame } = await openShop(user.account_id, 'payout', '[data-hf=payout-add]');
    assert.equal(await frame.$('[data-hf=payout-select]'), null, 'nothing to choose yet');
    await frame.getByLabel('PayPal e-mail address').fill('not-an-address');
    await frame.click('[data-hf=payout-add]');
    await frame.waitForSelector('[data-hf-error=email]:not(:empty)');
    assert.equal(await frame.getAttribute('input[name=email]', 'aria-invalid'), 'true');
    assert.deepEqual(await paypalMethods(user.account_id), [], 'nothing was added');
    await frame.fill('input[name=email]', 'Ada.Payee@Example.com');
    await frame.click('[data-hf=payout-add]');
    const [[kind, message]] = await events(page);
    const [added] = await paypalMethods(user.account_id);
    assert.equal(kind, 'complete');
    assert.deepEqual(message, { event: 'svc.pm.complete', source: 'svc', id: added.id, pm_state: added.pm_state });
    assert.equal(added.pm_state, 'active');
    assert.match(added.display_string, /ada\.payee@example\.com/);
    await page.close();
  });

  it('chooses an existing PayPal destination (and offers no card or wallet); the purchase flows never offer it to pay', async () => {
    const user = await register(client);
    const token = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: user.account_id, return_token: true } })
    ).body.payload.token.access_token;
    const add = async (email: string) =>
      (await call('POST', `/v1/${user.account_id}/payment_methods`, { token, body: { type: 'paypal', paypal: { email } } })).body.payload;
    const first = await add('first@example.com');
    const second = await add('second@example.com');
    const { page, frame } = await openShop(user.account_id, 'payout', '[data-hf=payout-select]');
    const offered = await frame.$$eval('[data-hf-method]', (inputs) => inputs.map((i) => i.getAttribute('data-hf-method')));
    assert.deepEqual(offered.sort(), [first.id, second.id].sort(), 'only the PayPal destinations, no wallet');
    await frame.check(`[data-hf-method="${second.id}"]`);
    await frame.click('[data-hf=payout-select]');
    assert.deepEqual(await events(page), [['complete', { event: 'svc.pm.complete', source: 'svc', id: second.id, pm_state: 'active' }]]);
    await page.close();
    const selection = await openShop(user.account_id, 'payment-selection', '[data-hf=select]');
    assert.equal(await selection.frame.$(`[data-hf-method="${first.id}"]`), null, 'a payout destination never pays');
    await selection.page.close();
  });

  it('sends a top-level payout flow back to its checked postOAuthURLOverride with id and pm_state', async () => {
    const user = await register(client);
    const page = await browser.newPage();
    const config = encodeURIComponent(JSON.stringify({ postOAuthURLOverride: `${shop.url}/back` }));
    await page.goto(`${await link(user.account_id)}?flow=payout&config=${config}`);
    await page.fill('input[name=email]', 'top@example.com');
    await page.click('[data-hf=payout-add]');
    await page.waitForURL(/\/back\?/);
    const back = new URL(page.url()).searchParams;
    const [added] = await paypalMethods(user.account_id);
    assert.deepEqual([back.get('event'), back.get('id'), back.get('pm_state')], ['svc.pm.complete', added.id, 'active']);
    await page.close();
  });
});
