import assert from 'node:assert/strict';
import { openOrm } from '../../src/db/orm.js';
import { call, h, newClient, startExtraApp, unique, type TestClient } from '../support/harness.js';

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

  it('a JSON body that is not an object → 400', async () => {
    const res = await call('POST', '/register', {
      token: client.token,
      rawBody: '"text"',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
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
