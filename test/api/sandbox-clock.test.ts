import assert from 'node:assert/strict';
import { consumeSessionNonce } from '../../src/sessions/user-session.service.js';
import { MAX_OFFSET_SECONDS } from '../../src/sandbox/sandbox.rules.js';
import { call, h, newClient, register, startExtraApp, type TestClient } from '../support/harness.js';
import { startReceiver } from '../support/receiver.js';

const HOUR = 3600;
const DAY = 24 * HOUR;

const form = (params: Record<string, string>) => ({
  rawBody: new URLSearchParams(params).toString(),
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
});

async function advance(client: TestClient, seconds: number) {
  const res = await call('POST', '/v2/sandbox/clock', { token: client.token, body: { advance_seconds: seconds } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload as { now: string; offset_seconds: number };
}

async function nonceFor(client: TestClient, accountId: string): Promise<string> {
  const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.redirect.split('/').pop();
}

describe('sandbox test clock', function () {
  this.timeout(30_000);

  it('shows, moves and resets the caller integrator’s clock', async () => {
    const client = await newClient();
    const start = await call('GET', '/v2/sandbox/clock', { token: client.token });
    assert.equal(start.status, 200, start.text);
    assert.equal(start.body.payload.offset_seconds, 0);
    assert.ok(Math.abs(new Date(start.body.payload.now).getTime() - Date.now()) < 60_000);

    const moved = await advance(client, 25 * HOUR);
    assert.equal(moved.offset_seconds, 25 * HOUR);
    assert.ok(new Date(moved.now).getTime() - Date.now() > 24 * HOUR * 1000);
    assert.equal((await advance(client, 60)).offset_seconds, 25 * HOUR + 60, 'advances add up');

    const reset = await call('DELETE', '/v2/sandbox/clock', { token: client.token });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.payload.offset_seconds, 0);
    assert.equal((await call('GET', '/v2/sandbox/clock', { token: client.token })).body.payload.offset_seconds, 0);
  });

  it('refuses a non-positive or too large advance, and a clock past 10 years ahead', async () => {
    const client = await newClient();
    for (const advance_seconds of [0, -5, 1.5, 400 * DAY + 1]) {
      const res = await call('POST', '/v2/sandbox/clock', { token: client.token, body: { advance_seconds } });
      assert.equal(res.status, 400, `${advance_seconds}: ${res.text}`);
      assert.ok(res.body.payload.errors.advance_seconds, res.text);
    }
    let offset = 0;
    while (offset + 400 * DAY <= MAX_OFFSET_SECONDS) offset = (await advance(client, 400 * DAY)).offset_seconds;
    const tooFar = await call('POST', '/v2/sandbox/clock', { token: client.token, body: { advance_seconds: 400 * DAY } });
    assert.equal(tooFar.status, 400, tooFar.text);
    assert.deepEqual(tooFar.body.payload.errors.advance_seconds, ['CLOCK_TOO_FAR']);
    assert.equal((await call('GET', '/v2/sandbox/clock', { token: client.token })).body.payload.offset_seconds, offset, 'unchanged');
  });

  it('expires a session nonce after 24 h of the integrator’s clock, and no other integrator’s', async () => {
    const client = await newClient();
    const other = await newClient();
    const mine = await nonceFor(client, (await register(client)).account_id);
    const theirs = await nonceFor(other, (await register(other)).account_id);
    await advance(client, 25 * HOUR);
    assert.equal(await consumeSessionNonce(h().orm.em.fork(), mine), null, 'expired on the advanced clock');
    assert.ok(await consumeSessionNonce(h().orm.em.fork(), theirs), 'another integrator keeps real time');

    // A nonce made on the advanced clock lives 24 h of that clock, not 0.
    const fresh = await nonceFor(client, (await register(client)).account_id);
    assert.ok(await consumeSessionNonce(h().orm.em.fork(), fresh));
  });

  it('expires a refresh token after 30 days of the integrator’s clock', async () => {
    const client = await newClient();
    const open = async () => {
      const account = await register(client);
      const res = await call('POST', '/authorize/user', {
        token: client.token,
        body: { account_id: account.account_id, return_token: true },
      });
      assert.equal(res.status, 200, res.text);
      return res.body.payload.token.refresh_token as string;
    };
    const refresh = (token: string) => call('POST', '/token', form({ grant_type: 'refresh_token', refresh_token: token }));
    const early = await open();
    const spare = await open();
    await advance(client, 29 * DAY);
    const stillFine = await refresh(early);
    assert.equal(stillFine.status, 200, stillFine.text);
    await advance(client, 2 * DAY);
    const expired = await refresh(spare);
    assert.equal(expired.status, 400, expired.text);
    assert.equal(expired.body.error, 'invalid_grant');
    assert.match(expired.body.error_description, /expired/);
    const renewed = await refresh(stillFine.body.refresh_token);
    assert.equal(renewed.status, 200, 'a token issued on the advanced clock lives 30 days of it');
  });

  it('treats an Idempotency-Key older than 24 h of the integrator’s clock as new', async () => {
    const client = await newClient();
    const key = `clock-${Date.now()}`;
    const body = (name: string) => ({ username: name, email: { address: `${name}@example.com` } });
    const first = await call('POST', '/register', { token: client.token, body: body(`a${key}`), headers: { 'idempotency-key': key } });
    assert.equal(first.status, 200, first.text);
    const reused = await call('POST', '/register', { token: client.token, body: body(`b${key}`), headers: { 'idempotency-key': key } });
    assert.equal(reused.status, 422, reused.text);

    await advance(client, 25 * HOUR);
    const fresh = await call('POST', '/register', { token: client.token, body: body(`b${key}`), headers: { 'idempotency-key': key } });
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal(fresh.headers.get('idempotent-replayed'), null);
    const replay = await call('POST', '/register', { token: client.token, body: body(`b${key}`), headers: { 'idempotency-key': key } });
    assert.equal(replay.headers.get('idempotent-replayed'), 'true', 'a key claimed on the advanced clock is kept 24 h of it');
    assert.equal(replay.body.payload.account_id, fresh.body.payload.account_id);
  });

  it('disables a webhook endpoint failing for 5 days of the integrator’s clock', async () => {
    const client = await newClient();
    const receiver = await startReceiver();
    try {
      receiver.respond = () => 500;
      const created = await call('POST', '/v2/webhooks', {
        token: client.token,
        body: { url: receiver.url, events: ['register-account-completed'] },
      });
      assert.equal(created.status, 201, created.text);
      const endpointId = created.body.payload.id as string;
      const failingSince = async () => {
        const [row] = await h()
          .orm.em.fork()
          .execute<Array<{ failing_since: Date | null }>>('select failing_since from webhook_endpoint where id = ?', [endpointId]);
        return row.failing_since;
      };
      await register(client);
      for (let i = 0; i < 100 && !(await failingSince()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(await failingSince(), 'the first failure is recorded');

      await advance(client, 5 * DAY + 60);
      await register(client);
      // The retry the advance made due, or the new event's delivery — whichever fails first on
      // the moved clock — decides; once disabled, the endpoint gets nothing more.
      let status = 'enabled';
      for (let i = 0; i < 200 && status === 'enabled'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await call('GET', `/v2/webhooks/${endpointId}`, { token: client.token })).body.payload.status;
      }
      assert.equal(status, 'disabled');
    } finally {
      await receiver.close();
    }
  });

  it('sends a webhook retry due on the integrator’s clock at once', async () => {
    const client = await newClient();
    const receiver = await startReceiver();
    try {
      const created = await call('POST', '/v2/webhooks', {
        token: client.token,
        body: { url: receiver.url, events: ['register-account-completed'] },
      });
      assert.equal(created.status, 201, created.text);
      const endpointId = created.body.payload.id as string;
      await register(client);
      await receiver.until((got) => got.length === 1);
      const db = h().orm.em.fork();
      const deliveryOf = async () => {
        const [row] = await db.execute<Array<{ id: string; event_id: string; state: string }>>(
          'select id, event_id, state from webhook_delivery where endpoint_id = ?',
          [endpointId],
        );
        return row;
      };
      for (let i = 0; i < 100 && (await deliveryOf()).state !== 'delivered'; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      // As a failed first attempt leaves it: pending, its retry's job waiting two hours.
      const delivery = await deliveryOf();
      const jobId = `${delivery.event_id}.${endpointId}.retry`;
      await db.execute(
        `update webhook_delivery set state = 'pending', attempts = 1, finished_at = null, job_id = ?,
                next_attempt_at = now() + interval '2 hours' where id = ?`,
        [jobId, delivery.id],
      );
      await h().workers.webhookBus.queue.add('webhooks', { deliveryId: delivery.id }, { jobId, delay: 2 * 3_600_000 });

      await advance(client, HOUR);
      assert.equal(await (await h().workers.webhookBus.queue.getJob(jobId))!.getState(), 'delayed', 'not due yet');
      await advance(client, HOUR + 60);
      await receiver.until((got) => got.length === 2, 5_000);
      assert.equal(receiver.received[1].headers['webhook-id'], delivery.event_id);
    } finally {
      await receiver.close();
    }
  });

  it('does not exist in production, where a clock left by staging is back to real time', async () => {
    const client = await newClient();
    const mine = await nonceFor(client, (await register(client)).account_id);
    await advance(client, 25 * HOUR);
    const production = await startExtraApp({ appEnv: 'production' });
    try {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await call(method, '/v2/sandbox/clock', {
          token: client.token,
          body: method === 'POST' ? { advance_seconds: 60 } : undefined,
          baseUrl: production.baseUrl,
          unchecked: true,
        });
        assert.equal(res.status, 404, `${method}: ${res.text}`);
      }
    } finally {
      await production.close();
    }
    assert.equal((await call('GET', '/v2/sandbox/clock', { token: client.token })).body.payload.offset_seconds, 0);
    assert.ok(await consumeSessionNonce(h().orm.em.fork(), mine), 'the nonce keeps its real-time 24 h');
  });
});
