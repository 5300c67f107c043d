import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { deliveryAttempts, send } from '../../src/webhooks/delivery.service.js';
import { isPrivateAddress, targetProblem } from '../../src/webhooks/webhook.rules.js';
import { call, h, newClient, register, startExtraApp } from '../support/harness.js';
import { startReceiver } from '../support/receiver.js';

/** What every attempt that got no answer (but a timeout) records, whatever the cause. */
const UNREACHABLE = 'target unreachable';

/** A name other than `localhost` that this machine's hosts file maps to a loopback address. */
function loopbackAlias(): string {
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address && /^127\./.test(address)) {
      const name = names.find((n) => n && n !== 'localhost' && !n.endsWith('.localhost'));
      if (name) return name;
    }
  }
  throw new Error('this test needs /etc/hosts to map a name other than localhost to 127.x (Debian maps the host name)');
}

describe('webhook targets (SSRF guard)', () => {
  it('classifies addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      'nonsense',
    ]) {
      assert.equal(isPrivateAddress(a), true, a);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '172.32.0.1']) assert.equal(isPrivateAddress(a), false, a);
  });

  it('refuses private targets at registration in production, naming the field', async () => {
    const app = await startExtraApp({ appEnv: 'production' });
    try {
      const client = await newClient();
      const cases: Array<[string, string]> = [
        ['http://hooks.example.com/x', 'HTTPS_REQUIRED'],
        ['https://127.0.0.1/x', 'PRIVATE_TARGET'],
        ['https://localhost/x', 'PRIVATE_TARGET'],
        ['https://[::1]/x', 'PRIVATE_TARGET'],
        ['https://10.0.0.5/x', 'PRIVATE_TARGET'],
        ['https://169.254.169.254/latest', 'PRIVATE_TARGET'],
        ['https://user:pw@hooks.example.com/', 'INVALID_URL'],
      ];
      for (const [url, code] of cases) {
        const res = await call('POST', '/v2/webhooks', {
          token: client.token,
          baseUrl: app.baseUrl,
          body: { url, events: ['invoice-completed'] },
        });
        assert.equal(res.status, 400, url);
        assert.deepEqual(res.body.payload.errors, { url: [code] }, url);
      }
      const ok = await call('POST', '/v2/webhooks', {
        token: client.token,
        baseUrl: app.baseUrl,
        body: { url: 'https://hooks.example.com/x', events: ['invoice-completed'] },
      });
      assert.equal(ok.status, 201);
    } finally {
      await app.close();
    }
    assert.equal(targetProblem('http://127.0.0.1:9/x', true), null, 'staging allows private http targets');
  });

  it('refuses, at delivery time, a name that resolves to a private address: no connection is made', async () => {
    const r = await startReceiver();
    try {
      const alias = loopbackAlias();
      const refused = await send(`http://${alias}:${r.port}/hooks`, '{}', {}, false);
      assert.deepEqual([refused.status, refused.error, refused.detail], [null, UNREACHABLE, 'refused: private target']);
      const literal = await send(`http://127.0.0.1:${r.port}/hooks`, '{}', {}, false);
      assert.equal(literal.error, UNREACHABLE);
      assert.equal(r.received.length, 0);
      assert.equal((await send('not a url', '{}', {}, true)).error, 'invalid URL', 'a bad URL is a failed attempt, not a crash');
      const allowed = await send(`http://${alias}:${r.port}/hooks`, '{}', {}, true);
      assert.equal(allowed.status, 200, 'the same name is reached when private targets are allowed');
      assert.equal(r.received.length, 1);
    } finally {
      await r.close();
    }
  });

  it('says the same about a private target, a name that does not resolve and a refused connection', async () => {
    const r = await startReceiver();
    const closed = await startReceiver();
    const closedPort = closed.port;
    await closed.close();
    try {
      const attempts = [
        await send(`https://${loopbackAlias()}:${r.port}/hooks`, '{}', {}, false),
        await send(`https://127.0.0.1:${r.port}/hooks`, '{}', {}, false),
        await send('https://[64:ff9b::7f00:1]/hooks', '{}', {}, false),
        await send('https://no-such-host.invalid/hooks', '{}', {}, false),
        await send(`http://127.0.0.1:${closedPort}/hooks`, '{}', {}, true),
      ];
      assert.deepEqual(
        attempts.map((a) => [a.status, a.error]),
        attempts.map(() => [null, 'target unreachable']),
      );
      // The cause stays for the operator's log only.
      assert.equal(attempts[0].detail, 'refused: private target');
      assert.match(attempts[3].detail ?? '', /ENOTFOUND|EAI_AGAIN/);
      assert.match(attempts[4].detail ?? '', /ECONNREFUSED/);
      assert.equal(r.received.length, 0);
    } finally {
      await r.close();
    }
  });

  it('records a private target and an unresolvable name alike, as failed attempts its owner sees, and dead-letters them', async () => {
    const r = await startReceiver();
    try {
      const client = await newClient();
      const account = await register(client);
      const db = h().orm.em.fork();
      const [{ integrator_id: integratorId }] = await db.execute<Array<{ integrator_id: string }>>(
        'select integrator_id from account where id = ?',
        [account.account_id],
      );
      const [event] = await db.execute<Array<{ id: string }>>(
        `select id from outbox where message->>'account_id' = ? and event_name = 'register-account-completed'`,
        [account.account_id],
      );
      // Endpoints registered while private targets were allowed, delivered by a production worker.
      // They subscribe to nothing, so the suite's own relay and delivery workers never touch their rows
      // while this attempt runs (they did once: a deadlock with a delivery the relay had made for it).
      const targets = {
        whe_ssrf_private: `https://${loopbackAlias()}:${r.port}/hooks`,
        whe_ssrf_unknown: 'https://no-such-host.invalid/hooks',
      };
      const attempt = deliveryAttempts(db, { allowPrivateTargets: false, maxAttempts: 1, retryBaseMs: 10, disableAfterMs: 1e9 });
      const seen: unknown[] = [];
      for (const [endpointId, url] of Object.entries(targets)) {
        const deliveryId = endpointId.replace('whe_', 'whd_');
        await db.execute(
          `insert into webhook_endpoint (id, integrator_id, url, events, secret, status) values (?, ?, ?, '{}', 'whsec_AAAA', 'enabled')`,
          [endpointId, integratorId, url],
        );
        await db.execute(
          `insert into webhook_delivery (id, event_id, endpoint_id, integrator_id, state, job_id) values (?, ?, ?, ?, 'pending', 'x')`,
          [deliveryId, event.id, endpointId, integratorId],
        );
        const outcome = await attempt(deliveryId);
        assert.deepEqual([outcome.outcome, 'error' in outcome && outcome.error], ['dead', UNREACHABLE], url);
        const detail = await call('GET', `/v2/webhooks/${endpointId}`, { token: client.token });
        assert.equal(detail.status, 200, detail.text);
        seen.push(detail.body.payload.recent_attempts.map((a: any) => [a.status_code, a.ok, a.error]));
        const [row] = await db.execute<Array<{ last_error: string }>>('select last_error from webhook_delivery where id = ?', [deliveryId]);
        assert.equal(row.last_error, UNREACHABLE);
      }
      assert.deepEqual(seen, [[[null, false, 'target unreachable']], [[null, false, 'target unreachable']]]);
      assert.equal(r.received.length, 0);
    } finally {
      await r.close();
    }
  });
});
