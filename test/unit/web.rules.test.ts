import assert from 'node:assert/strict';
import {
  checkedReturnUrl,
  flowOptions,
  hostedPagePolicy,
  htmlAttribute,
  isColor,
  missingFlowScopes,
  redirectAllowed,
  sameOriginPost,
} from '../../src/web/web.rules.js';

describe('hosted flow rules', () => {
  const json = (v: unknown) => JSON.stringify(v);

  it('picks the flow: checkout needs an authorized invoice, payment selection is the default without one', () => {
    assert.equal((flowOptions({ authorized_invoice_id: 'inv_1' }, []) as any).options.flow, 'checkout');
    assert.equal((flowOptions({}, []) as any).options.flow, 'payment-selection');
    assert.deepEqual(flowOptions({ flow: 'checkout' }, []), { ok: false, problem: 'invalid_flow' });
    assert.deepEqual(flowOptions({ flow: 'history' }, []), { ok: false, problem: 'invalid_flow' });
    assert.equal((flowOptions({ flow: 'transaction-history' }, []) as any).options.flow, 'transaction-history');
    assert.equal((flowOptions({ flow: 'receipt', invoice_id: 'inv_1' }, []) as any).options.invoiceId, 'inv_1');
    assert.deepEqual(flowOptions({ flow: 'receipt' }, []), { ok: false, problem: 'invalid_flow' }, 'a receipt names its invoice');
    assert.equal(flowOptions({ flow: 'receipt', invoice_id: 'inv_1', config: JSON.stringify({ hideUserWallets: true }) }, []).ok, false);
    assert.deepEqual(flowOptions({ flow: 'checkout', authorized_invoice_id: 'inv_<x>' }, []), { ok: false, problem: 'invalid_flow' });
  });

  it('opens the KYC and payout flows from a session link, with only postOAuthURLOverride as flowConfig', () => {
    for (const flow of ['kyc', 'payout']) {
      assert.equal((flowOptions({ flow }, []) as any).options.flow, flow);
      const back = json({ postOAuthURLOverride: 'https://app.example/back' });
      assert.equal(flowOptions({ flow, config: back }, ['app.example']).ok, true);
      assert.deepEqual(flowOptions({ flow, config: back }, []), { ok: false, problem: 'redirect_not_allowed' });
      for (const key of [
        { hideSKUs: true },
        { selectButton: { label: 'Go' } },
        { transactionDetails: { transaction_amount: 1, currency: 'USD' } },
      ])
        assert.deepEqual(flowOptions({ flow, config: json(key) }, []), { ok: false, problem: 'invalid_config' }, `${flow} ${json(key)}`);
    }
  });

  it("names the scopes a KYC or payout session lacks; the other flows' sessions need none named here", () => {
    assert.deepEqual(missingFlowScopes('kyc', ['read_kyc', 'write_process_credits']), []);
    assert.deepEqual(missingFlowScopes('kyc', ['read_kyc']), ['write_process_credits']);
    assert.deepEqual(missingFlowScopes('kyc', ['read_payment_methods', 'write_payment_methods']), ['read_kyc', 'write_process_credits']);
    assert.deepEqual(missingFlowScopes('payout', ['read_payment_methods', 'write_payment_methods', 'read_kyc']), []);
    assert.deepEqual(missingFlowScopes('payout', ['read_payment_methods']), ['write_payment_methods']);
    assert.deepEqual(missingFlowScopes('checkout', []), []);
  });

  it("takes each flow's own flowConfig keys with their types, and nothing else", () => {
    const checkout = (config: unknown) => flowOptions({ authorized_invoice_id: 'inv_1', config: json(config) }, []).ok;
    assert.equal(
      checkout({ hideUserWallets: true, hideSKUs: false, showInvoiceReferenceInfo: true, selectButton: { label: 'Buy' } }),
      true,
    );
    assert.equal(checkout({ hideSKUs: 'yes' }), false);
    assert.equal(checkout({ transactionDetails: { transaction_amount: 5, currency: 'USD' } }), false, 'a payment-selection key');
    assert.equal(checkout({ selectButton: { label: 'x'.repeat(61) } }), false);
    assert.equal(checkout([1]), false);
    assert.equal(flowOptions({ authorized_invoice_id: 'inv_1', config: '{not json' }, []).ok, false);
    const selection = (config: unknown) => flowOptions({ config: json(config) }, []).ok;
    assert.equal(selection({ transactionDetails: { transaction_amount: 1000, currency: 'USD' } }), true);
    assert.equal(selection({ transactionDetails: { transaction_amount: 0, currency: 'USD' } }), false);
    assert.equal(selection({ transactionDetails: { transaction_amount: 1.5, currency: 'USD' } }), false);
    assert.equal(selection({ transactionDetails: { transaction_amount: 100, currency: 'usd' } }), false);
    assert.equal(selection({ hideSKUs: true }), false, 'a checkout key');
  });

  it("sends the page's messages only to an http(s) origin, when one is given", () => {
    assert.equal(flowOptions({ origin: 'https://shop.example' }, []).ok, true);
    assert.equal(flowOptions({ origin: 'http://127.0.0.1:8080' }, []).ok, true);
    for (const bad of ['https://shop.example/path', 'javascript:alert(1)', 'null', 'shop.example']) {
      assert.deepEqual(flowOptions({ origin: bad }, []), { ok: false, problem: 'invalid_config' }, bad);
    }
  });

  it('takes theme colours that are colours only', () => {
    for (const good of ['#fff', '#0a7d32', 'rgb(10, 20, 30)', 'hsla(120, 50%, 50%, 0.5)', 'teal']) assert.equal(isColor(good), true, good);
    for (const bad of ['red; background:url(x)', 'url(https://x)', 'expression(alert(1))', '#12', '', 7])
      assert.equal(isColor(bad), false, String(bad));
    assert.equal(flowOptions({ theme: json({ primaryColor: '#fff', backgroundColor: 'white' }) }, []).ok, true);
    assert.equal(flowOptions({ theme: json({ primaryColor: 'red;}' }) }, []).ok, false);
    assert.equal(flowOptions({ theme: json({ fontFamily: 'serif' }) }, []).ok, false);
  });

  it("sends a user back only to a host on the operator's list, over https (http for localhost only)", () => {
    const patterns = ['app.example.com', '*.games.example', '127.0.0.1'];
    assert.equal(redirectAllowed('https://app.example.com/back', patterns), true);
    assert.equal(redirectAllowed('https://eu.games.example/x', patterns), true);
    assert.equal(redirectAllowed('https://games.example/x', patterns), false, '*. means a subdomain');
    assert.equal(redirectAllowed('https://evilgames.example/x', patterns), false);
    assert.equal(redirectAllowed('http://app.example.com/back', patterns), false, 'plain http');
    assert.equal(redirectAllowed('http://127.0.0.1:8080/back', patterns), true);
    assert.equal(redirectAllowed('https://user:pw@app.example.com/', patterns), false);
    assert.equal(redirectAllowed('javascript:alert(1)', patterns), false);
    assert.equal(redirectAllowed('https://app.example.com/', []), false, 'nothing is allowed by default');
    assert.deepEqual(flowOptions({ config: json({ postOAuthURLOverride: 'https://other.example.org/' }) }, patterns), {
      ok: false,
      problem: 'redirect_not_allowed',
    });
  });

  it("hands a page only a return address the operator's list allows, as the URL parser writes it", () => {
    const patterns = ['app.example.com'];
    const config = (override: unknown) => json({ postOAuthURLOverride: override });
    assert.equal(checkedReturnUrl(config('https://APP.example.com/back?x=1'), patterns), 'https://app.example.com/back?x=1');
    assert.equal(checkedReturnUrl(config('https://evil.example/'), patterns), undefined);
    assert.equal(checkedReturnUrl(config('javascript:alert(1)'), patterns), undefined);
    assert.equal(checkedReturnUrl(config(42), patterns), undefined);
    assert.equal(checkedReturnUrl('{not json', patterns), undefined);
    assert.equal(checkedReturnUrl(undefined, patterns), undefined);
    assert.equal(checkedReturnUrl(['a', 'b'], patterns), undefined, 'a repeated query parameter is not a config');
    assert.equal(htmlAttribute(`a&b"c'd<e>`), 'a&amp;b&quot;c&#39;d&lt;e&gt;');
  });

  it('takes a POST as same-origin by Sec-Fetch-Site when sent, else by an Origin naming this host or the public address', () => {
    const host = '127.0.0.1:4104';
    const publicOrigin = 'https://staging.example';
    assert.equal(sameOriginPost({ secFetchSite: 'same-origin', host }), true);
    for (const site of ['cross-site', 'same-site', 'none'])
      assert.equal(sameOriginPost({ secFetchSite: site, origin: `http://${host}`, host }), false);
    assert.equal(sameOriginPost({ origin: `http://${host}`, host }), true);
    assert.equal(sameOriginPost({ origin: 'https://staging.example', host: 'internal:3000', publicOrigin }), true);
    assert.equal(sameOriginPost({ origin: 'https://evil.example', host, publicOrigin }), false);
    assert.equal(sameOriginPost({ origin: 'null', host }), false);
    assert.equal(sameOriginPost({ origin: 'not a url', host }), false);
    assert.equal(sameOriginPost({ host }), false, 'neither header: not shown to come from the page');
  });
});

describe("the hosted pages' Content-Security-Policy", () => {
  it('under the sandbox processor: this origin only, as before', () => {
    assert.equal(
      hostedPagePolicy('*'),
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *",
    );
    assert.match(hostedPagePolicy('*', { frames: true }), /; frame-src 'self'$/);
  });

  it("under the Stripe processor: Stripe.js's origin may load, frame and be called, and Stripe's API called", () => {
    const own = hostedPagePolicy('https://shop.example', {
      stripe: { jsUrl: 'https://js.stripe.com/v3/', apiOrigin: 'https://api.stripe.com', publishableKey: 'pk_live_x' },
    });
    assert.equal(
      own,
      "default-src 'none'; script-src 'self' https://js.stripe.com; style-src 'self'; img-src 'self' data:; " +
        "connect-src 'self' https://js.stripe.com https://api.stripe.com; base-uri 'none'; form-action 'none'; " +
        'frame-ancestors https://shop.example; frame-src https://js.stripe.com https://hooks.stripe.com',
    );
    // A stand-in serving the library and the API from one origin: named once.
    const fake = hostedPagePolicy('*', { stripe: { jsUrl: 'http://127.0.0.1:9/v3/', apiOrigin: 'http://127.0.0.1:9' } });
    assert.match(fake, /script-src 'self' http:\/\/127\.0\.0\.1:9;/);
    assert.match(fake, /connect-src 'self' http:\/\/127\.0\.0\.1:9;/);
    assert.match(fake, /frame-src http:\/\/127\.0\.0\.1:9$/);
  });
});
