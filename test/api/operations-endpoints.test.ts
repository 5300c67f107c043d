import assert from 'node:assert/strict';
import { call, newClient, register, startExtraApp } from '../support/harness.js';

describe('operations: queue dashboard and metrics', () => {
  it('asks for the admin password before showing the queue dashboard', async () => {
    const app = await startExtraApp({ adminPassword: 's3cret-pw' });
    try {
      const anonymous = await fetch(`${app.baseUrl}/admin/queues`);
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic /);
      const wrong = await fetch(`${app.baseUrl}/admin/queues`, {
        headers: { authorization: `Basic ${Buffer.from('ops:nope').toString('base64')}` },
      });
      assert.equal(wrong.status, 401);
      const auth = { authorization: `Basic ${Buffer.from('ops:s3cret-pw').toString('base64')}` };
      const page = await fetch(`${app.baseUrl}/admin/queues`, { headers: auth });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<html/i);
      const queues = (await (await fetch(`${app.baseUrl}/admin/queues/api/queues`, { headers: auth })).json()) as {
        queues: Array<{ name: string }>;
      };
      assert.deepEqual(queues.queues.map((q) => q.name).sort(), ['commands', 'maintenance', 'webhooks']);
      assert.equal((await fetch(`${app.baseUrl}/admin/queues/api/queues`)).status, 401, 'its API too');
      assert.equal((await fetch(`${app.baseUrl}/metrics`)).status, 401, 'and the metrics');
      assert.equal((await fetch(`${app.baseUrl}/metrics`, { headers: auth })).status, 200);
    } finally {
      await app.close();
    }
  });

  it('turns the dashboard off in production when no password is set', async () => {
    const app = await startExtraApp({ appEnv: 'production' });
    try {
      const res = await call('GET', '/admin/queues', { baseUrl: app.baseUrl });
      assert.equal(res.status, 404);
    } finally {
      await app.close();
    }
  });

  it('serves Prometheus metrics: HTTP latency per route template, queues, outbox lag, commands', async () => {
    const client = await newClient();
    const account = await register(client);
    await call('GET', `/v1/user-info/${account.account_id}`, { token: client.token });
    const res = await fetch(`${(await import('../support/harness.js')).h().baseUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    const text = await res.text();
    assert.match(text, /holdfast_http_request_duration_seconds_bucket\{[^}]*route="\/v1\/user-info\/:account_id"/);
    assert.doesNotMatch(text, new RegExp(account.account_id), 'no ids in labels');
    assert.match(text, /holdfast_queue_jobs\{queue="commands",state="waiting"\} \d+/);
    assert.match(text, /holdfast_queue_jobs\{queue="webhooks",state="failed"\} \d+/);
    assert.match(text, /holdfast_outbox_lag_seconds \d/);
    assert.match(text, /# TYPE holdfast_command_duration_seconds histogram/);
    assert.match(text, /# TYPE holdfast_webhook_attempts_total counter/);
  });
});
