import assert from 'node:assert/strict';
import { call, newClient, register, startExtraApp } from '../support/harness.js';

const card = (n: number) => ({
  type: 'card',
  card: { number: n % 2 ? '4242424242424242' : '4000000000000002', exp_month: 12, exp_year: 2099, cvc: '123' },
});

const userToken = async (baseUrl: string, client: { token: string }, accountId: string): Promise<string> =>
  (await call('POST', '/authorize/user', { baseUrl, token: client.token, body: { account_id: accountId, return_token: true } })).body
    .payload.token.access_token;

describe('rate limits (429 with Retry-After)', () => {
  it("limits a user password token's account per minute, and leaves the integrator's server calls alone", async () => {
    const app = await startExtraApp({ userRateLimitPerMinute: 3 });
    try {
      const client = await newClient();
      const account = await register(client);
      const token = (
        await call('POST', '/authorize/user', {
          baseUrl: app.baseUrl,
          token: client.token,
          body: { account_id: account.account_id, return_token: true },
        })
      ).body.payload.token.access_token;
      const list = (t: string) => call('GET', `/v1/${account.account_id}/payment_methods`, { baseUrl: app.baseUrl, token: t });
      for (let i = 0; i < 3; i++) assert.equal((await list(token)).status, 200);
      const limited = await list(token);
      assert.equal(limited.status, 429, limited.text);
      assert.deepEqual([limited.body.status, limited.body.codes, limited.body.payload], ['Failure', ['RATE_LIMITED'], null]);
      const retryAfter = Number(limited.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, String(retryAfter));
      // Another session of the same account shares its budget; the integrator's own calls do not count.
      const second = (
        await call('POST', '/authorize/user', {
          baseUrl: app.baseUrl,
          token: client.token,
          body: { account_id: account.account_id, return_token: true },
        })
      ).body.payload.token.access_token;
      assert.equal((await list(second)).status, 429);
      for (let i = 0; i < 5; i++) assert.equal((await list(client.token)).status, 200);
      const other = await register(client);
      const otherToken = (
        await call('POST', '/authorize/user', {
          baseUrl: app.baseUrl,
          token: client.token,
          body: { account_id: other.account_id, return_token: true },
        })
      ).body.payload.token.access_token;
      assert.equal(
        (await call('GET', `/v1/${other.account_id}/payment_methods`, { baseUrl: app.baseUrl, token: otherToken })).status,
        200,
        'per account',
      );
    } finally {
      await app.close();
    }
  });

  it('limits cards added to one account per hour, whoever adds them (card testing)', async () => {
    const app = await startExtraApp({ cardAddsPerHour: 2 });
    try {
      const client = await newClient();
      const account = await register(client);
      const add = (n: number) =>
        call('POST', `/v1/${account.account_id}/payment_methods`, { baseUrl: app.baseUrl, token: client.token, body: card(n) });
      assert.equal((await add(1)).status, 201);
      assert.equal((await add(2)).status, 201);
      const limited = await add(3);
      assert.equal(limited.status, 429, limited.text);
      assert.deepEqual(limited.body.codes, ['RATE_LIMITED']);
      assert.ok(Number(limited.headers.get('retry-after')) > 60, "an hour's window");
      const methods = await call('GET', `/v1/${account.account_id}/payment_methods`, { baseUrl: app.baseUrl, token: client.token });
      assert.equal(
        methods.body.payload.filter((m: { provider: string }) => m.provider === 'card').length,
        2,
        'the refused card was not added',
      );
      const elsewhere = await register(client);
      assert.equal(
        (await call('POST', `/v1/${elsewhere.account_id}/payment_methods`, { baseUrl: app.baseUrl, token: client.token, body: card(1) }))
          .status,
        201,
      );
    } finally {
      await app.close();
    }
  });

  it("spends no account's card budget on card adds answered 404: another integrator's, or another account's user token", async () => {
    const app = await startExtraApp({ cardAddsPerHour: 20 });
    try {
      const owner = await newClient();
      const victim = await register(owner);
      const add = (token: string) =>
        call('POST', `/v1/${victim.account_id}/payment_methods`, { baseUrl: app.baseUrl, token, body: card(1) });
      // Another integrator cannot see the account: 21 tries, all 404 (none 429).
      const stranger = await newClient();
      for (let i = 0; i < 21; i++) {
        const res = await add(stranger.token);
        assert.equal(res.status, 404, `try ${i + 1}: ${res.text}`);
        assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
      }
      // A user token of another account of the same integrator is answered 404 as well.
      const neighbour = await userToken(app.baseUrl, owner, (await register(owner)).account_id);
      for (let i = 0; i < 21; i++) assert.equal((await add(neighbour)).status, 404);
      // The owner's budget is whole: 20 cards go in, the 21st is refused.
      for (let i = 0; i < 20; i++) assert.equal((await add(owner.token)).status, 201, `card ${i + 1}`);
      assert.equal((await add(owner.token)).status, 429);
    } finally {
      await app.close();
    }
  });

  it("spends no budget on a user token's requests for another account's paths (answered 404)", async () => {
    const app = await startExtraApp({ userRateLimitPerMinute: 3 });
    try {
      const client = await newClient();
      const own = await register(client);
      const other = await register(client);
      const token = await userToken(app.baseUrl, client, own.account_id);
      const list = (accountId: string) => call('GET', `/v1/${accountId}/payment_methods`, { baseUrl: app.baseUrl, token });
      for (let i = 0; i < 5; i++) {
        const res = await list(other.account_id);
        assert.equal(res.status, 404, `try ${i + 1}: ${res.text}`);
        assert.equal((await call('GET', `/user-info/${other.account_id}/tos/svc`, { baseUrl: app.baseUrl, token })).status, 404);
      }
      // Neither its own account's budget nor the other's was spent.
      for (let i = 0; i < 3; i++) assert.equal((await list(own.account_id)).status, 200, `request ${i + 1}`);
      assert.equal((await list(own.account_id)).status, 429);
      const otherToken = await userToken(app.baseUrl, client, other.account_id);
      for (let i = 0; i < 3; i++)
        assert.equal(
          (await call('GET', `/v1/${other.account_id}/payment_methods`, { baseUrl: app.baseUrl, token: otherToken })).status,
          200,
        );
    } finally {
      await app.close();
    }
  });
});
