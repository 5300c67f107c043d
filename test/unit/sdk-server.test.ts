/**
 * The SDK's server client against a stand-in `fetch` that answers as Holdfast does: what it
 * sends (token, Idempotency-Key, retries) and how it reads the answers (errors, pages, files).
 * The walk-through against a real Holdfast is test/e2e/sdk-package.test.ts.
 */
import assert from 'node:assert/strict';
import {
  HoldfastError,
  HoldfastServer,
  isValidWebhook,
  signWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../../packages/sdk/src/server.js';
import { signatureHeader } from '../../src/webhooks/webhook.rules.js';

interface Sent {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}

type Answer = Response | Error | ((sent: Sent) => Response | Error);

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const envelope = (status: number, payload: unknown, codes: string[] = [], message: string[] = [], headers: Record<string, string> = {}) =>
  json(status, { status: status < 400 ? 'Success' : 'Failure', message, codes, payload }, headers);
const tokenAnswer = (n: number, expiresIn = 3600) => json(200, { access_token: `tok-${n}`, token_type: 'Bearer', expires_in: expiresIn });

/** A stand-in `fetch`: `/token` answers a numbered token unless `token` says otherwise; other calls take the queued answers in order. */
function standIn(answers: Answer[], token?: (n: number) => Response) {
  const sent: Sent[] = [];
  let tokens = 0;
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const s: Sent = {
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
      body: init.body === undefined || init.body === null ? undefined : String(init.body),
    };
    sent.push(s);
    if (s.url.pathname === '/token') return (token ?? tokenAnswer)(++tokens);
    const next = answers.shift();
    if (next === undefined) throw new Error(`unexpected call ${s.method} ${s.url}`);
    const answer = typeof next === 'function' ? next(s) : next;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const calls = () => sent.filter((s) => s.url.pathname !== '/token');
  const tokenRequests = () => sent.filter((s) => s.url.pathname === '/token');
  return { fetch: fetch as typeof globalThis.fetch, sent, calls, tokenRequests };
}

const server = (f: ReturnType<typeof standIn>, extra: Partial<ConstructorParameters<typeof HoldfastServer>[0]> = {}) =>
  new HoldfastServer({
    baseUrl: 'http://holdfast.test/',
    clientId: 'cli_1',
    clientSecret: 'hfs_secret',
    fetch: f.fetch,
    retryBaseMs: 1,
    ...extra,
  });

describe('SDK server client: the client token', () => {
  it('asks POST /token with client credentials as a form, once for concurrent calls, and reuses it', async () => {
    const f = standIn([envelope(200, {}), envelope(200, {}), envelope(200, {})]);
    const hf = server(f, { scope: ['read_accounts', 'write_registrations'] });
    await Promise.all([hf.getCurrentTos(), hf.getCurrentTos(), hf.getCurrentTos()]);
    assert.equal(f.tokenRequests().length, 1);
    const form = new URLSearchParams(f.tokenRequests()[0].body);
    assert.equal(f.tokenRequests()[0].headers['content-type'], 'application/x-www-form-urlencoded');
    assert.deepEqual(Object.fromEntries(form), {
      grant_type: 'client_credentials',
      client_id: 'cli_1',
      client_secret: 'hfs_secret',
      scope: 'read_accounts write_registrations',
    });
    assert.ok(f.calls().every((c) => c.headers.authorization === 'Bearer tok-1'));
  });

  it('renews the token before it expires, and once when Holdfast answers 401 to it (the same request again)', async () => {
    const f = standIn([envelope(200, {}), envelope(401, null, ['UNAUTHORIZED']), envelope(200, { id: 'esc_1' })], (n) =>
      tokenAnswer(n, n === 1 ? 30 : 3600),
    );
    const hf = server(f);
    await hf.getCurrentTos();
    // 30 s left is within the default minute's margin: the next call asks again.
    await hf.payEscrow({ path: { escrow_id: 'esc_1' } }, { idempotencyKey: 'k-1' });
    assert.deepEqual(
      f.calls().map((c) => c.headers.authorization),
      ['Bearer tok-1', 'Bearer tok-2', 'Bearer tok-3'],
    );
    assert.deepEqual(
      f
        .calls()
        .slice(1)
        .map((c) => c.headers['idempotency-key']),
      ['k-1', 'k-1'],
    );
  });

  it('throws a HoldfastError with the OAuth error when the credentials are refused', async () => {
    const f = standIn([], () => json(401, { error: 'invalid_client', error_description: 'Client authentication failed.' }));
    await assert.rejects(server(f).getCurrentTos(), (err: unknown) => {
      assert.ok(err instanceof HoldfastError);
      assert.deepEqual(
        [err.status, err.code, err.operationId, err.messages],
        [401, 'invalid_client', 'issueToken', ['Client authentication failed.']],
      );
      return true;
    });
  });
});

describe('SDK server client: writes, retries and errors', () => {
  it('sends a new Idempotency-Key with each write and none with a read; paths are encoded, absent query values left out', async () => {
    const f = standIn([
      envelope(200, { account_id: 'acct_1' }),
      envelope(200, { account_id: 'acct_2' }),
      envelope(200, { total: 0, events: [] }),
    ]);
    const hf = server(f);
    await hf.registerAccount({ body: { username: 'a', email: { address: 'a@example.com' } } });
    await hf.registerAccount({ body: { username: 'b', email: { address: 'b@example.com' } } });
    await hf.listEvents({ query: { type: 'kyc-webhook', account_id: undefined, limit: 5 } });
    const [a, b, list] = f.calls();
    assert.match(a.headers['idempotency-key'], /^[0-9a-f-]{36}$/);
    assert.notEqual(a.headers['idempotency-key'], b.headers['idempotency-key']);
    assert.equal(list.headers['idempotency-key'], undefined);
    assert.equal(list.url.search, '?type=kyc-webhook&limit=5');
    assert.deepEqual(JSON.parse(a.body!), { username: 'a', email: { address: 'a@example.com' } });
    await assert.rejects(hf.getEscrow({ path: { escrow_id: '' } }), TypeError);
    const g = standIn([envelope(200, {})]);
    await server(g).getAccountProfile({ path: { account_id: 'a/b?c' } });
    assert.equal(g.calls()[0].url.pathname, '/v1/user-info/a%2Fb%3Fc');
  });

  it('retries 503, 429 (waiting its Retry-After), 409 IDEMPOTENCY_KEY_IN_USE and a lost connection with the same key', async () => {
    const f = standIn([
      envelope(503, null, ['UNAVAILABLE'], [], { 'retry-after': '0' }),
      envelope(429, null, ['RATE_LIMITED'], [], { 'retry-after': '1' }),
      envelope(409, null, ['IDEMPOTENCY_KEY_IN_USE']),
      new TypeError('fetch failed'),
      envelope(200, { id: 'esc_1', status: 'ESCROWED' }),
    ]);
    const started = Date.now();
    const paid = await server(f, { maxRetries: 4 }).payEscrow({ path: { escrow_id: 'esc_1' } });
    assert.equal(paid.status, 'ESCROWED');
    assert.ok(Date.now() - started >= 1000, 'waited the second Retry-After');
    const keys = f.calls().map((c) => c.headers['idempotency-key']);
    assert.equal(keys.length, 5);
    assert.equal(new Set(keys).size, 1, 'one key for the write and its retries');
  });

  it('gives up after maxRetries with the last answer as a HoldfastError, and never retries a 400 or 409 of another code', async () => {
    const f = standIn([
      envelope(503, null, ['UNAVAILABLE'], ['Try again.'], { 'retry-after': '0' }),
      envelope(503, null, ['UNAVAILABLE'], ['Try again.'], { 'retry-after': '7' }),
    ]);
    await assert.rejects(server(f, { maxRetries: 1, maxRetryDelayMs: 5 }).getCurrentTos(), (err: unknown) => {
      assert.ok(err instanceof HoldfastError);
      assert.deepEqual([err.status, err.code, err.retryAfter, err.messages], [503, 'UNAVAILABLE', 7, ['Try again.']]);
      return true;
    });
    const g = standIn([
      envelope(400, { errors: { 'email.address': ['INVALID_FORMAT'], colour: ['UNKNOWN_FIELD'] } }, ['INPUT_ERROR'], ['Invalid input.'], {
        'x-request-id': 'req-1',
      }),
      envelope(409, { id: 'esc_1', status: 'CANCELLED' }, ['ESCROW_STATE_ERROR']),
    ]);
    const hf = server(g);
    await assert.rejects(hf.registerAccount({ body: { username: 'a', email: { address: 'x' } } }), (err: unknown) => {
      assert.ok(err instanceof HoldfastError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'INPUT_ERROR');
      assert.deepEqual(err.fields, { 'email.address': ['INVALID_FORMAT'], colour: ['UNKNOWN_FIELD'] });
      assert.equal(err.requestId, 'req-1');
      assert.equal(err.operationId, 'registerAccount');
      assert.match(
        err.message,
        /registerAccount: HTTP 400 INPUT_ERROR — Invalid input\. \(email\.address: INVALID_FORMAT; colour: UNKNOWN_FIELD\)/,
      );
      return true;
    });
    await assert.rejects(hf.commitEscrow({ path: { escrow_id: 'esc_1' } }), (err: unknown) => {
      assert.ok(err instanceof HoldfastError);
      assert.deepEqual([err.status, err.code, err.payload], [409, 'ESCROW_STATE_ERROR', { id: 'esc_1', status: 'CANCELLED' }]);
      return true;
    });
    assert.equal(g.calls().length, 2, 'each sent once');
  });

  it('answers the bare body where the operation answers bare, and the whole response through request()', async () => {
    const f = standIn([
      json(200, { account_id: 'acct_1', blocks: [] }),
      envelope(202, { command_id: 'cmd_1' }, [], [], { 'x-command-id': 'cmd_1' }),
    ]);
    const hf = server(f);
    assert.deepEqual(await hf.getAccountBlocks({ path: { account_id: 'acct_1' } }), { account_id: 'acct_1', blocks: [] });
    const res = await hf.request('payEscrow', { path: { escrow_id: 'esc_1' } }, { headers: { prefer: 'respond-async' } });
    assert.equal(res.status, 202);
    assert.equal(res.headers.get('x-command-id'), 'cmd_1');
    assert.equal(f.calls()[1].headers.prefer, 'respond-async');
  });
});

describe('SDK server client: pages and files', () => {
  it('iterates limit/offset pages until the total, one request a page', async () => {
    const events = Array.from({ length: 5 }, (_, i) => ({ id: `evt_${i}` }));
    const f = standIn(
      [0, 2, 4].map((offset) => (s: Sent) => {
        assert.equal(s.url.searchParams.get('offset'), String(offset));
        return envelope(200, { total: 5, events: events.slice(offset, offset + 2) });
      }),
    );
    const ids: string[] = [];
    for await (const event of server(f).paginate('listEvents', { query: { limit: 2, type: 'kyc-webhook' } })) ids.push(event.id);
    assert.deepEqual(ids, ['evt_0', 'evt_1', 'evt_2', 'evt_3', 'evt_4']);
    assert.ok(f.calls().every((c) => c.url.searchParams.get('type') === 'kyc-webhook' && c.url.searchParams.get('limit') === '2'));
  });

  it('stops where the API stops paging (its largest offset), and follows the starting_after cursor while has_more', async () => {
    const f = standIn([
      (s) => envelope(200, { total: 50_000, invoices: [{ invoice_id: `inv_${s.url.searchParams.get('offset')}` }] }),
      (s) => envelope(200, { total: 50_000, invoices: [{ invoice_id: `inv_${s.url.searchParams.get('offset')}` }] }),
    ]);
    const seen: string[] = [];
    for await (const invoice of server(f).paginate('listAccountInvoices', {
      path: { account_id: 'acct_1' },
      query: { limit: 1, offset: 9_999 },
    }))
      seen.push(invoice.invoice_id);
    assert.deepEqual(seen, ['inv_9999', 'inv_10000']);
    const g = standIn([
      envelope(200, { has_more: true, invoices: [{ invoice_id: 'inv_3' }, { invoice_id: 'inv_2' }] }),
      (s) => {
        assert.equal(s.url.searchParams.get('starting_after'), 'inv_2');
        return envelope(200, { has_more: false, invoices: [{ invoice_id: 'inv_1' }] });
      },
    ]);
    const cursor: string[] = [];
    for await (const invoice of server(g).paginate('listInvoices', { path: { account_id: 'acct_1' }, query: { limit: 2 } }))
      cursor.push(invoice.invoice_id);
    assert.deepEqual(cursor, ['inv_3', 'inv_2', 'inv_1']);
  });

  it('reads an export as it arrives; an error before the first byte is a HoldfastError', async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('invoice_id,amount\r\ninv_1,'));
        controller.enqueue(encoder.encode('1234\r\n'));
        controller.close();
      },
    });
    const f = standIn([
      new Response(body, { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8' } }),
      envelope(400, { errors: { kind: ['NOT_AVAILABLE'] } }, ['INPUT_ERROR']),
    ]);
    const hf = server(f);
    const file = await hf.exportRows({ path: { kind: 'invoices' } });
    assert.equal(file.contentType, 'text/csv; charset=utf-8');
    const chunks: string[] = [];
    for await (const chunk of file) chunks.push(chunk);
    assert.deepEqual(chunks, ['invoice_id,amount\r\ninv_1,', '1234\r\n']);
    await assert.rejects(
      hf.exportRows({ path: { kind: 'audit' } }),
      (err: unknown) => err instanceof HoldfastError && err.fields.kind[0] === 'NOT_AVAILABLE',
    );
  });
});

describe('SDK server client: webhook signatures', () => {
  const secret = `whsec_${Buffer.from('a-webhook-secret-of-32-bytes-!!!').toString('base64')}`;
  const rotated = `whsec_${Buffer.from('the-new-secret-after-a-rotation!').toString('base64')}`;
  const body = JSON.stringify({
    id: 'evt_1',
    event_name: 'kyc-webhook',
    message: {},
    created: '2026-01-01T00:00:00Z',
    integrator: 'int_1',
  });
  const now = 1_800_000_000_000;
  const ts = now / 1000;
  const headers = (signature: string, timestamp = ts) => ({
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
  });

  it('signs as Holdfast signs its deliveries, and verifies such a delivery (plain headers, Fetch Headers, bytes)', () => {
    assert.equal(signWebhook(secret, 'evt_1', ts, body), signatureHeader([secret], 'evt_1', ts, body));
    const signed = headers(signatureHeader([secret], 'evt_1', ts, body));
    assert.equal(verifyWebhook({ secret, headers: signed, body, now }).event_name, 'kyc-webhook');
    assert.equal(verifyWebhook({ secret, headers: new Headers(signed), body: new TextEncoder().encode(body), now }).id, 'evt_1');
  });

  it('takes either signature during a rotation, and either secret given', () => {
    const both = headers(signatureHeader([rotated, secret], 'evt_1', ts, body));
    assert.ok(isValidWebhook({ secret, headers: both, body, now }));
    assert.ok(isValidWebhook({ secret: rotated, headers: both, body, now }));
    const old = headers(signatureHeader([secret], 'evt_1', ts, body));
    assert.ok(isValidWebhook({ secret: [rotated, secret], headers: old, body, now }));
  });

  it('refuses a changed body, another secret, a stale or future timestamp, and missing headers', () => {
    const signed = headers(signatureHeader([secret], 'evt_1', ts, body));
    const refused = (options: Parameters<typeof verifyWebhook>[0], message: RegExp) =>
      assert.throws(
        () => verifyWebhook(options),
        (err: unknown) => err instanceof WebhookVerificationError && message.test(err.message),
      );
    refused({ secret, headers: signed, body: body.replace('kyc', 'kyx'), now }, /no webhook-signature matches/);
    refused({ secret: rotated, headers: signed, body, now }, /no webhook-signature matches/);
    refused({ secret, headers: signed, body, now: now + 301_000 }, /more than 300 s/);
    refused({ secret, headers: signed, body, now: now - 301_000 }, /more than 300 s/);
    assert.ok(isValidWebhook({ secret, headers: signed, body, now: now + 301_000, toleranceSeconds: 600 }));
    refused({ secret, headers: { 'webhook-id': 'evt_1' }, body, now }, /missing/);
    refused({ secret, headers: { ...signed, 'webhook-signature': 'v1,' }, body, now }, /no webhook-signature matches/);
    refused({ secret, headers: { ...signed, 'webhook-timestamp': '1e9' }, body, now }, /invalid webhook-timestamp/);
  });
});
