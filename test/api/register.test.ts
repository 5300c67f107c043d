import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';

function valid(extra: Record<string, unknown> = {}) {
  const name = unique('reg');
  return { username: name, email: { address: `${name}@example.com` }, ...extra };
}

async function paymentMethods(accountId: string) {
  return h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<{ provider: string; processing_currency: string; wallet_kind: string | null; details: any }>>(
      'select provider, processing_currency, wallet_kind, details from payment_method where account_id = ? order by provider, wallet_kind',
      [accountId],
    );
}

async function outbox(accountId: string) {
  return h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<{ event_name: string; message: any; integrator_id: string }>>(
      `select event_name, message, integrator_id from outbox where message->>'account_id' = ?`,
      [accountId],
    );
}

describe('POST /register', () => {
  let client: TestClient;
  before(async () => {
    client = await newClient();
  });

  it('registers with an email and answers the registration payload', async () => {
    const body = valid({
      full_name: 'Ada Lovelace',
      street_address_1: '1 Main St',
      city: 'Springfield',
      state_province: 'IL',
      country_iso: 'US',
      zip_postal_code: '62701',
    });
    const res = await call('POST', '/register', { token: client.token, body });
    assert.equal(res.status, 200);
    const p = res.body.payload;
    assert.match(p.account_id, /^acct_[0-9A-Z]{26}$/);
    assert.equal(p.username, body.username);
    assert.equal(p.email.address, body.email.address);
    assert.deepEqual(p.email.email_types, ['primary']);
    assert.equal(p.email.is_verified, false, 'requires_verification defaults to true');
    assert.deepEqual(p.external_platforms, {});
    for (const f of ['full_name', 'street_address_1', 'city', 'state_province', 'country_iso', 'zip_postal_code'])
      assert.equal(p[f], (body as any)[f]);
  });

  it('marks an address registered with requires_verification false as verified', async () => {
    const body = valid();
    body.email = { ...body.email, requires_verification: false } as never;
    const res = await call('POST', '/register', { token: client.token, body });
    assert.equal(res.body.payload.email.is_verified, true);
  });

  it('gives every account a USD wallet payment method', async () => {
    const account = await register(client);
    const methods = await paymentMethods(account.account_id);
    assert.deepEqual(
      methods.map((m) => [m.provider, m.processing_currency, m.wallet_kind]),
      [['wallet', 'USD', null]],
    );
  });

  it('adds standard and convertible token wallets when the integrator has a token currency', async () => {
    const name = unique('tokint-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 });
    const tokenClient = await newClient({ integrator: name });
    const account = await register(tokenClient);
    const methods = await paymentMethods(account.account_id);
    assert.deepEqual(
      methods.map((m) => [m.provider, m.processing_currency, m.wallet_kind]),
      [
        ['wallet', 'VCD', 'convertible'],
        ['wallet', 'VCD', 'standard'],
        ['wallet', 'USD', null],
      ],
    );
  });

  it('registers with external platform ids and adds a POBO method per id, carrying name and address', async () => {
    const res = await call('POST', '/register', {
      token: client.token,
      body: {
        username: unique('pobo'),
        external_platforms: { steam: { user_id: unique('st') }, sony: { user_id: unique('ps') } },
        full_name: 'Grace Hopper',
        country_iso: 'GB',
        state_province: 'London',
      },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.email, undefined);
    assert.deepEqual(Object.keys(res.body.payload.external_platforms).sort(), ['sony', 'steam']);
    const pobo = (await paymentMethods(res.body.payload.account_id)).filter((m) => m.provider === 'pobo');
    assert.equal(pobo.length, 2);
    for (const m of pobo) {
      assert.equal(m.details.billing.full_name, 'Grace Hopper');
      assert.equal(m.details.billing.country_iso, 'GB');
    }
    assert.deepEqual(pobo.map((m) => m.details.platform).sort(), ['sony', 'steam']);
  });

  it('writes register-account-completed to the outbox with the account', async () => {
    const account = await register(client);
    const events = await outbox(account.account_id);
    assert.equal(events.length, 1);
    assert.equal(events[0].event_name, 'register-account-completed');
    assert.equal(events[0].message.username, account.username);
  });

  it('writes nothing when the registration is refused', async () => {
    const before = await h().orm.em.fork().getConnection().execute<Array<{ n: string }>>('select count(*) as n from account');
    const res = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('x'), email: { address: 'not-an-email' } },
    });
    assert.equal(res.status, 400);
    const after = await h().orm.em.fork().getConnection().execute<Array<{ n: string }>>('select count(*) as n from account');
    assert.equal(after[0].n, before[0].n);
  });

  describe('validation: each rule answers 400 INPUT_ERROR naming the field', () => {
    const cases: Array<[string, Record<string, unknown>, string, string]> = [
      ['username missing', { username: undefined }, 'username', 'REQUIRED'],
      ['username empty', { username: '' }, 'username', 'TOO_SHORT'],
      ['username of 65 characters', { username: 'u'.repeat(65) }, 'username', 'TOO_LONG'],
      ['username with a control character', { username: 'bad\u0007name' }, 'username', 'INVALID_VALUE'],
      ['username with a NUL', { username: 'bad\u0000name' }, 'username', 'INVALID_CHARACTER'],
      ['username with leading space', { username: ' lead' }, 'username', 'INVALID_VALUE'],
      ['username not a string', { username: 42 }, 'username', 'INVALID_TYPE'],
      ['neither email nor external_platforms', { email: undefined }, 'email', 'REQUIRED'],
      ['both email and external_platforms', { external_platforms: { steam: { user_id: '1' } } }, 'email', 'NOT_ALLOWED'],
      ['empty external_platforms', { email: undefined, external_platforms: {} }, 'external_platforms', 'EMPTY'],
      [
        'unknown platform',
        { email: undefined, external_platforms: { xbox: { user_id: '1' } } },
        'external_platforms.xbox',
        'UNKNOWN_FIELD',
      ],
      ['platform without user_id', { email: undefined, external_platforms: { steam: {} } }, 'external_platforms.steam.user_id', 'REQUIRED'],
      ['email without address', { email: { requires_verification: true } }, 'email.address', 'REQUIRED'],
      ['email address malformed', { email: { address: 'nope' } }, 'email.address', 'INVALID_FORMAT'],
      [
        'email address of 255 characters',
        { email: { address: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com` } },
        'email.address',
        'TOO_LONG',
      ],
      [
        'email requires_verification not boolean',
        { email: { address: 'a@example.com', requires_verification: 'yes' } },
        'email.requires_verification',
        'INVALID_TYPE',
      ],
      ['unknown email field', { email: { address: 'a@example.com', primary: true } }, 'email.primary', 'UNKNOWN_FIELD'],
      ['unknown body field', { nickname: 'x' }, 'nickname', 'UNKNOWN_FIELD'],
      ['state_province without country_iso', { state_province: 'CA' }, 'country_iso', 'REQUIRED'],
      ['country_iso without state_province', { country_iso: 'US' }, 'state_province', 'REQUIRED'],
      ['country_iso not ISO 3166', { country_iso: 'ZZ', state_province: 'X' }, 'country_iso', 'INVALID_VALUE'],
      ['country_iso lower case', { country_iso: 'us', state_province: 'X' }, 'country_iso', 'INVALID_VALUE'],
      ['full_name of 201 characters', { full_name: 'n'.repeat(201) }, 'full_name', 'TOO_LONG'],
      ['city with a control character', { city: 'a\u001bb' }, 'city', 'INVALID_VALUE'],
      ['zip_postal_code not a string', { zip_postal_code: 12345 }, 'zip_postal_code', 'INVALID_TYPE'],
    ];
    for (const [what, change, field, code] of cases) {
      it(`${what} → ${field}: ${code}`, async () => {
        const body: Record<string, unknown> = { ...valid(), ...change };
        for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
        const res = await call('POST', '/register', { token: client.token, body });
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.status, 'Failure');
        assert.deepEqual(res.body.codes, ['INPUT_ERROR']);
        assert.ok(
          res.body.payload.errors[field]?.includes(code),
          `expected ${field}: ${code} in ${JSON.stringify(res.body.payload.errors)}`,
        );
      });
    }

    it('accepts a username of exactly 64 characters and an email of exactly 254', async () => {
      const address = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      assert.equal(address.length, 254);
      const res = await call('POST', '/register', {
        token: client.token,
        body: { username: `${unique('m')}`.padEnd(64, 'z'), email: { address } },
      });
      assert.equal(res.status, 200, res.text);
    });
  });

  describe('409 when the account exists within the integrator', () => {
    let existing: any;
    const steamId = unique('steam');
    before(async () => {
      existing = await register(client);
      const res = await call('PUT', `/user-info/${existing.account_id}`, {
        token: client.token,
        body: { external_platforms: { steam: { user_id: steamId } } },
      });
      assert.equal(res.status, 200);
    });

    const dupes: Array<[string, () => Record<string, unknown>, string]> = [
      ['same username', () => ({ ...valid(), username: existing.username }), 'username'],
      ['same username in another case', () => ({ ...valid(), username: existing.username.toUpperCase() }), 'username'],
      ['same email address', () => ({ ...valid(), email: { address: existing.email.address } }), 'email'],
      ['same email address in another case', () => ({ ...valid(), email: { address: existing.email.address.toUpperCase() } }), 'email'],
      [
        'same external platform user id',
        () => ({ username: unique('d'), external_platforms: { steam: { user_id: steamId } } }),
        'external_platforms.steam',
      ],
    ];
    for (const [what, body, field] of dupes) {
      it(`${what} → 409 with payload.account_id, and no event`, async () => {
        const events = async () =>
          Number(
            (
              await h()
                .orm.em.fork()
                .getConnection()
                .execute<Array<{ n: string }>>(`select count(*) as n from outbox where event_name = 'register-account-completed'`)
            )[0].n,
          );
        const before = await events();
        const res = await call('POST', '/register', { token: client.token, body: body() });
        assert.equal(await events(), before);
        assert.equal(res.status, 409, res.text);
        assert.deepEqual(res.body, { status: 'Failure', message: [], codes: [], payload: { account_id: existing.account_id, field } });
      });
    }

    it('lets exactly one of two concurrent identical registrations win', async () => {
      const body = valid();
      const results = await Promise.all([1, 2, 3, 4].map(() => call('POST', '/register', { token: client.token, body })));
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 409, 409, 409]);
      const winner = results.find((r) => r.status === 200)!.body.payload.account_id;
      for (const r of results.filter((x) => x.status === 409)) assert.equal(r.body.payload.account_id, winner);
    });
  });
});
