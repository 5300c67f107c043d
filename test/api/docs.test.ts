import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import type { Browser, Page } from 'playwright-core';
import { ALL_SCOPES } from '../../src/auth/auth.rules.js';
import { apiDocumentNames, httpMethods, openapiDir, type OpenApiDocument } from '../../src/http/openapi.js';
import { call, h, newClient, register, startExtraApp } from '../support/harness.js';
import { launchChromium } from '../support/browser.js';

/** A document as /openapi serves it, parsed as Swagger UI reads it (its $refs left alone). */
const served = async (name: string) =>
  (await $RefParser.parse(`${h().baseUrl}/openapi/${name}.yaml`, {
    resolve: { http: { safeUrlResolver: false } }, // the test server is on the loopback address
  })) as unknown as OpenApiDocument;

/** scheme name → the scopes the document's operations (or the document itself) ask of it. */
function schemesUsed(doc: OpenApiDocument): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const requirements = [...(doc.security ?? [])] as Array<Record<string, string[]>>;
  for (const item of Object.values(doc.paths)) {
    for (const method of httpMethods) requirements.push(...(item[method]?.security ?? []));
  }
  for (const requirement of requirements) {
    for (const [scheme, scopes] of Object.entries(requirement)) {
      const set = used.get(scheme) ?? new Set<string>();
      for (const scope of scopes) set.add(scope);
      used.set(scheme, set);
    }
  }
  return used;
}

describe('the API reference at /docs and its documents', function () {
  this.timeout(120_000);

  it('serves each API document with the security schemes its operations use, and only those', async () => {
    for (const name of apiDocumentNames) {
      const doc = await served(name);
      const declared = doc.components?.securitySchemes ?? {};
      const used = schemesUsed(doc);
      assert.deepEqual(Object.keys(declared).sort(), [...used.keys()].sort(), `${name}.yaml: declared vs used schemes`);
      const flow = declared.svc_auth.flows.clientCredentials;
      assert.equal(declared.svc_auth.type, 'oauth2');
      assert.equal(flow.tokenUrl, '/token', `${name}.yaml: client credentials from /token`);
      assert.deepEqual(Object.keys(flow.scopes).sort(), [...used.get('svc_auth')!].sort(), `${name}.yaml: declared vs used scopes`);
      if (declared.user_auth) assert.deepEqual([declared.user_auth.type, declared.user_auth.scheme], ['http', 'bearer']);
    }
  });

  it('describes a scheme, and each scope, the same in every document; together they name every scope', async () => {
    const first = new Map<string, { text: string; from: string }>();
    const agree = (key: string, value: unknown, from: string) => {
      const text = JSON.stringify(value);
      const seen = first.get(key);
      if (seen) assert.equal(text, seen.text, `${key} differs between ${seen.from} and ${from}`);
      else first.set(key, { text, from });
    };
    const scopes = new Set<string>();
    for (const name of apiDocumentNames) {
      for (const [scheme, value] of Object.entries<any>((await served(name)).components!.securitySchemes)) {
        const { flows, ...rest } = value;
        agree(scheme, rest, name);
        for (const [scope, text] of Object.entries(flows?.clientCredentials.scopes ?? {})) {
          agree(`scope ${scope}`, text, name);
          scopes.add(scope);
        }
      }
    }
    assert.deepEqual([...scopes].sort(), [...ALL_SCOPES].sort());
  });

  it('keeps in common.yaml only components another document refers to', async () => {
    // Linting common.yaml alone cannot see these references (redocly.yaml turns that rule off for it).
    const common = (await $RefParser.parse(path.join(openapiDir, 'common.yaml'))) as unknown as OpenApiDocument;
    assert.equal(common.components!.securitySchemes, undefined, 'each API document declares its own schemes');
    const others =
      apiDocumentNames.map((name) => readFileSync(path.join(openapiDir, `${name}.yaml`), 'utf8')).join('\n') +
      readFileSync(path.join(openapiDir, 'common.yaml'), 'utf8');
    for (const [kind, entries] of Object.entries<Record<string, unknown>>(common.components!)) {
      for (const key of Object.keys(entries)) {
        assert.match(others, new RegExp(`#/components/${kind}/${key}'`), `common.yaml: ${kind}/${key} is used nowhere`);
      }
    }
  });

  it('documents the 400 that GET /v1/tos answers to an unknown query parameter', async () => {
    // `call` checks the answer against the document: an undocumented 400 fails here.
    const res = await call('GET', '/v1/tos?version=2');
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { version: ['UNKNOWN_FIELD'] });
  });

  it("sends no Basic challenge with the 401 of /token to a page's script, which would open the browser's login prompt", async () => {
    const client = await newClient();
    const basic = `Basic ${Buffer.from(`${client.clientId}:hfs_wrong`).toString('base64')}`;
    const form = { 'content-type': 'application/x-www-form-urlencoded', authorization: basic };
    const fromPage = await call('POST', '/token', {
      rawBody: 'grant_type=client_credentials',
      headers: { ...form, 'x-requested-with': 'XMLHttpRequest' },
    });
    assert.equal(fromPage.status, 401);
    assert.equal(fromPage.body.error, 'invalid_client');
    assert.equal(fromPage.headers.get('www-authenticate'), null);
    const other = await call('POST', '/token', { rawBody: 'grant_type=client_credentials', headers: form });
    assert.equal(other.status, 401);
    assert.match(other.headers.get('www-authenticate') ?? '', /^Basic /, 'RFC 6749 §5.2 for any other client');
  });

  it('sends a Content-Security-Policy with the reference that allows only its own scripts and forbids framing', async () => {
    for (const url of ['/docs', '/docs/?urls.primaryName=payments', '/docs/swagger-ui-init.js']) {
      const res = await fetch(`${h().baseUrl}${url}`);
      assert.equal(res.status, 200, url);
      const policy = new Map(
        (res.headers.get('content-security-policy') ?? '').split(';').map((d) => {
          const [name, ...sources] = d.trim().split(/\s+/);
          return [name, sources] as const;
        }),
      );
      assert.deepEqual(policy.get('frame-ancestors'), ["'none'"], url);
      assert.deepEqual(policy.get('default-src'), ["'none'"], url);
      assert.deepEqual(policy.get('script-src'), ["'self'"], `${url}: no inline or evaluated script`);
      assert.deepEqual(policy.get('connect-src'), ["'self'"], url);
      for (const sources of policy.values()) {
        for (const broad of ['*', "'unsafe-inline'", "'unsafe-eval'", 'http:', 'https:'])
          assert.ok(!sources.includes(broad), `${url}: ${broad}`);
      }
      assert.equal(res.headers.get('x-frame-options'), 'DENY', url);
    }
  });

  describe('in Chromium', () => {
    let browser: Browser;
    /** What the pages' Content-Security-Policy refused: none of Swagger UI's own work may be. */
    const violations: string[] = [];
    before(async () => {
      browser = await launchChromium();
      const newPage = browser.newPage.bind(browser);
      browser.newPage = async (...args) => {
        const page = await newPage(...args);
        await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
        await page.addInitScript(() => {
          document.addEventListener('securitypolicyviolation', (e) =>
            (window as unknown as { reportViolation(v: string): void }).reportViolation(
              `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`,
            ),
          );
        });
        return page;
      };
    });
    afterEach(() => {
      assert.deepEqual(violations.splice(0), [], 'the Content-Security-Policy of /docs refused nothing');
    });
    after(async () => {
      await browser?.close();
    });

    it('offers Authorize on the page of every document, with the schemes that document declares', async () => {
      const page = await browser.newPage();
      try {
        // Through the links `GET /` gives.
        const home = await call('GET', '/');
        for (const { name, docs } of home.body.payload.openapi as Array<{ name: string; docs: string }>) {
          await page.goto(`${h().baseUrl}${docs}`);
          await page.waitForSelector(`.information-container .title:has-text("${(await served(name)).info.title}")`);
          await page.click('.auth-wrapper button.authorize');
          const schemes = await page.locator('.modal-ux .auth-container h4').allTextContents();
          const expected = Object.keys((await served(name)).components!.securitySchemes).sort();
          assert.deepEqual(schemes.map((s) => s.split(/\s/)[0]).sort(), expected, `${name}: the Authorize dialog`);
          await page.click('.modal-ux button.close-modal');
        }
      } finally {
        await page.close();
      }
    });

    /** Opens the page of `name` and submits the client credentials in its Authorize dialog. */
    const authorize = async (page: Page, name: string, clientId: string, secret: string) => {
      await page.goto(`${h().baseUrl}/docs/?urls.primaryName=${name}`);
      await page.click('.auth-wrapper button.authorize');
      const svc = page.locator('.modal-ux .auth-container', { hasText: 'svc_auth' });
      await svc.locator('input[data-name=clientId]').fill(clientId);
      await svc.locator('input[data-name=clientSecret]').fill(secret);
      await svc.locator('button.authorize').click();
      // Swagger UI shows Logout once it holds a token, and the error otherwise.
      await svc.locator('button:has-text("Logout"), .errors').first().waitFor({ timeout: 10_000 });
      return svc;
    };

    it('shows a wrong secret as an error in the Authorize dialog', async () => {
      const client = await newClient();
      const page = await browser.newPage();
      try {
        const svc = await authorize(page, 'accounts', client.clientId, 'hfs_wrong');
        assert.match((await svc.locator('.errors').allTextContents()).join(' '), /Unauthorized|invalid_client/);
      } finally {
        await page.close();
      }
    });

    it('gets a token with client credentials through Authorize, and "Try it out" sends it', async () => {
      const client = await newClient();
      const created = await call('POST', '/v2/webhooks', {
        token: client.token,
        body: { url: 'https://hooks.example.com/docs', events: ['invoice-completed'] },
      });
      assert.equal(created.status, 201, created.text);
      const page = await browser.newPage();
      try {
        const svc = await authorize(page, 'webhooks', client.clientId, client.clientSecret);
        assert.deepEqual(await svc.locator('.errors').allTextContents(), [], 'the token request succeeded');
        await page.click('.modal-ux button.close-modal');

        const operation = page.locator('[id$=listWebhooks]');
        await operation.locator('.opblock-summary').click();
        await operation.locator('button.try-out__btn').click();
        await operation.locator('button.execute').click();
        const status = operation.locator('.live-responses-table tbody .response-col_status').first();
        await status.waitFor();
        assert.equal((await status.textContent())?.trim(), '200');
        const body = await operation.locator('.live-responses-table tbody .response-col_description pre').first().textContent();
        assert.match(body ?? '', new RegExp(created.body.payload.id as string), "the list is the client's own");
      } finally {
        await page.close();
      }
    });

    it('takes a pasted user password token as the bearer, and "Try it out" sends it', async () => {
      const client = await newClient();
      const account = await register(client);
      const user = await call('POST', '/authorize/user', {
        token: client.token,
        body: { account_id: account.account_id, return_token: true },
      });
      assert.equal(user.status, 200, user.text);
      const page = await browser.newPage();
      try {
        await page.goto(`${h().baseUrl}/docs/?urls.primaryName=payments`);
        await page.click('.auth-wrapper button.authorize');
        const bearer = page.locator('.modal-ux .auth-container', { hasText: 'user_auth' });
        await bearer.locator('input').fill(user.body.payload.token.access_token);
        await bearer.locator('button.authorize').click();
        await bearer.locator('button:has-text("Logout")').waitFor({ timeout: 10_000 });
        await page.click('.modal-ux button.close-modal');

        const operation = page.locator('[id$=listPaymentMethods]');
        await operation.locator('.opblock-summary').click();
        await operation.locator('button.try-out__btn').click();
        await operation.locator('input[placeholder=account_id]').fill(account.account_id);
        await operation.locator('button.execute').click();
        const status = operation.locator('.live-responses-table tbody .response-col_status').first();
        await status.waitFor();
        assert.equal((await status.textContent())?.trim(), '200');
        const body = await operation.locator('.live-responses-table tbody .response-col_description pre').first().textContent();
        assert.match(body ?? '', /"provider": "wallet"/, "the account's own wallet");
      } finally {
        await page.close();
      }
    });
  });
});

describe('GET /', () => {
  const documents = apiDocumentNames.map((name) => ({ name, url: `/openapi/${name}.yaml`, docs: `/docs?urls.primaryName=${name}` }));

  it('points an API client to the reference, the health URLs and the documents, all of which answer', async () => {
    const res = await call('GET', '/');
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(res.body, {
      status: 'Success',
      message: [],
      codes: [],
      payload: { name: 'holdfast', docs: '/docs', health: '/healthz', ready: '/readyz', openapi: documents },
    });
    for (const url of ['/docs', '/healthz', '/readyz', ...documents.flatMap((d) => [d.url, d.docs])]) {
      const linked = await fetch(`${h().baseUrl}${url}`);
      assert.equal(linked.status, 200, url);
    }
  });

  it('answers a browser with a page of the same links', async () => {
    const res = await call('GET', '/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('vary') ?? '', /Accept/);
    for (const href of ['/docs', '/healthz', '/readyz', ...documents.map((d) => d.url)]) {
      assert.ok(res.text.includes(`href="${href}"`), `links to ${href}`);
    }
    assert.ok(!res.text.includes('/ui/demo'), 'no demo shop here');
  });

  it('links the demo shop where the process serves it', async () => {
    const demo = await newClient();
    const app = await startExtraApp({ demoClientId: demo.clientId });
    try {
      const res = await call('GET', '/', { baseUrl: app.baseUrl });
      assert.equal(res.body.payload.demo, '/ui/demo');
      assert.equal((await fetch(`${app.baseUrl}/ui/demo`)).status, 200);
    } finally {
      await app.close();
    }
  });
});
