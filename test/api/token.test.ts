import assert from 'node:assert/strict';
import { SignJWT } from 'jose';
import { createClient } from '../../src/auth/auth.service.js';
import { call, h, newClient, register, startExtraApp, unique } from '../support/harness.js';

const form = (params: Record<string, string>) => ({
  rawBody: new URLSearchParams(params).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

describe('POST /token (client credentials)', () => {
  let creds: { client_id: string; client_secret: string };
  before(async () => {
    const created = await createClient(h().orm.em.fork(), { integrator: unique('tok-'), scopes: ['search_accounts', 'read_accounts'] });
    creds = { client_id: created.client_id, client_secret: created.client_secret };
  });

  it('issues a bearer token from a form body', async () => {
    const res = await call('POST', '/token', form({ grant_type: 'client_credentials', ...creds }));
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 3600);
    assert.equal(res.body.scope, 'search_accounts read_accounts');
    assert.equal(res.headers.get('cache-control'), 'no-store');
  });

  it('issues a token from a JSON body', async () => {
    const res = await call('POST', '/token', { body: { grant_type: 'client_credentials', ...creds } });
    assert.equal(res.status, 200);
  });

  it('issues a token from query parameters (discouraged; TOKEN_QUERY_CREDENTIALS=false refuses secrets there)', async () => {
    const q = new URLSearchParams({ grant_type: 'client_credentials', ...creds });
    const res = await call('POST', `/token?${q}`);
    assert.equal(res.status, 200);
  });

  it('issues a token with HTTP Basic client authentication', async () => {
    const basic = Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64');
    const res = await call('POST', '/token', {
      ...form({ grant_type: 'client_credentials' }),
      headers: { ...form({}).headers, authorization: `Basic ${basic}` },
    });
    assert.equal(res.status, 200);
  });

  it('narrows the token to the requested scopes', async () => {
    const res = await call('POST', '/token', form({ grant_type: 'client_credentials', scope: 'read_accounts', ...creds }));
    assert.equal(res.status, 200);
    assert.equal(res.body.scope, 'read_accounts');
  });

  it('refuses a scope the client does not hold with invalid_scope', async () => {
    const res = await call('POST', '/token', form({ grant_type: 'client_credentials', scope: 'write_accounts', ...creds }));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_scope');
  });

  it('refuses a wrong secret with 401 invalid_client', async () => {
    const res = await call(
      'POST',
      '/token',
      form({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: 'hfs_wrong' }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Basic/);
  });

  it('refuses an unknown client with 401 invalid_client', async () => {
    const res = await call(
      'POST',
      '/token',
      form({ grant_type: 'client_credentials', client_id: 'cli_nope', client_secret: creds.client_secret }),
    );
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  });

  it('refuses another grant type with unsupported_grant_type', async () => {
    const res = await call('POST', '/token', form({ grant_type: 'password', ...creds }));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'unsupported_grant_type');
  });

  it('refuses a missing grant type with invalid_request', async () => {
    const res = await call('POST', '/token', form({ ...creds }));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
  });

  it('refuses credentials sent both by Basic and as parameters', async () => {
    const basic = Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64');
    const res = await call('POST', '/token', {
      ...form({ grant_type: 'client_credentials', ...creds }),
      headers: { ...form({}).headers, authorization: `Basic ${basic}` },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
  });

  it('ignores unknown parameters (RFC 6749 §3.2) and answers bad known ones and malformed JSON in the RFC 6749 shape', async () => {
    const unknown = await call('POST', '/token?also=1', form({ grant_type: 'client_credentials', ...creds, extra: '1' }));
    assert.equal(unknown.status, 200, unknown.text);
    const tooLong = await call('POST', '/token', form({ grant_type: 'client_credentials', ...creds, scope: 'x'.repeat(1025) }));
    assert.equal(tooLong.status, 400);
    assert.equal(tooLong.body.error, 'invalid_request');
    const badQuery = await call('POST', `/token?client_id=${'c'.repeat(65)}`, form({ grant_type: 'client_credentials' }));
    assert.equal(badQuery.status, 400);
    assert.equal(badQuery.body.error, 'invalid_request');
    const malformed = await call('POST', '/token', { rawBody: '{', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error, 'invalid_request');
  });
});

describe('POST /token with TOKEN_QUERY_CREDENTIALS=false', () => {
  let app: Awaited<ReturnType<typeof startExtraApp>>;
  let creds: { client_id: string; client_secret: string };
  before(async () => {
    app = await startExtraApp({ tokenQueryCredentials: false });
    const created = await createClient(h().orm.em.fork(), { integrator: unique('tokq-'), scopes: ['read_accounts', 'write_user_tokens'] });
    creds = { client_id: created.client_id, client_secret: created.client_secret };
  });
  after(async () => {
    await app?.close();
  });
  const token = (query: Record<string, string>, body?: Record<string, string>, headers: Record<string, string> = {}) =>
    call('POST', `/token${Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''}`, {
      baseUrl: app.baseUrl,
      ...(body ? form(body) : {}),
      headers: { ...(body ? form({}).headers : {}), ...headers },
    });
  /** A refresh token of a fresh user session. */
  const refreshToken = async () => {
    const client = await newClient();
    const account = await register(client);
    const user = await call('POST', '/authorize/user', {
      token: client.token,
      body: { account_id: account.account_id, return_token: true },
    });
    return { client, refresh: user.body.payload.token.refresh_token as string };
  };

  it('refuses a client_secret or refresh_token in the query string with invalid_request naming it', async () => {
    const secret = await token({ grant_type: 'client_credentials', ...creds });
    assert.equal(secret.status, 400, secret.text);
    assert.deepEqual(Object.keys(secret.body).sort(), ['error', 'error_description']);
    assert.equal(secret.body.error, 'invalid_request');
    assert.match(secret.body.error_description, /^client_secret must not be sent in the query string/);
    // A secret in the query is refused even when the body holds the rest.
    const split = await token({ client_secret: creds.client_secret }, { grant_type: 'client_credentials', client_id: creds.client_id });
    assert.equal(split.status, 400);
    assert.match(split.body.error_description, /^client_secret /);
    const { refresh } = await refreshToken();
    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refresh });
    assert.equal(refreshed.status, 400);
    assert.equal(refreshed.body.error, 'invalid_request');
    assert.match(refreshed.body.error_description, /^refresh_token must not be sent in the query string/);
  });

  it('still takes credentials in the body or with HTTP Basic, and the other parameters in the query string', async () => {
    assert.equal((await token({}, { grant_type: 'client_credentials', ...creds })).status, 200);
    const basic = `Basic ${Buffer.from(`${creds.client_id}:${creds.client_secret}`).toString('base64')}`;
    assert.equal((await token({}, { grant_type: 'client_credentials' }, { authorization: basic })).status, 200);
    const json = await call('POST', '/token', { baseUrl: app.baseUrl, body: { grant_type: 'client_credentials', ...creds } });
    assert.equal(json.status, 200);
    const mixed = await token(
      { grant_type: 'client_credentials', client_id: creds.client_id, scope: 'read_accounts' },
      { client_secret: creds.client_secret },
    );
    assert.equal(mixed.status, 200, mixed.text);
    assert.equal(mixed.body.scope, 'read_accounts');
    const { refresh } = await refreshToken();
    const refreshed = await token({ grant_type: 'refresh_token' }, { refresh_token: refresh });
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.ok(refreshed.body.refresh_token);
  });
});

describe('bearer tokens on API calls', () => {
  const path = '/v1/tos';
  let client: Awaited<ReturnType<typeof newClient>>;
  let accountPath: string;
  before(async () => {
    client = await newClient();
    const reg = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('u'), email: { address: `${unique('e')}@example.com` } },
    });
    accountPath = `/v1/user-info/${reg.body.payload.account_id}`;
  });

  it('accepts a valid token', async () => {
    assert.equal((await call('GET', accountPath, { token: client.token })).status, 200);
  });

  it('needs no token for GET /v1/tos', async () => {
    assert.equal((await call('GET', path)).status, 200);
  });

  const refused: Array<[string, () => Promise<Record<string, string>>, RegExp]> = [
    ['a missing Authorization header', async () => ({}), /^Bearer realm="holdfast"$/],
    ['another scheme', async () => ({ authorization: 'Token abc' }), /error="invalid_token"/],
    ['a malformed token', async () => ({ authorization: 'Bearer not.a.jwt' }), /error="invalid_token"/],
    [
      'an expired token',
      async () => ({
        authorization: `Bearer ${await h().signer.sign({ clientId: client.clientId, integratorId: 'int_x', scopes: ['search_accounts'], isOperator: false, canUnblock: false }, -60)}`,
      }),
      /expired/,
    ],
    [
      'a token signed with another key',
      async () => {
        const forged = await new SignJWT({ int: 'int_x', scope: 'search_accounts', op: false })
          .setProtectedHeader({ alg: 'HS256', kid: 'key_primary' })
          .setIssuer('holdfast')
          .setAudience('holdfast-api')
          .setSubject(client.clientId)
          .setIssuedAt()
          .setExpirationTime('1h')
          .sign(new Uint8Array(32).fill(7));
        return { authorization: `Bearer ${forged}` };
      },
      /error="invalid_token"/,
    ],
    [
      'an unsigned (alg none) token',
      async () => {
        const header = Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url');
        const body = Buffer.from(
          JSON.stringify({
            sub: client.clientId,
            int: 'int_x',
            scope: 'search_accounts',
            iss: 'holdfast',
            aud: 'holdfast-api',
            exp: 9999999999,
          }),
        ).toString('base64url');
        return { authorization: `Bearer ${header}.${body}.` };
      },
      /error="invalid_token"/,
    ],
  ];
  for (const [what, headers, challenge] of refused) {
    it(`answers 401 with WWW-Authenticate for ${what}`, async () => {
      const res = await call('GET', accountPath, { headers: await headers() });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', challenge);
      assert.deepEqual(res.body.codes, ['UNAUTHORIZED']);
    });
  }
});
