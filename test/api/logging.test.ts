import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createClient } from '../../src/auth/auth.service.js';
import { openOrm } from '../../src/db/orm.js';
import { call, h, startExtraApp, unique } from '../support/harness.js';

function memoryLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), text: () => lines.join('') };
}

describe('logs', () => {
  it('carry one JSON line per request with its request id, and never a secret, SQL or stack trace', async () => {
    const creds = await createClient(h().orm.em.fork(), { integrator: unique('log-'), scopes: ['search_accounts'] });
    const mem = memoryLogger();
    const app = await startExtraApp({ logger: mem.logger });
    const closed = await openOrm(h().databaseUrl, 1);
    await closed.close(true);
    const broken = await startExtraApp({ logger: mem.logger, orm: closed });
    try {
      const q = new URLSearchParams({ grant_type: 'client_credentials', client_id: creds.client_id, client_secret: creds.client_secret });
      const token = await call('POST', `/token?${q}`, { baseUrl: app.baseUrl, headers: { 'x-request-id': 'log-test-1' } });
      assert.equal(token.status, 200);
      await call('GET', '/v1/user-info/acct_x', { baseUrl: app.baseUrl, token: token.body.access_token });
      await call('GET', '/v1/user-info/acct_x', { baseUrl: broken.baseUrl, token: token.body.access_token });
      // A hosted-session link refused before its nonce is spent: the nonce still works, so it is never logged.
      const nonce = 'n'.repeat(43);
      assert.equal((await fetch(`${app.baseUrl}/ui/appauth/${nonce}?flow=nope`)).status, 400);
      // Nor a console user's set-password link, used or not.
      const setup = 's'.repeat(43);
      assert.equal((await fetch(`${app.baseUrl}/console/set-password/${setup}`)).status, 404);
      const text = mem.text();
      const lines = text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(lines.some((l) => l.req_id === 'log-test-1' && l.path === '/token' && l.status === 200));
      assert.ok(
        lines.some((l) => l.msg === 'request failed' && l.err?.type),
        'the 500 is logged',
      );
      for (const secret of [creds.client_secret, token.body.access_token, nonce, setup]) assert.equal(text.includes(secret), false);
      assert.ok(lines.some((l) => l.path === '/ui/appauth/[redacted]' && l.status === 400));
      assert.ok(lines.some((l) => l.path === '/console/set-password/[redacted]' && l.status === 404));
      assert.doesNotMatch(text, /select |insert into|\bat \w+ \(|node_modules/i);
    } finally {
      await app.close();
      await broken.close();
    }
  });
});
