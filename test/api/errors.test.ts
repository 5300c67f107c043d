import assert from 'node:assert/strict';
import { openOrm } from '../../src/db/orm.js';
import { httpMethods, loadMergedDocument } from '../../src/http/openapi.js';
import { call, h, newClient, register, startExtraApp, unique, type ApiResponse, type TestClient } from '../support/harness.js';

function assertNothingInternal(text: string): void {
  for (const leak of [/at \w+ \(/, /node_modules/, /\.ts:\d+/, /select |insert into|update \w+ set/i, /Exception/, /hfs_/]) {
    assert.doesNotMatch(text, leak);
  }
}

describe('errors always come in the envelope', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it('malformed JSON → 400 INPUT_ERROR naming the body', async () => {
    const res = await call('POST', '/register', {
      token: client.token,
      rawBody: '{"username": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.payload.errors, { body: ['MALFORMED_JSON'] });
  });

  it('a JSON body that is not an object → 400 naming the body (INVALID_TYPE; NOT_ALLOWED where no body is taken)', async () => {
    for (const rawBody of ['"text"', '5', 'true']) {
      const res = await call('POST', '/register', { token: client.token, rawBody, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 400, rawBody);
      assert.deepEqual(res.body.payload.errors, { body: ['INVALID_TYPE'] }, rawBody);
      const none = await call('DELETE', '/v2/sandbox/clock', {
        token: client.token,
        rawBody,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(none.status, 400, rawBody);
      assert.deepEqual(none.body.payload.errors, { body: ['NOT_ALLOWED'] }, rawBody);
    }
  });

  it('another content type → 415', async () => {
    const res = await call('POST', '/register', { token: client.token, rawBody: 'username=x', headers: { 'content-type': 'text/plain' } });
    assert.equal(res.status, 415);
    assert.deepEqual(res.body.codes, ['UNSUPPORTED_MEDIA_TYPE']);
  });

  it('a body over 1 MiB → 413', async () => {
    const res = await call('POST', '/register', { token: client.token, body: { username: 'x', padding: 'p'.repeat(1024 * 1024 + 10) } });
    assert.equal(res.status, 413);
    assert.deepEqual(res.body.codes, ['PAYLOAD_TOO_LARGE']);
  });

  it('an unknown route → 404', async () => {
    const res = await call('GET', '/v9/nothing', { token: client.token });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.codes, ['NOT_FOUND']);
  });

  it('a known path with another method → 405 with Allow', async () => {
    const res = await call('DELETE', '/register', { token: client.token });
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });

  it('an id in the path that is not valid percent-encoding → 404 like an unknown id, not a 500', async () => {
    const res = await call('GET', '/v1/user-info/%E0%A4%A', { token: client.token });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
  });

  it('any other path that is not valid percent-encoding → 400 naming the path', async () => {
    const res = await call('GET', '/openapi/%E0%A4%A.yaml');
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.payload.errors, { path: ['INVALID_VALUE'] });
  });

  it('a documented operation is validated whatever the case of its path and with a trailing slash (as its route matches it)', async () => {
    for (const path of ['/V2/ESCROW', '/v2/escrow/']) {
      const res = await call('POST', path, { token: client.token, body: { surprise: 1 } });
      assert.equal(res.status, 400, path);
      assert.deepEqual(res.body.payload.errors.surprise, ['UNKNOWN_FIELD'], path);
    }
  });

  it('a server error → 500 with the request id and nothing internal, and is logged without SQL', async () => {
    const closed = await openOrm(h().databaseUrl, 1);
    await closed.close(true);
    const broken = await startExtraApp({ orm: closed });
    try {
      const res = await call('GET', `/v1/user-info/acct_${unique('z')}`, {
        token: client.token,
        baseUrl: broken.baseUrl,
        headers: { 'x-request-id': 'trace-500' },
      });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, {
        status: 'Failure',
        message: ['Internal server error.'],
        codes: ['INTERNAL_ERROR'],
        payload: { request_id: 'trace-500' },
      });
      assertNothingInternal(res.text);
    } finally {
      await broken.close();
    }
  });

  it('names fields called like Object.prototype members (constructor, __proto__, toString) as unknown', async () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const res = await call('POST', '/register', {
        token: client.token,
        rawBody: `{"username":"${unique('k')}","email":{"address":"${unique('k')}@example.com"},"${key}":"surprise"}`,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 400, `${key}: ${res.text.slice(0, 200)}`);
      assert.deepEqual(res.body.payload.errors, { [key]: ['UNKNOWN_FIELD'] });
    }
  });

  it('never echoes internals in validation messages', async () => {
    const res = await call('POST', '/register', { token: client.token, body: { username: 5, email: { address: 5 } } });
    assert.equal(res.status, 400);
    assertNothingInternal(res.text);
  });
});

describe('a JSON null body is no body (the reference SDK sends it)', () => {
  interface Documented {
    method: string;
    template: string;
    operationId: string;
    body: 'required' | 'optional' | 'none';
    userOnly: boolean;
    /** Path parameters that can only be `enum` values, with the first of them. */
    enums: Record<string, string>;
  }
  let client: TestClient;
  let user: { token: string; accountId: string };
  let documented: Documented[];
  before(async () => {
    client = await newClient();
    const account = await register(client);
    const session = await call('POST', '/authorize/user', {
      token: client.token,
      body: { account_id: account.account_id, return_token: true },
    });
    user = { token: session.body.payload.token.access_token, accountId: account.account_id };
    const doc = await loadMergedDocument();
    documented = [];
    for (const [template, item] of Object.entries(doc.paths)) {
      for (const method of httpMethods) {
        const op = item[method];
        if (!op || method === 'get' || method === 'head' || method === 'options') continue;
        const security = (op.security ?? []) as Array<Record<string, string[]>>;
        const params = (op.parameters ?? []) as Array<{ in: string; name: string; schema: { enum?: string[] } }>;
        documented.push({
          method: method.toUpperCase(),
          template,
          operationId: op.operationId,
          body: !op.requestBody ? 'none' : op.requestBody.required ? 'required' : 'optional',
          userOnly: !security.some((s) => s.svc_auth) && security.some((s) => s.user_auth),
          enums: Object.fromEntries(params.filter((p) => p.in === 'path' && p.schema.enum).map((p) => [p.name, p.schema.enum![0]])),
        });
      }
    }
  });

  /** The operation on ids nobody has (the user's own account for a user-only one): both answers must be alike. */
  const request = (op: Documented, rawBody: string | undefined): Promise<ApiResponse> => {
    const path = op.template.replace(
      /\{([^}]+)\}/g,
      (_m, name: string) =>
        op.enums[name] ?? (name === 'account_id' && op.userOnly ? user.accountId : `${name.replace(/_id$/, '')}_${unique('none')}`),
    );
    return call(op.method, path, {
      token: op.userOnly ? user.token : client.token,
      rawBody,
      headers: rawBody === undefined ? {} : { 'content-type': 'application/json' },
    });
  };
  const answer = (res: ApiResponse) => ({
    status: res.status,
    codes: res.body?.codes ?? res.body?.error,
    errors: res.body?.payload?.errors,
  });

  it('every operation whose body is optional or which takes none answers `null` exactly as it answers no body', async () => {
    const lenient = documented.filter((op) => op.body !== 'required');
    assert.ok(lenient.length >= 15, `${lenient.length} operations`);
    assert.ok(lenient.some((op) => op.operationId === 'payInvoice'));
    const differences: string[] = [];
    for (const op of lenient) {
      const withNull = answer(await request(op, 'null'));
      const without = answer(await request(op, undefined));
      if (JSON.stringify(withNull) !== JSON.stringify(without))
        differences.push(`${op.method} ${op.template}: null → ${JSON.stringify(withNull)}, no body → ${JSON.stringify(without)}`);
    }
    assert.deepEqual(differences, []);
  });

  it('every operation whose body is required refuses `null` with 400 naming the body (REQUIRED)', async () => {
    const strict = documented.filter((op) => op.body === 'required');
    assert.ok(strict.length >= 15, `${strict.length} operations`);
    const wrong: string[] = [];
    for (const op of strict) {
      const res = await request(op, 'null');
      const errors = res.body?.payload?.errors;
      if (res.status !== 400 || JSON.stringify(errors) !== JSON.stringify({ body: ['REQUIRED'] }) || !/null/.test(res.body.message[0]))
        wrong.push(`${op.method} ${op.template}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
  });
});
