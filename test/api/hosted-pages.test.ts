/**
 * The hosted pages as the server writes them: where a top-level page may send the user back,
 * who is signed in, and the staging demo shop's refusal of cross-site posts. The pages in a
 * browser: test/e2e/checkout.test.ts.
 */
import assert from 'node:assert/strict';
import { call, h, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';

const page = (path: string, config?: unknown) =>
  fetch(`${h().baseUrl}${path}${config === undefined ? '' : `?config=${encodeURIComponent(JSON.stringify(config))}`}`);

describe('hosted pages', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  describe('postOAuthURLOverride', () => {
    it("never echoes a page's own override into it: only one the operator's list allows, as checked", async () => {
      for (const flow of ['checkout', 'payment-selection', 'transaction-history', 'receipt', 'kyc', 'payout']) {
        const refused = await page(`/ui/${flow}`, { postOAuthURLOverride: 'https://evil.example/steal' });
        assert.equal(refused.status, 200);
        const html = await refused.text();
        assert.ok(!html.includes('evil.example'), `/ui/${flow} echoed the unchecked override`);
        assert.ok(!html.includes('hf-return'), `/ui/${flow} carries no return address`);
      }
      // The harness allows 127.0.0.1: the checked value is written as the URL parser reads it, escaped.
      const allowed = await (
        await page('/ui/receipt', { postOAuthURLOverride: 'http://127.0.0.1:9/back?a=1&b="><script>x</script>' })
      ).text();
      const meta = /<meta name="hf-return" content="([^"]*)">/.exec(allowed);
      assert.ok(meta, allowed);
      assert.equal(meta[1], 'http://127.0.0.1:9/back?a=1&amp;b=%22%3E%3Cscript%3Ex%3C/script%3E');
      assert.ok(!allowed.includes('<script>x'), 'nothing of the override is HTML');
      for (const raw of ['javascript:alert(1)', 'http://127.0.0.1.evil.example/', '//127.0.0.1/x', 'http://user@127.0.0.1/']) {
        assert.ok(!(await (await page('/ui/receipt', { postOAuthURLOverride: raw })).text()).includes('hf-return'), raw);
      }
      assert.ok(!(await (await page('/ui/receipt', 'not an object')).text()).includes('hf-return'));
    });

    it('refuses an override off the list at /ui/appauth before spending the link, and writes none into its error page', async () => {
      const buyer = await register(client);
      const link = (await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } })).body.payload
        .redirect as string;
      const path = new URL(link).pathname;
      const res = await fetch(
        `${h().baseUrl}${path}?flow=transaction-history&config=${encodeURIComponent(JSON.stringify({ postOAuthURLOverride: 'https://evil.example/' }))}`,
      );
      assert.equal(res.status, 400);
      const html = await res.text();
      assert.match(html, /<meta name="hf-error" content="redirect_not_allowed">/);
      assert.ok(!html.includes('evil.example'));
    });
  });

  describe("a flow's scopes", () => {
    it('opens the KYC and payout flows only for a session that carries their scopes', async () => {
      const { ALL_SCOPES } = await import('../../src/auth/auth.rules.js');
      const narrow = await newClient({ scopes: ALL_SCOPES.filter((s) => s !== 'read_kyc' && s !== 'write_payment_methods') });
      const user = await register(narrow);
      const open = async (token: string, flow: string) => {
        const redirect = (await call('POST', '/authorize/user', { token, body: { account_id: user.account_id } })).body.payload.redirect;
        const url = new URL(redirect);
        return fetch(`${h().baseUrl}${url.pathname}?flow=${flow}`, { redirect: 'manual' });
      };
      for (const flow of ['kyc', 'payout']) {
        const refused = await open(narrow.token, flow);
        assert.equal(refused.status, 403, flow);
        assert.match(await refused.text(), /<meta name="hf-error" content="flow_not_allowed">/);
        assert.ok(!refused.headers.get('location'), 'no token handed out');
      }
      const history = await open(narrow.token, 'transaction-history');
      assert.equal(history.status, 303, 'the flows that need nothing named still open');
      // The client holds both scopes: its sessions open both flows, with a token in the fragment.
      const user2 = await register(client);
      for (const flow of ['kyc', 'payout']) {
        const redirect = (await call('POST', '/authorize/user', { token: client.token, body: { account_id: user2.account_id } })).body
          .payload.redirect;
        const res = await fetch(`${h().baseUrl}${new URL(redirect).pathname}?flow=${flow}`, { redirect: 'manual' });
        assert.equal(res.status, 303, flow);
        assert.match(res.headers.get('location') ?? '', new RegExp(`^/ui/${flow}\\?.*#token=`));
      }
    });
  });

  describe('who is signed in (GET /ui/session)', () => {
    it("answers a user token's own account and username, and nothing to a client token or none", async () => {
      const username = `<img src=x onerror=alert(1)> ${Date.now()}`;
      const buyer = await register(client, { username, email: { address: `xss.${Date.now()}@example.com` } });
      const token = (
        await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id, return_token: true } })
      ).body.payload.token.access_token as string;
      const res = await fetch(`${h().baseUrl}/ui/session`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(await res.json(), {
        status: 'Success',
        message: [],
        codes: [],
        payload: { account_id: buyer.account_id, username },
      });
      const asClient = await fetch(`${h().baseUrl}/ui/session`, { headers: { authorization: `Bearer ${client.token}` } });
      assert.equal(asClient.status, 401);
      assert.deepEqual((await asClient.json()).codes, ['UNAUTHORIZED']);
      const none = await fetch(`${h().baseUrl}/ui/session`);
      assert.equal(none.status, 401);
      assert.equal((await none.json()).status, 'Failure');
      const forged = await fetch(`${h().baseUrl}/ui/session`, { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } });
      assert.equal(forged.status, 401);
    });
  });

  describe('the staging demo shop', () => {
    it('refuses cross-site posts (403 in the error envelope) and takes same-origin ones', async () => {
      const demo = await newClient({ tosSigning: true });
      const app = await startExtraApp({ demoClientId: demo.clientId });
      try {
        const host = new URL(app.baseUrl).host;
        const post = (path: string, headers: Record<string, string>) => fetch(`${app.baseUrl}${path}`, { method: 'POST', headers });
        for (const path of ['/ui/demo/checkout', '/ui/demo/session']) {
          for (const headers of <Record<string, string>[]>[
            // A cross-site form post, as browsers send it.
            { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'application/x-www-form-urlencoded' },
            { origin: 'https://evil.example' },
            { origin: 'null' },
            // A sibling origin of the same site is still another origin.
            { origin: `http://localhost:${new URL(app.baseUrl).port}`, 'sec-fetch-site': 'same-site' },
            // Sec-Fetch-Site decides when a browser sends it, whatever Origin says.
            { origin: app.baseUrl, 'sec-fetch-site': 'cross-site' },
            // Neither header: nothing shows the post comes from the demo page.
            {},
          ]) {
            const res = await post(path, headers);
            assert.equal(res.status, 403, `${path} ${JSON.stringify(headers)}`);
            assert.deepEqual(await res.json(), {
              status: 'Failure',
              message: ['The demo shop takes posts from its own page only.'],
              codes: ['CROSS_SITE_REQUEST'],
              payload: null,
            });
          }
          for (const headers of <Record<string, string>[]>[
            { origin: app.baseUrl, 'sec-fetch-site': 'same-origin' },
            { origin: `http://${host}` },
          ]) {
            const res = await post(path, headers);
            assert.equal(res.status, 200, `${path} ${JSON.stringify(headers)}: ${await res.clone().text()}`);
            assert.match((await res.json()).redirect, /^\/ui\/appauth\//);
          }
        }
        // The configured public address is the demo page's origin too (behind a proxy that rewrites Host).
        const proxied = await post('/ui/demo/session', { origin: 'http://localhost:3000', host: 'internal:1' });
        assert.equal(proxied.status, 200);
      } finally {
        await app.close();
      }
    });
  });
});
