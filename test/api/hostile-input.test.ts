import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH } from '../../src/http/hostile-input.js';
import { MAX_NAMED_FIELDS } from '../../src/http/request-validation.js';
import { call, newClient, register, unique, type TestClient } from '../support/harness.js';
import { escrowBody } from '../support/operations.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** `{"a":{"a":…1…}}`, `levels` objects deep, as text (JSON.stringify itself overflows on thousands of levels). */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** A JSON body whose `"@"` placeholder is replaced by raw JSON text (escapes kept as sent). */
function withRaw(body: unknown, raw: string): string {
  const text = JSON.stringify(body);
  assert.ok(text.includes('"@"'));
  return text.replace('"@"', raw);
}

describe('hostile input is refused with 400 naming the field, before any work', () => {
  let client: TestClient;
  let accountId: string;
  let walletPm: string;
  before(async () => {
    client = await newClient();
    accountId = (await register(client)).account_id;
    const methods = await call('GET', `/v1/${accountId}/payment_methods`, { token: client.token });
    walletPm = methods.body.payload.find((m: { provider: string }) => m.provider === 'wallet').id;
  });

  const escrow = (metadata: unknown) => ({ ...escrowBody(accountId, walletPm), metadata });
  const postEscrow = (rawBody: string, headers: Record<string, string> = {}) =>
    call('POST', '/v2/escrow', { token: client.token, rawBody, headers: { ...JSON_TYPE, ...headers } });

  describe('nesting depth', () => {
    it(`JSON nested 5,000 levels deep (30 KB) → 400 TOO_DEEP naming the field and the limit (${MAX_JSON_DEPTH}), not a stack overflow`, async () => {
      const raw = withRaw(escrow('@'), nested(5000));
      assert.ok(raw.length > 30_000);
      const res = await postEscrow(raw);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.codes, ['INPUT_ERROR']);
      assert.match(res.body.message[0], new RegExp(`deeper than ${MAX_JSON_DEPTH} levels`));
      // The body is level 1 and `metadata` level 2: the first object past the limit is named by its path.
      const field = ['metadata', ...Array(MAX_JSON_DEPTH - 1).fill('a')].join('.');
      assert.deepEqual(res.body.payload.errors, { [field]: ['TOO_DEEP'] });
    });

    it(`metadata nested to exactly ${MAX_JSON_DEPTH} levels (counting the body) is accepted; one more is not`, async () => {
      // The body is level 1, so metadata holds MAX_JSON_DEPTH - 1 levels.
      const ok = await postEscrow(withRaw(escrow('@'), nested(MAX_JSON_DEPTH - 1)));
      assert.equal(ok.status, 201, ok.text);
      const refused = await postEscrow(withRaw(escrow('@'), nested(MAX_JSON_DEPTH)));
      assert.equal(refused.status, 400, refused.text);
      assert.deepEqual(Object.values(refused.body.payload.errors), [['TOO_DEEP']]);
    });

    it('deep arrays, a deep body and a deep unknown field are refused alike (no 5xx), with or without an Idempotency-Key', async () => {
      const deepArray = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const cases: Array<[string, string, string]> = [
        ['/v2/escrow', withRaw(escrow('@'), deepArray), 'metadata'],
        ['/v2/escrow', deepArray, '0'],
        ['/register', `{"surprise":${nested(5000)}}`, 'surprise'],
      ];
      for (const [path, rawBody, first] of cases) {
        for (const headers of [JSON_TYPE, { ...JSON_TYPE, 'idempotency-key': unique('deep-') }]) {
          const res = await call('POST', path, { token: client.token, rawBody, headers });
          assert.equal(res.status, 400, `${path} ${first}: ${res.text.slice(0, 200)}`);
          const [field, codes] = Object.entries(res.body.payload.errors)[0];
          assert.equal(field.split('.')[0], first);
          assert.deepEqual(codes, ['TOO_DEEP']);
        }
      }
    });
  });

  describe('NUL and unpaired surrogates', () => {
    it('a NUL in a metadata string → 400 INVALID_CHARACTER naming metadata.note (it used to reach PostgreSQL)', async () => {
      const res = await postEscrow(JSON.stringify(escrow({ note: 'a\u0000b' })));
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { 'metadata.note': ['INVALID_CHARACTER'] });
      assert.match(res.body.message[0], /NUL/);
    });

    it('a NUL in a key, and in a string inside an array, each named by its path', async () => {
      const res = await postEscrow(JSON.stringify(escrow({ 'k\u0000': 1, list: ['fine', 'x\u0000'] })));
      assert.equal(res.status, 400, res.text);
      // The key's own NUL is echoed as U+FFFD.
      assert.deepEqual(res.body.payload.errors, { 'metadata.k\ufffd': ['INVALID_CHARACTER'], 'metadata.list.1': ['INVALID_CHARACTER'] });
    });

    for (const [label, escaped] of [
      ['a lone high surrogate', '\\ud800'],
      ['a lone low surrogate', '\\udc00'],
      ['a reversed pair', '\\ude00\\ud83d'],
    ]) {
      it(`${label} in metadata → 400 naming metadata.note`, async () => {
        const res = await postEscrow(withRaw(escrow({ note: '@' }), `"x${escaped}y"`));
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body.payload.errors, { 'metadata.note': ['INVALID_CHARACTER'] });
      });
    }

    it('a lone surrogate in a username → 400 naming username; no account is made', async () => {
      const name = unique('sur');
      const res = await call('POST', '/register', {
        token: client.token,
        rawBody: withRaw({ username: '@', email: { address: `${name}@example.com` } }, `"${name}\\ud800"`),
        headers: JSON_TYPE,
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { username: ['INVALID_CHARACTER'] });
      const found = await call('GET', `/v1/user-info/search?username=${encodeURIComponent(`${name}\ufffd`)}`, { token: client.token });
      assert.equal(found.status, 404, found.text);
    });

    it('a lone surrogate in an update → 400 naming full_name (it used to be stored as U+FFFD)', async () => {
      const res = await call('PUT', `/user-info/${accountId}`, {
        token: client.token,
        rawBody: '{"full_name":"Ada\\udc00"}',
        headers: JSON_TYPE,
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { full_name: ['INVALID_CHARACTER'] });
    });

    it('emoji and other characters outside the BMP (proper surrogate pairs) are accepted and echoed intact', async () => {
      const text = 'Ada 😀 𝄞 👩🏽‍🚀 漢字';
      const created = await postEscrow(JSON.stringify(escrow({ note: text, [text]: [text] })));
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.payload.metadata, { note: text, [text]: [text] });
      const read = await call('GET', `/v2/escrow/${created.body.payload.id}`, { token: client.token });
      assert.deepEqual(read.body.payload.metadata, { note: text, [text]: [text] });
      // Escaped pairs are the same characters.
      const escaped = await postEscrow(withRaw(escrow({ note: '@' }), '"\\ud83d\\ude00"'));
      assert.equal(escaped.status, 201, escaped.text);
      assert.equal(escaped.body.payload.metadata.note, '😀');

      const name = unique('emoji');
      const reg = await call('POST', '/register', {
        token: client.token,
        body: { username: `${name} 😀`, full_name: text, email: { address: `${name}@example.com` } },
      });
      assert.equal(reg.status, 200, reg.text);
      assert.equal(reg.body.payload.full_name, text);
      const profile = await call('GET', `/v1/user-info/${reg.body.payload.account_id}`, { token: client.token });
      assert.equal(profile.body.payload.username, `${name} 😀`);
    });

    it('refused before any work: the Idempotency-Key of a refused request is not spent', async () => {
      const key = unique('idem-');
      const refused = await postEscrow(JSON.stringify(escrow({ note: '\u0000' })), { 'idempotency-key': key });
      assert.equal(refused.status, 400, refused.text);
      const valid = await postEscrow(JSON.stringify(escrow({ note: 'fine' })), { 'idempotency-key': key });
      assert.equal(valid.status, 201, valid.text);
      assert.equal(valid.headers.get('idempotent-replayed'), null);
    });

    it('a NUL in a query parameter → 400 naming it', async () => {
      const res = await call('GET', `/v1/user-info/search?username=a%00b`, { token: client.token });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { username: ['INVALID_CHARACTER'] });
    });

    it('POST /token: a NUL in a form, JSON or query credential → 400 invalid_request, as RFC 6749 answers', async () => {
      const form = `grant_type=client_credentials&client_id=${client.clientId}%00&client_secret=${client.clientSecret}`;
      const json = JSON.stringify({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: `${client.clientSecret}\u0000`,
      });
      for (const [path, rawBody, type] of [
        ['/token', form, 'application/x-www-form-urlencoded'],
        ['/token', json, 'application/json'],
        [`/token?${form}`, '', 'application/x-www-form-urlencoded'],
      ]) {
        const res = await call('POST', path, { rawBody, headers: { 'content-type': type } });
        assert.equal(res.status, 400, `${path}: ${res.text}`);
        assert.equal(res.body.error, 'invalid_request');
        assert.match(res.body.error_description, /NUL/);
      }
    });
  });

  describe('huge arrays', () => {
    it(`a body of 100,000 wrong items (near 1 MiB) names at most ${MAX_NAMED_FIELDS} fields, the array's own limit among them`, async () => {
      const items = `[${Array(100_000).fill('{"a":1}').join(',')}]`;
      const res = await postEscrow(withRaw({ ...escrowBody(accountId, walletPm), line_items: '@' }, items));
      assert.equal(res.status, 400);
      const named = Object.keys(res.body.payload.errors);
      assert.equal(named.length, MAX_NAMED_FIELDS);
      assert.deepEqual(res.body.payload.errors.line_items, ['TOO_LONG']);
      // It used to name every item's every field: about 17 MB.
      assert.ok(res.text.length < 20_000, `${res.text.length} bytes`);
    });

    it(`a body of 60,000 fields sent to an operation that takes none names at most ${MAX_NAMED_FIELDS}`, async () => {
      const fields = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`f${i}`, 1]));
      const res = await call('POST', `/v2/escrow/esc_00000000000000000000000000/pay`, { token: client.token, body: fields });
      assert.equal(res.status, 400, res.text.slice(0, 200));
      assert.equal(Object.keys(res.body.payload.errors).length, MAX_NAMED_FIELDS);
    });
  });

  describe('__proto__ and constructor keys', () => {
    it('a __proto__ key cannot fill required fields: the validation sees only own keys', async () => {
      const name = unique('p');
      const top = await call('POST', '/register', {
        token: client.token,
        rawBody: `{"__proto__":{"username":"${name}","email":{"address":"${name}@example.com"}}}`,
        headers: JSON_TYPE,
      });
      assert.equal(top.status, 400, top.text);
      assert.deepEqual(Object.entries(top.body.payload.errors).sort(), [
        ['__proto__', ['UNKNOWN_FIELD']],
        ['email', ['REQUIRED']],
        ['username', ['REQUIRED']],
      ]);
      const nested = await call('POST', '/register', {
        token: client.token,
        rawBody: `{"username":"${name}","email":{"__proto__":{"address":"${name}@example.com"}}}`,
        headers: JSON_TYPE,
      });
      assert.equal(nested.status, 400, nested.text);
      assert.deepEqual(Object.keys(nested.body.payload.errors).sort(), ['email.__proto__', 'email.address']);
      const item = await postEscrow(
        withRaw(
          { ...escrowBody(accountId, walletPm), line_items: '@' },
          '[{"__proto__":{"amount":1,"currency":"USD","transaction_type":"user_to_integrator","product_sku":"s"}}]',
        ),
      );
      assert.equal(item.status, 400, item.text);
      assert.deepEqual(item.body.payload.errors['line_items.0.amount'], ['REQUIRED']);
      assert.equal(({} as Record<string, unknown>).username, undefined);
      assert.equal(({} as Record<string, unknown>).amount, undefined);
    });

    it('a __proto__ key in metadata is data: stored, read back from the database and echoed as an own key, polluting nothing', async () => {
      const created = await postEscrow(withRaw(escrow({ k: '@' }), '{"__proto__":{"polluted":true},"x":1}'));
      assert.equal(created.status, 201, created.text);
      const expected = JSON.parse('{"k":{"__proto__":{"polluted":true},"x":1}}');
      assert.deepEqual(created.body.payload.metadata, expected);
      const escrowRead = await call('GET', `/v2/escrow/${created.body.payload.id}`, { token: client.token });
      assert.deepEqual(escrowRead.body.payload.metadata, expected);
      assert.ok(Object.hasOwn(escrowRead.body.payload.metadata.k, '__proto__'));
      const invoiceRead = await call('GET', `/v2/invoice/${created.body.payload.escrow_invoice_id}`, { token: client.token });
      assert.deepEqual(invoiceRead.body.payload.metadata, expected);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('a key constructor (with prototype under it) is ordinary data in metadata and unknown elsewhere', async () => {
      const created = await postEscrow(withRaw(escrow({ k: '@' }), '{"constructor":{"prototype":{"polluted":true}}}'));
      assert.equal(created.status, 201, created.text);
      assert.deepEqual(created.body.payload.metadata, { k: { constructor: { prototype: { polluted: true } } } });
      const res = await call('POST', '/register', {
        token: client.token,
        rawBody: `{"username":"${unique('c')}","email":{"address":"${unique('c')}@example.com"},"constructor":{"prototype":{"polluted":true}}}`,
        headers: JSON_TYPE,
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, { constructor: ['UNKNOWN_FIELD'] });
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });

  describe('bodies the parser cannot read', () => {
    it('a Content-Encoding whose stream does not decode (gzip, deflate, br) → 400 naming the body, not a 500', async () => {
      for (const [encoding, raw] of [
        ['gzip', 'notgzip'],
        ['deflate', 'x'],
        ['br', 'garbage'],
      ]) {
        const res = await postEscrow(raw, { 'content-encoding': encoding });
        assert.equal(res.status, 400, `${encoding}: ${res.text}`);
        assert.deepEqual(res.body.payload.errors, { body: ['INVALID_VALUE'] }, encoding);
        assert.doesNotMatch(res.text, /header check|Decompression|Z_/, "the parser's own message is not passed on");
      }
    });

    it('a form body with more parameters than the parser takes → 413, on /token and on an API operation', async () => {
      const params = Array.from({ length: 5000 }, (_, i) => `a${i}=1`).join('&');
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const token = await call('POST', '/token', { rawBody: params, headers: form });
      assert.equal(token.status, 413, token.text);
      assert.equal(token.body.error, 'invalid_request');
      const register = await call('POST', '/register', { token: client.token, rawBody: params, headers: form });
      assert.equal(register.status, 413, register.text);
      assert.deepEqual(register.body.codes, ['PAYLOAD_TOO_LARGE']);
    });
  });
});
