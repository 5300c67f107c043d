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

  it('turns the metrics off in production when neither the admin password nor METRICS_TOKEN is set', async () => {
    const app = await startExtraApp({ appEnv: 'production' });
    try {
      const res = await call('GET', '/metrics', { baseUrl: app.baseUrl });
      assert.equal(res.status, 404);
      assert.doesNotMatch(res.text, /holdfast_/);
    } finally {
      await app.close();
    }
  });

  const METRICS_TOKEN = 'mt_0123456789abcdef0123456789abcdef';
  const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const scrape = async (baseUrl: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${baseUrl}/metrics`, { headers });
    const text = await res.text();
    return { status: res.status, challenge: res.headers.get('www-authenticate') ?? '', text };
  };

  it("asks for credentials for the metrics in production: the admin password, or a scraper's METRICS_TOKEN", async () => {
    const withPassword = await startExtraApp({ appEnv: 'production', adminPassword: 's3cret-pw' });
    const withToken = await startExtraApp({ appEnv: 'production', metricsToken: METRICS_TOKEN });
    const withBoth = await startExtraApp({ appEnv: 'production', adminPassword: 's3cret-pw', metricsToken: METRICS_TOKEN });
    try {
      const anonymous = await scrape(withPassword.baseUrl);
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.challenge, /^Basic /);
      assert.doesNotMatch(anonymous.text, /holdfast_/);
      assert.equal((await scrape(withPassword.baseUrl, basic('ops', 'nope'))).status, 401);
      assert.equal((await scrape(withPassword.baseUrl, bearer(METRICS_TOKEN))).status, 401, 'no token configured');
      const byPassword = await scrape(withPassword.baseUrl, basic('ops', 's3cret-pw'));
      assert.equal(byPassword.status, 200);
      assert.match(byPassword.text, /holdfast_queue_jobs/);

      const noToken = await scrape(withToken.baseUrl);
      assert.equal(noToken.status, 401);
      assert.equal(noToken.challenge, 'Bearer realm="holdfast-metrics"', 'no Basic challenge: no password is set');
      assert.equal((await scrape(withToken.baseUrl, bearer(`${METRICS_TOKEN}x`))).status, 401);
      assert.equal((await scrape(withToken.baseUrl, basic('ops', METRICS_TOKEN))).status, 401);
      const byToken = await scrape(withToken.baseUrl, bearer(METRICS_TOKEN));
      assert.equal(byToken.status, 200);
      assert.match(byToken.text, /holdfast_queue_jobs/);
      // The token opens the metrics only: the dashboard stays off without a password.
      assert.equal((await fetch(`${withToken.baseUrl}/admin/queues`, { headers: bearer(METRICS_TOKEN) })).status, 404);

      assert.match((await scrape(withBoth.baseUrl)).challenge, /^Basic .*, Bearer /);
      assert.equal((await scrape(withBoth.baseUrl, basic('ops', 's3cret-pw'))).status, 200);
      assert.equal((await scrape(withBoth.baseUrl, bearer(METRICS_TOKEN))).status, 200);
      assert.equal((await fetch(`${withBoth.baseUrl}/admin/queues`, { headers: bearer(METRICS_TOKEN) })).status, 401, 'not the dashboard');
    } finally {
      await Promise.all([withPassword.close(), withToken.close(), withBoth.close()]);
    }
  });

  it('guards the metrics with METRICS_TOKEN in staging too, and leaves them open there without credentials', async () => {
    const app = await startExtraApp({ metricsToken: METRICS_TOKEN });
    try {
      assert.equal((await scrape(app.baseUrl)).status, 401);
      assert.equal((await scrape(app.baseUrl, bearer(METRICS_TOKEN))).status, 200);
      assert.equal((await fetch(`${app.baseUrl}/admin/queues`)).status, 200, 'the dashboard stays open in staging');
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
