import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig } from '../../config/index.js';

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    assert.equal(c.role, 'all');
    assert.equal(c.appEnv, 'staging');
    assert.equal(c.port, 3000);
    assert.equal(c.syncWaitMs, 10_000);
    assert.equal(c.tokenExchangeTtlSeconds, 900);
    assert.equal(c.queuePrefix, '{holdfast}');
    assert.equal(c.webhookAllowPrivateTargets, true);
    assert.equal(c.databaseUrl, undefined);
    assert.equal(loadConfig({ APP_ENV: 'production' }).webhookAllowPrivateTargets, false);
  });

  const bad: Array<[string, string]> = [
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['ROLE', 'both'],
    ['APP_ENV', 'prod'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'http://x'],
    ['SYNC_WAIT_MS', '-1'],
    ['TOKEN_EXCHANGE_TTL_SECONDS', '0'],
    ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_URL', 'ftp://x'],
    ['COMMAND_SWEEP_AFTER_MS', '5'],
  ];
  for (const [name, value] of bad) {
    it(`refuses ${name}=${value} naming the variable`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith(name),
      );
    });
  }

  it('stops the process at boot with one line naming the bad variable', () => {
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, PORT: 'abc' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(res.status, 1);
    assert.equal(res.stderr.trim().split('\n').length, 1, res.stderr);
    assert.match(res.stderr, /^holdfast: PORT must be/);
  });

  it('reads FRAME_ANCESTORS as CSP origins (any page by default) and refuses anything else', () => {
    assert.equal(loadConfig({}).frameAncestors, '*');
    assert.equal(
      loadConfig({ FRAME_ANCESTORS: " https://shop.example   https://*.games.example:8443 'self' " }).frameAncestors,
      "https://shop.example https://*.games.example:8443 'self'",
    );
    for (const bad of ['shop.example', "https://x.example; script-src 'unsafe-inline'", 'javascript:alert(1)']) {
      assert.throws(() => loadConfig({ FRAME_ANCESTORS: bad }), /FRAME_ANCESTORS/, bad);
    }
  });

  it('reads METRICS_TOKEN as a long bearer token, unset by default', () => {
    assert.equal(loadConfig({}).metricsToken, undefined);
    const token = `${'a'.repeat(31)}Z`;
    assert.equal(loadConfig({ METRICS_TOKEN: token }).metricsToken, token);
    for (const bad of ['short', `${token} x`, `${token}"`]) {
      assert.throws(
        () => loadConfig({ METRICS_TOKEN: bad }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith('METRICS_TOKEN'),
        bad,
      );
    }
  });

  it('takes secrets in the query string of /token unless TOKEN_QUERY_CREDENTIALS=false', () => {
    assert.equal(loadConfig({}).tokenQueryCredentials, true);
    assert.equal(loadConfig({ TOKEN_QUERY_CREDENTIALS: 'false' }).tokenQueryCredentials, false);
    assert.throws(
      () => loadConfig({ TOKEN_QUERY_CREDENTIALS: 'no' }),
      (err: Error) => err instanceof ConfigError && err.message.startsWith('TOKEN_QUERY_CREDENTIALS'),
    );
  });
});
