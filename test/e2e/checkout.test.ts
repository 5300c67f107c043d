import assert from 'node:assert/strict';
import type { Browser, Frame, Page } from 'playwright-core';
import { call, h, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';
import { launchChromium, startShop } from '../support/browser.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** The redirect the API answered, on the server under test (the harness's PUBLIC_URL is not where it listens). */
const onTestServer = (redirect: string) => {
  const url = new URL(redirect);
  return `${h().baseUrl}${url.pathname}${url.search}`;
};

describe('hosted checkout and payment selection in Chromium, through the widget', function () {
  this.timeout(60_000);
  let browser: Browser;
  let shop: Awaited<ReturnType<typeof startShop>>;
  let client: TestClient;
  let seller: Party;
  before(async () => {
    browser = await launchChromium();
    shop = await startShop(h().baseUrl);
    client = await newClient();
    seller = await party(client);
  });
  after(async () => {
    await browser?.close();
    await shop?.close();
  });

  const authorizeWidget = async (buyer: string, extra: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: {
        account_id: buyer,
        invoice_mechanism: 'widget',
        reference_type: 'order',
        reference_id: 'ord-42',
        description: 'Winter cape',
        line_items: [
          {
            amount: 1250,
            currency: 'USD',
            transaction_type: 'user_to_user',
            product_sku: 'cape-1',
            description: 'Cape',
            recipients: [{ amount: 1000, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
          },
        ],
        ...extra,
      },
    });
    assert.equal(res.status, 200, res.text);
    return res.body.payload as { redirect: string; authorized_invoice_id: string; nonce_auth_id: string };
  };

  /** Opens the shop page running the widget; returns the page and the widget's frame once it shows `selector`. */
  const openShop = async (params: Record<string, unknown>, selector: string): Promise<{ page: Page; frame: Frame }> => {
    const page = await browser.newPage();
    const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    await page.goto(`${shop.url}/shop?${query}`);
    const handle = await page.waitForSelector('iframe');
    const frame = (await handle.contentFrame())!;
    await frame.waitForSelector(selector);
    return { page, frame };
  };
  const events = async (page: Page) => {
    await page.waitForFunction(() => (window as any).events.length > 0);
    return page.evaluate(() => (window as any).events);
  };
  const addCard = async (frame: Frame, number: string) => {
    // Once the screen is up: with no payment method to show, the form is open already.
    await frame.waitForSelector('[data-hf=pay], [data-hf=select]');
    if (await frame.isVisible('[data-hf=add-card]')) await frame.click('[data-hf=add-card]');
    await frame.fill('input[name=number]', number);
    await frame.fill('input[name=exp_month]', '12');
    await frame.fill('input[name=exp_year]', '2099');
    await frame.fill('input[name=cvc]', '123');
    await frame.click('[data-hf=save-card]');
  };
  /**
   * Clicks `selector` on a top-level page and tells where that led: 'stayed' when the page says
   * it can be closed, else the address it went to.
   */
  const leadsTo = async (page: Page, selector: string): Promise<string> => {
    const stayed = page.waitForSelector('text=You can close this window now.').then(
      () => 'stayed',
      () => 'nothing',
    );
    const left = page
      .waitForURL((url) => url.origin !== h().baseUrl)
      .then(
        () => page.url(),
        () => 'nothing',
      );
    await page.click(selector);
    return Promise.race([stayed, left]);
  };
  const overrideQuery = (url: string) => `config=${encodeURIComponent(JSON.stringify({ postOAuthURLOverride: url }))}`;

  it('takes a new user through the ToS, a new card and the payment; the shop gets complete / done-button and the seller is paid', async () => {
    const buyer = await register(client);
    const auth = await authorizeWidget(buyer.account_id);
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const { page, frame } = await openShop(
      {
        redirect: onTestServer(auth.redirect),
        flow: 'checkout',
        theme: { primaryColor: '#0a7d32' },
        config: { hideSKUs: true, showInvoiceReferenceInfo: true, selectButton: { label: 'Buy now' } },
      },
      '[data-hf=accept-tos]',
    );
    assert.equal(new URL(frame.url()).hash, '', 'the session token leaves the address bar at once');
    await frame.click('[data-hf=accept-tos]');
    await frame.waitForSelector('[data-hf=pay]');
    assert.equal(await frame.textContent('[data-hf=total]'), 'USD 12.50');
    assert.equal(await frame.textContent('[data-hf=line]'), 'Cape', 'hideSKUs hides the SKU');
    assert.equal(await frame.textContent('[data-hf=reference]'), 'order ord-42');
    assert.equal(await frame.textContent('[data-hf=pay]'), 'Buy now');
    assert.equal(await frame.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--hf-primary').trim()), '#0a7d32');
    assert.equal(await frame.isDisabled(`[data-hf-method]`), true, 'the empty USD wallet cannot pay');
    await addCard(frame, '4242 4242 4242 4242');
    await frame.waitForSelector('[data-hf-method]:checked:not([disabled])');
    assert.equal(await frame.isVisible('input[name=number]'), false, 'the card form closes once the card is saved');
    // The frame takes the page's height (svc.resize), so nothing scrolls inside it.
    const heights = () =>
      Promise.all([
        page.evaluate(() => document.querySelector('iframe')!.getBoundingClientRect().height),
        frame.evaluate(() => document.documentElement.scrollHeight),
      ]);
    let [outer, inner] = await heights();
    for (let i = 0; i < 100 && Math.abs(outer - inner) > 1; i++) {
      await new Promise((r) => setTimeout(r, 50));
      [outer, inner] = await heights();
    }
    assert.ok(Math.abs(outer - inner) <= 1 && outer !== 620, `frame ${outer} px, page ${inner} px`);
    await frame.click('[data-hf=pay]');
    await frame.click('[data-hf=done]');
    assert.deepEqual(await events(page), [
      ['complete', { event: 'svc.checkout.complete', source: 'svc', state: 'complete', trigger: 'done-button' }],
    ]);
    assert.equal(await page.$('iframe'), null, 'the widget removes its frame');
    const invoice = await call('GET', `/v2/invoice/${auth.authorized_invoice_id}`, { token: client.token });
    assert.equal(invoice.body.payload.state, 'SUCCESS');
    assert.equal((await balance(seller.wallets['USD:fiat'].wallet)) - before, 1000);
    assert.deepEqual((await call('GET', `/user-info/${buyer.account_id}/tos/svc`, { token: client.token })).body, { signed_tos: true });
    await page.close();
  });

  it('shows a declined card as a full-screen error; its close button ends the flow with error / close-button', async () => {
    const buyer = await party(client);
    await call('POST', `/user-info/${buyer.account_id}/tos/svc`, { token: client.token });
    const auth = await authorizeWidget(buyer.account_id, { is_escrow: true });
    const { page, frame } = await openShop({ redirect: onTestServer(auth.redirect), config: { hideUserWallets: true } }, '[data-hf=pay]');
    assert.equal(await frame.$(`[data-hf-method="${buyer.wallets['USD:fiat'].pm}"]`), null, 'hideUserWallets hides the wallet');
    await addCard(frame, '4000000000000002');
    await frame.waitForSelector('[data-hf-method]:checked');
    await frame.click('[data-hf=pay]');
    await frame.waitForSelector('[data-hf=close]');
    assert.match((await frame.textContent('[role=alert]')) ?? '', /declined/);
    await frame.click('[data-hf=close]');
    assert.deepEqual(await events(page), [
      ['error', { event: 'svc.checkout.complete', source: 'svc', state: 'error', trigger: 'close-button' }],
    ]);
    const invoice = await call('GET', `/v2/invoice/${auth.authorized_invoice_id}`, { token: client.token });
    assert.deepEqual([invoice.body.payload.state, invoice.body.payload.failure_reason], ['FAILED', 'card_declined']);
    await page.close();
  });

  it('lets the user cancel (complete callback, state cancel) and never opens a spent link again', async () => {
    const buyer = await party(client);
    await call('POST', `/user-info/${buyer.account_id}/tos/svc`, { token: client.token });
    const auth = await authorizeWidget(buyer.account_id);
    assert.equal(
      (await fetch(onTestServer(auth.redirect), { method: 'HEAD' })).status,
      200,
      "a link preview's HEAD does not spend the link",
    );
    const first = await openShop({ redirect: onTestServer(auth.redirect) }, '[data-hf=cancel]');
    // A message that does not come from the widget's frame is not the flow's end.
    await first.page.evaluate(() =>
      window.postMessage({ event: 'svc.checkout.complete', source: 'svc', state: 'complete', trigger: 'done-button' }, '*'),
    );
    await first.frame.click('[data-hf=cancel]');
    assert.deepEqual(await events(first.page), [['complete', { event: 'svc.checkout.complete', source: 'svc', state: 'cancel' }]]);
    const again = await openShop({ redirect: onTestServer(auth.redirect) }, '[data-hf=close]');
    assert.match((await again.frame.textContent('[role=alert]')) ?? '', /expired or was already used/);
    await again.frame.click('[data-hf=close]');
    assert.equal((await events(again.page))[0][1].state, 'error');
    const invoice = await call('GET', `/v2/invoice/${auth.authorized_invoice_id}`, { token: client.token });
    assert.equal(invoice.body.payload.state, 'OPEN', 'nothing was paid');
    await first.page.close();
    await again.page.close();
  });

  it("lets the user choose the wallet's balance and a card for the rest; the choice pays an escrow as it is", async () => {
    const buyer = await party(client, true);
    await fund(buyer, 'USD:fiat', 300);
    const session = await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } });
    const { page, frame } = await openShop(
      {
        redirect: onTestServer(session.body.payload.redirect),
        flow: 'payment-selection',
        config: { transactionDetails: { transaction_amount: 1000, currency: 'USD' } },
      },
      '[data-hf=select]',
    );
    await frame.check(`[data-hf-method="${buyer.wallets['USD:fiat'].pm}"]`);
    await frame.check(`input[name=hf-second][value="${buyer.card}"]`);
    await frame.click('[data-hf=select]');
    const [[kind, message]] = await events(page);
    assert.equal(kind, 'complete');
    assert.deepEqual(message, {
      event: 'svc.payment-selection.complete',
      source: 'svc',
      state: 'complete',
      paymentMethods: [
        { payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 300 },
        { payment_method_id: buyer.card, amount: 0 },
      ],
    });
    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: message.paymentMethods,
        line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(escrow.status, 201, escrow.text);
    const paid = await call('POST', `/v2/escrow/${escrow.body.payload.id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.status, 'ESCROWED');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 0);
    await page.close();
  });

  it("prints a wallet's balance from its digits, exact past 2^53 / 100 (USD 90071992547409.01, not .02)", async () => {
    // An integrator of its own: no other test's money meets a balance this large.
    const rich = await newClient();
    const buyer = await party(rich);
    await fund(buyer, 'USD:fiat', 9_007_199_254_740_901);
    const session = await call('POST', '/authorize/user', { token: rich.token, body: { account_id: buyer.account_id } });
    const { page, frame } = await openShop(
      { redirect: onTestServer(session.body.payload.redirect), flow: 'payment-selection' },
      '[data-hf=select]',
    );
    const label = await frame.textContent(`label:has([data-hf-method="${buyer.wallets['USD:fiat'].pm}"])`);
    assert.match(label ?? '', / — USD 90071992547409\.01$/);
    await page.close();
  });

  it('sends a top-level flow back to an allowed postOAuthURLOverride, and refuses one off the list before spending the link', async () => {
    const buyer = await party(client);
    await call('POST', `/user-info/${buyer.account_id}/tos/svc`, { token: client.token });
    const auth = await authorizeWidget(buyer.account_id);
    const page = await browser.newPage();
    const link = (override: string) =>
      `${onTestServer(auth.redirect)}&config=${encodeURIComponent(JSON.stringify({ postOAuthURLOverride: override }))}`;
    const refused = await page.goto(link('https://evil.example.net/back'));
    assert.equal(refused?.status(), 400);
    assert.match((await page.textContent('[role=alert]')) ?? '', /not allowed/);
    const opened = await page.goto(link(`${shop.url}/back`));
    assert.equal(opened?.status(), 200, 'the refused link did not spend the nonce');
    assert.ok(opened?.headers()['content-security-policy']?.includes("script-src 'self'"));
    await page.click('[data-hf=cancel]');
    await page.waitForURL(/\/back\?/);
    const back = new URL(page.url());
    assert.deepEqual(
      [back.origin, back.searchParams.get('event'), back.searchParams.get('state')],
      [shop.url, 'svc.checkout.complete', 'cancel'],
    );
    await page.close();
  });

  it('never follows an override the server did not check, on any page, with or without a session; a checked one still works', async () => {
    const page = await browser.newPage();
    // Were the page to go there, it would arrive: the test tells where a click leads, not whether a network error stopped it.
    await page.route('https://evil.example/**', (route) => route.fulfill({ contentType: 'text/html', body: '<p>evil</p>' }));
    for (const flow of ['checkout', 'payment-selection', 'transaction-history', 'receipt']) {
      // Opened with no session at all: the expired-link screen, whose Close ends the flow.
      await page.goto(`${h().baseUrl}/ui/${flow}?${overrideQuery('https://evil.example/steal')}`);
      assert.equal(await leadsTo(page, '[data-hf=close]'), 'stayed', `/ui/${flow} followed its own override`);
    }
    // With a session in the tab, a receipt opened again with an unchecked override in its address.
    const buyer = await party(client, true);
    const made = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount: 700, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoiceId = made.body.payload.invoice_id as string;
    const link = (await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } })).body.payload
      .redirect;
    await page.goto(`${onTestServer(link)}?flow=receipt&invoice_id=${invoiceId}`);
    await page.waitForSelector('[data-hf=receipt]');
    await page.goto(`${h().baseUrl}/ui/receipt?invoice_id=${invoiceId}&${overrideQuery('https://evil.example/steal')}`);
    await page.waitForSelector('[data-hf=receipt]');
    assert.equal(await leadsTo(page, '[data-hf=done]'), 'stayed', 'a receipt with a session followed its own override');
    // An override on the operator's list (the harness allows 127.0.0.1) is checked by the server and followed.
    await page.goto(`${h().baseUrl}/ui/receipt?invoice_id=${invoiceId}&${overrideQuery(`${shop.url}/back`)}`);
    await page.waitForSelector('[data-hf=receipt]');
    const back = new URL(await leadsTo(page, '[data-hf=done]'));
    assert.deepEqual(
      [back.origin, back.pathname, back.searchParams.get('event'), back.searchParams.get('state')],
      [shop.url, '/back', 'svc.receipt.complete', 'complete'],
    );
    await page.close();
    const fresh = await browser.newPage();
    await fresh.goto(`${h().baseUrl}/ui/transaction-history?${overrideQuery(`${shop.url}/back`)}`);
    assert.equal(new URL(await leadsTo(fresh, '[data-hf=close]')).pathname, '/back', 'with no session too');
    await fresh.close();
  });

  it('shows who is signed in, as text, from the token the page holds, before any form', async () => {
    const username = `<img src=x onerror="document.title=1"> ${Date.now()}`;
    const mallory = await register(client, { username, email: { address: `mallory.${Date.now()}@example.com` } });
    const link = (await call('POST', '/authorize/user', { token: client.token, body: { account_id: mallory.account_id } })).body.payload
      .redirect;
    const { page, frame } = await openShop({ redirect: onTestServer(link), flow: 'payment-selection' }, '[data-hf=select]');
    assert.equal(await frame.isVisible('#hf-account'), true);
    assert.equal(await frame.textContent('#hf-account'), `Signed in as ${username}`);
    assert.equal(await frame.textContent('[data-hf=account]'), username);
    assert.equal(await frame.$('img'), null, 'the username is text, never HTML');
    assert.notEqual(await frame.title(), '1');
    await page.close();

    // The account shown and used is the token's, whatever the fragment's `account` says.
    const victim = await party(client, true);
    const token = (
      await call('POST', '/authorize/user', { token: client.token, body: { account_id: mallory.account_id, return_token: true } })
    ).body.payload.token.access_token;
    const top = await browser.newPage();
    await top.goto(`${h().baseUrl}/ui/payment-selection#${new URLSearchParams({ token, account: victim.account_id })}`);
    await top.waitForSelector('[data-hf=select]');
    assert.equal(await top.textContent('[data-hf=account]'), username);
    assert.equal(await top.$(`[data-hf-method="${victim.card}"]`), null, "the victim's cards are not shown");
    await top.close();

    // Every flow with a session names its account.
    const buyer = await register(client);
    const auth = await authorizeWidget(buyer.account_id);
    const checkout = await openShop({ redirect: onTestServer(auth.redirect) }, '[data-hf=accept-tos]');
    assert.equal(await checkout.frame.textContent('[data-hf=account]'), buyer.username);
    await checkout.page.close();
    const history = await openShop(
      {
        redirect: onTestServer(
          (await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } })).body.payload.redirect,
        ),
        flow: 'transaction-history',
      },
      '[data-hf=done]',
    );
    assert.equal(await history.frame.textContent('[data-hf=account]'), buyer.username);
    await history.page.close();
  });

  it('runs the staging demo shop: a new buyer, the hosted checkout in the widget, the callback on the page', async () => {
    const { createClient } = await import('../../src/auth/auth.service.js');
    const { ALL_SCOPES } = await import('../../src/auth/auth.rules.js');
    const demo = await createClient(h().orm.em.fork(), { integrator: `demo-${Date.now()}`, scopes: [...ALL_SCOPES], tosSigning: true });
    const app = await startExtraApp({ demoClientId: demo.client_id });
    const page = await browser.newPage();
    try {
      await page.goto(`${app.baseUrl}/ui/demo`);
      await page.click('#demo-checkout');
      const frame = (await (await page.waitForSelector('iframe')).contentFrame())!;
      await frame.click('[data-hf=accept-tos]');
      await addCard(frame, '4242424242424242');
      await frame.waitForSelector('[data-hf-method]:checked:not([disabled])');
      assert.equal(await frame.textContent('[data-hf=total]'), 'USD 4.99');
      await frame.click('[data-hf=pay]');
      await frame.click('[data-hf=done]');
      await page.waitForFunction(() => document.getElementById('demo-log')!.textContent!.includes('onComplete'));
      assert.match((await page.textContent('#demo-log')) ?? '', /"state":"complete","trigger":"done-button"/);
      // Another site's form posting to the demo shop is refused; the demo page's own posts (above) are not.
      const other = await browser.newPage();
      await other.goto(`${shop.url}/back`);
      for (const path of ['/ui/demo/checkout', '/ui/demo/session']) {
        const answered = other.waitForResponse(`${app.baseUrl}${path}`);
        await other.evaluate((action) => {
          const form = document.createElement('form');
          form.method = 'POST';
          form.action = action;
          document.body.append(form);
          form.submit();
        }, `${app.baseUrl}${path}`);
        const res = await answered;
        assert.equal(res.status(), 403, path);
        assert.deepEqual((await res.json()).codes, ['CROSS_SITE_REQUEST']);
        await other.goto(`${shop.url}/back`);
      }
      await other.close();
      const production = await startExtraApp({ appEnv: 'production', frameAncestors: 'https://shop.example' });
      const csp = (await fetch(`${production.baseUrl}/ui/checkout`)).headers.get('content-security-policy') ?? '';
      assert.match(csp, /frame-ancestors https:\/\/shop\.example(;|$)/, 'FRAME_ANCESTORS decides who may frame the pages');
      assert.equal((await fetch(`${production.baseUrl}/ui/demo`)).status, 404, 'no demo shop outside staging');
      await production.close();
    } finally {
      await page.close();
      await app.close();
    }
  });

  it("runs the SDK's checkout with a password token (api mechanism): the hosted checkout in the app's page, completed(invoiceId, invoice)", async () => {
    const buyer = await party(client, true);
    await call('POST', `/user-info/${buyer.account_id}/tos/svc`, { token: client.token });
    const auth = (
      await call('POST', '/v2/authorize/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          invoice_mechanism: 'api',
          line_items: [{ amount: 300, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      })
    ).body.payload;
    const page = await browser.newPage();
    await page.goto(
      `${shop.url}/sdk-checkout?${new URLSearchParams({ invoice: auth.authorized_invoice_id, token: auth.password_token.access_token })}`,
    );
    const frame = (await (await page.waitForSelector('iframe')).contentFrame())!;
    await frame.check(`[data-hf-method="${buyer.card}"]`);
    await frame.click('[data-hf=pay]');
    await frame.click('[data-hf=done]');
    assert.deepEqual(await events(page), [['completed', auth.authorized_invoice_id, 'SUCCESS']]);
    const cancelled = (
      await call('POST', '/v2/authorize/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          invoice_mechanism: 'api',
          line_items: [{ amount: 300, currency: 'USD', transaction_type: 'user_to_integrator' }],
        },
      })
    ).body.payload;
    await page.goto(
      `${shop.url}/sdk-checkout?${new URLSearchParams({ invoice: cancelled.authorized_invoice_id, token: cancelled.password_token.access_token })}`,
    );
    const again = (await (await page.waitForSelector('iframe')).contentFrame())!;
    await again.click('[data-hf=cancel]');
    assert.deepEqual(await events(page), [['canceled']]);
    await page.close();
  });

  it("shows the user's transaction history, newest first, each with its receipt; and a receipt on its own", async () => {
    const buyer = await party(client, true);
    const purchase = async (card: string, amount: number) => {
      const made = await call('POST', '/v2/invoice', {
        token: client.token,
        body: {
          account_id: buyer.account_id,
          description: `Order ${amount}`,
          payment_methods: [{ payment_method_id: card, amount: 0 }],
          line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'sku-1' }],
        },
      });
      await call('POST', `/v2/invoice/${made.body.payload.invoice_id}/pay`, { token: client.token });
      return made.body.payload.invoice_id as string;
    };
    const paid = await purchase(buyer.card!, 450);
    const failed = await purchase(buyer.declined!, 990);
    const link = async () =>
      onTestServer(
        (await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } })).body.payload.redirect,
      );

    const { page, frame } = await openShop({ redirect: await link(), flow: 'transaction-history' }, '[data-hf=history]');
    assert.deepEqual(await frame.$$eval('[data-hf-invoice]', (rows) => rows.map((r) => r.getAttribute('data-hf-invoice'))), [failed, paid]);
    assert.match((await frame.textContent('[data-hf=history]')) ?? '', /USD 9\.90 · Failed[\s\S]*USD 4\.50 · Paid/);
    await frame.click(`[data-hf-invoice="${paid}"]`);
    assert.equal(await frame.textContent('[data-hf=total]'), 'USD 4.50');
    await frame.click('[data-hf=back]');
    await frame.click('[data-hf=done]');
    assert.deepEqual(await events(page), [['complete', { event: 'svc.transaction-history.complete', source: 'svc', state: 'complete' }]]);

    const alone = await openShop({ redirect: await link(), flow: 'receipt', invoice_id: paid }, '[data-hf=receipt]');
    assert.equal(await alone.frame.textContent('[data-hf=total]'), 'USD 4.50');
    assert.match((await alone.frame.textContent('[data-hf=receipt]')) ?? '', /Visa •••• 4242USD 4\.50/, 'names the card charged');
    await alone.frame.click('[data-hf=done]');
    assert.deepEqual(await events(alone.page), [['complete', { event: 'svc.receipt.complete', source: 'svc', state: 'complete' }]]);

    const stranger = await register(client);
    const theirs = onTestServer(
      (await call('POST', '/authorize/user', { token: client.token, body: { account_id: stranger.account_id } })).body.payload.redirect,
    );
    const refused = await openShop({ redirect: theirs, flow: 'receipt', invoice_id: paid }, '[data-hf=close]');
    assert.match((await refused.frame.textContent('[role=alert]')) ?? '', /Invoice not found/);
    await refused.frame.click('[data-hf=close]');
    assert.deepEqual(await events(refused.page), [
      ['error', { event: 'svc.receipt.complete', source: 'svc', state: 'error', trigger: 'close-button' }],
    ]);
    for (const p of [page, alone.page, refused.page]) await p.close();
  });

  it('finishes a payment whose methods were chosen but which never ran when the checkout is opened again, and charges once', async () => {
    const buyer = await party(client, true);
    await call('POST', `/user-info/${buyer.account_id}/tos/svc`, { token: client.token });
    await fund(buyer, 'USD:fiat', 2000);
    const auth = await authorizeWidget(buyer.account_id);
    // The state an earlier pay leaves when it is cut short after choosing: methods chosen, invoice OPEN, no command.
    await h()
      .orm.em.fork()
      .execute('update invoice set payment_methods = ?::jsonb where id = ?', [
        JSON.stringify([{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 1250, currency: 'USD' }]),
        auth.authorized_invoice_id,
      ]);
    const { page, frame } = await openShop({ redirect: onTestServer(auth.redirect) }, '[data-hf=done]');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 750, 'the chosen wallet paid, once');
    const again = await call('POST', `/v2/invoice/${auth.authorized_invoice_id}/pay`, { token: client.token });
    assert.equal(again.body.payload.state, 'SUCCESS', again.text);
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 750);
    await frame.click('[data-hf=done]');
    assert.deepEqual(await events(page), [
      ['complete', { event: 'svc.checkout.complete', source: 'svc', state: 'complete', trigger: 'done-button' }],
    ]);
    await page.close();
  });
});
