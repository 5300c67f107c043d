import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { ConfigError, loadConfig, parseWorkerQueues } from '../../config/index.js';
import { productionOnSandbox } from '../../src/environment/environment.rules.js';

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
    ['WORKER_QUEUES', 'commands,payments'],
    ['WORKER_QUEUES', ' , '],
    ['COMMANDS_CONCURRENCY', '0'],
    ['WEBHOOKS_CONCURRENCY', 'many'],
    ['MAINTENANCE_CONCURRENCY', '1001'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '2.5'],
    ['COMMAND_JOB_BATCH', '0'],
    ['COMMAND_JOB_BATCH', '257'],
    ['STRIPE_WEBHOOK_SECRET', 'sk_live_notAWebhookSecret'],
    ['PAYPAL_WEBHOOK_ID', 'WH-1JE4 2910'],
  ];
  for (const [name, value] of bad) {
    it(`refuses ${name}=${value} naming the variable`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith(name),
      );
    });
  }

  it("takes the providers' webhook secret and id, unset by default, and never echoes a refused secret", () => {
    assert.deepEqual(loadConfig({}).providerWebhooks, { stripeWebhookSecret: undefined, paypalWebhookId: undefined });
    assert.deepEqual(loadConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_abc123DEF456', PAYPAL_WEBHOOK_ID: '1JE4291016473214C' }).providerWebhooks, {
      stripeWebhookSecret: 'whsec_abc123DEF456',
      paypalWebhookId: '1JE4291016473214C',
    });
    assert.throws(
      () => loadConfig({ STRIPE_WEBHOOK_SECRET: 'whsec_short' }),
      (err: Error) => err instanceof ConfigError && !err.message.includes('whsec_short'),
    );
  });

  it('refuses IDENTITY_VERIFIER=stripe without STRIPE_SECRET_KEY, in one line, and splits STRIPE_API_BASE', () => {
    assert.throws(
      () => loadConfig({ IDENTITY_VERIFIER: 'stripe' }),
      (err: Error) => err instanceof ConfigError && err.message === 'STRIPE_SECRET_KEY must be set when IDENTITY_VERIFIER=stripe',
    );
    const c = loadConfig({
      IDENTITY_VERIFIER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_test_abc123',
      STRIPE_API_BASE: 'http://127.0.0.1:12111',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc123DEF456',
    });
    assert.equal(c.rails.identity, 'stripe');
    assert.deepEqual(
      { ...c.stripeApi, secretKey: undefined },
      {
        secretKey: undefined,
        host: '127.0.0.1',
        port: 12111,
        protocol: 'http',
        jsUrl: 'https://js.stripe.com/v3/',
      },
    );
    assert.deepEqual([loadConfig({}).stripeApi.host, loadConfig({}).stripeApi.port], ['api.stripe.com', 443]);
    // Production no longer names the identity rail once it is on Stripe.
    const production = loadConfig({
      APP_ENV: 'production',
      IDENTITY_VERIFIER: 'stripe',
      STRIPE_SECRET_KEY: 'sk_live_abc123',
      STRIPE_WEBHOOK_SECRET: 'whsec_abc123DEF456',
    });
    assert.match(productionOnSandbox(production) ?? '', /: set CARD_PROCESSOR, PAYOUT_RAIL to a real adapter/);
  });

  it('refuses a Stripe rail without STRIPE_WEBHOOK_SECRET, and PayPal payouts without PAYPAL_WEBHOOK_ID, naming the variable', () => {
    // Without its webhook a Stripe rail never hears a session's result, a 3-D Secure charge or a refund failing.
    for (const rail of ['CARD_PROCESSOR', 'IDENTITY_VERIFIER'])
      assert.throws(
        () => loadConfig({ [rail]: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc123' }),
        (err: Error) => err instanceof ConfigError && err.message === `STRIPE_WEBHOOK_SECRET must be set when ${rail}=stripe`,
        rail,
      );
    assert.throws(
      () => loadConfig({ PAYOUT_RAIL: 'paypal', PAYPAL_CLIENT_ID: 'client', PAYPAL_CLIENT_SECRET: 'secret' }),
      (err: Error) => err instanceof ConfigError && err.message === 'PAYPAL_WEBHOOK_ID is required when PAYOUT_RAIL=paypal',
    );
    assert.equal(
      loadConfig({ CARD_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_abc123DEF456' }).rails
        .cards,
      'stripe',
    );
  });

  // One boot is enough to show how every ConfigError above stops the process: the same one line.
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

  it("serves every queue unless WORKER_QUEUES names some, in the queues' own order", () => {
    assert.deepEqual(loadConfig({}).workerQueues, ['commands', 'maintenance', 'webhooks']);
    assert.deepEqual(parseWorkerQueues(undefined), ['commands', 'maintenance', 'webhooks']);
    assert.deepEqual(parseWorkerQueues(''), ['commands', 'maintenance', 'webhooks']);
    assert.deepEqual(parseWorkerQueues('webhooks'), ['webhooks']);
    assert.deepEqual(parseWorkerQueues(' Webhooks , commands,,webhooks '), ['commands', 'webhooks']);
    assert.deepEqual(loadConfig({ WORKER_QUEUES: 'maintenance,commands' }).workerQueues, ['commands', 'maintenance']);
  });

  it('names WORKER_QUEUES, the queues it may list and the bad value in one line', () => {
    assert.throws(
      () => parseWorkerQueues('commands,webhook'),
      (err: Error) =>
        err instanceof ConfigError &&
        err.message === 'WORKER_QUEUES must list queues among commands, maintenance, webhooks, comma-separated (got "commands,webhook")',
    );
  });

  it("keeps today's concurrency and pool size as defaults, and takes others", () => {
    const c = loadConfig({});
    assert.deepEqual(c.concurrency, { commands: 16, webhooks: 64, maintenance: 16 });
    assert.equal(c.databasePoolSize, 10);
    const set = loadConfig({
      COMMANDS_CONCURRENCY: '4',
      WEBHOOKS_CONCURRENCY: '200',
      MAINTENANCE_CONCURRENCY: '1',
      DATABASE_POOL_SIZE: '25',
    });
    assert.deepEqual(set.concurrency, { commands: 4, webhooks: 200, maintenance: 1 });
    assert.equal(set.databasePoolSize, 25);
  });

  it('batches up to 32 commands per job unless COMMAND_JOB_BATCH says otherwise', () => {
    assert.equal(loadConfig({}).commandJobBatch, 32);
    assert.equal(loadConfig({ COMMAND_JOB_BATCH: '1' }).commandJobBatch, 1);
  });

  describe('the Stripe card rail (CARD_PROCESSOR=stripe)', () => {
    const stripe = { CARD_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_abc123DEF456' };
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.message;
      }
      return assert.fail('expected a ConfigError');
    };

    it("reaches Stripe's own API by default, and splits STRIPE_API_BASE into host, port and protocol", () => {
      const c = loadConfig(stripe);
      assert.equal(c.rails.cards, 'stripe');
      assert.deepEqual(c.stripeApi, {
        secretKey: 'sk_test_abc123',
        host: 'api.stripe.com',
        port: 443,
        protocol: 'https',
        jsUrl: 'https://js.stripe.com/v3/',
      });
      const local = loadConfig({ ...stripe, STRIPE_API_BASE: 'http://127.0.0.1:12111', STRIPE_JS_URL: 'http://127.0.0.1:12111/v3/' });
      assert.deepEqual([local.stripeApi.host, local.stripeApi.port, local.stripeApi.protocol], ['127.0.0.1', 12111, 'http']);
      assert.equal(local.stripeApi.jsUrl, 'http://127.0.0.1:12111/v3/');
    });

    it('requires STRIPE_SECRET_KEY with CARD_PROCESSOR=stripe, in one line naming it (never the key)', () => {
      assert.equal(refusal({ CARD_PROCESSOR: 'stripe' }), 'STRIPE_SECRET_KEY must be set when CARD_PROCESSOR=stripe');
      const bad = refusal({ CARD_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'pk_test_published' });
      assert.match(bad, /^STRIPE_SECRET_KEY must be /);
      assert.ok(!bad.includes('pk_test_published'));
      assert.equal(loadConfig({}).stripeApi.secretKey, undefined);
    });

    it('refuses a STRIPE_API_BASE or STRIPE_JS_URL that is no origin or URL, naming it', () => {
      assert.match(refusal({ ...stripe, STRIPE_API_BASE: 'https://api.stripe.com/v1' }), /^STRIPE_API_BASE must be an origin/);
      assert.match(refusal({ ...stripe, STRIPE_API_BASE: 'ftp://x' }), /^STRIPE_API_BASE must start with/);
      assert.match(refusal({ ...stripe, STRIPE_JS_URL: 'not a url' }), /^STRIPE_JS_URL must be a URL/);
      assert.match(refusal({ CARD_PROCESSOR: 'adyen' }), /^CARD_PROCESSOR must be one of sandbox, stripe/);
    });
  });
});

describe('config: PayPal Payouts (PAYOUT_RAIL=paypal)', () => {
  const paypal = {
    PAYOUT_RAIL: 'paypal',
    PAYPAL_CLIENT_ID: 'AbC-123_x',
    PAYPAL_CLIENT_SECRET: 'EFg-456_y',
    PAYPAL_WEBHOOK_ID: '1JE4291016473214C',
  };

  it('keeps payouts on the sandbox and asks nothing of PayPal by default', () => {
    const config = loadConfig({});
    assert.equal(config.rails.payouts, 'sandbox');
    assert.equal(config.paypal, undefined);
    assert.equal(loadConfig({ PAYPAL_CLIENT_ID: 'ignored' }).paypal, undefined);
  });

  it("reads PayPal's variables, the live API by default, the sandbox's or a fake's when given", () => {
    assert.deepEqual(loadConfig(paypal).paypal, {
      clientId: 'AbC-123_x',
      clientSecret: 'EFg-456_y',
      webhookId: '1JE4291016473214C',
      apiBase: 'https://api-m.paypal.com',
    });
    assert.equal(
      loadConfig({ ...paypal, PAYPAL_API_BASE: 'https://api-m.sandbox.paypal.com/' }).paypal?.apiBase,
      'https://api-m.sandbox.paypal.com',
    );
    assert.equal(loadConfig({ ...paypal, PAYPAL_API_BASE: 'http://127.0.0.1:4010' }).paypal?.apiBase, 'http://127.0.0.1:4010');
  });

  for (const name of ['PAYPAL_CLIENT_ID', 'PAYPAL_CLIENT_SECRET', 'PAYPAL_WEBHOOK_ID']) {
    it(`requires ${name} when PAYOUT_RAIL=paypal, in one line naming it`, () => {
      assert.throws(
        () => loadConfig({ ...paypal, [name]: '' }),
        (err: Error) => err instanceof ConfigError && err.message === `${name} is required when PAYOUT_RAIL=paypal`,
      );
      assert.throws(
        () => loadConfig({ ...paypal, [name]: 'has space' }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith(name) && !err.message.includes('\n'),
      );
    });
  }

  it('refuses a PAYPAL_API_BASE that is not a URL, and http in production', () => {
    for (const bad of ['api-m.paypal.com', 'ftp://paypal.example']) {
      assert.throws(
        () => loadConfig({ ...paypal, PAYPAL_API_BASE: bad }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith('PAYPAL_API_BASE'),
      );
    }
    assert.throws(
      () => loadConfig({ ...paypal, APP_ENV: 'production', PAYPAL_API_BASE: 'http://127.0.0.1:4010' }),
      (err: Error) => err instanceof ConfigError && err.message.startsWith('PAYPAL_API_BASE'),
    );
  });

  it("refuses PayPal's sandbox as the API in production, and takes its live API", () => {
    for (const sandbox of ['https://api-m.sandbox.paypal.com', 'https://api.sandbox.paypal.com/']) {
      assert.throws(
        () => loadConfig({ ...paypal, APP_ENV: 'production', PAYPAL_API_BASE: sandbox }),
        (err: Error) => err instanceof ConfigError && err.message.startsWith("PAYPAL_API_BASE must be PayPal's live API in production"),
      );
      assert.equal(loadConfig({ ...paypal, PAYPAL_API_BASE: sandbox }).paypal?.apiBase, sandbox.replace(/\/$/, ''), 'staging may use it');
    }
    assert.equal(loadConfig({ ...paypal, APP_ENV: 'production' }).paypal?.apiBase, 'https://api-m.paypal.com');
  });

  it('refuses a test-mode Stripe key and an http STRIPE_API_BASE in production, where money is real', () => {
    const stripe = { APP_ENV: 'production', CARD_PROCESSOR: 'stripe', STRIPE_WEBHOOK_SECRET: 'whsec_abc123DEF456' };
    for (const key of ['sk_test_abc123', 'rk_test_abc123']) {
      assert.throws(
        () => loadConfig({ ...stripe, STRIPE_SECRET_KEY: key }),
        (err: Error) =>
          err instanceof ConfigError && err.message.startsWith('STRIPE_SECRET_KEY must be a live key') && !err.message.includes(key),
      );
      assert.equal(
        loadConfig({ ...stripe, APP_ENV: 'staging', STRIPE_SECRET_KEY: key }).stripeApi.secretKey,
        key,
        'staging takes test keys',
      );
    }
    assert.equal(
      loadConfig({ ...stripe, STRIPE_SECRET_KEY: 'rk_live_abc123', STRIPE_PUBLISHABLE_KEY: 'pk_live_abc123' }).stripeApi.protocol,
      'https',
    );
    assert.throws(
      () =>
        loadConfig({
          ...stripe,
          STRIPE_SECRET_KEY: 'sk_live_abc123',
          STRIPE_PUBLISHABLE_KEY: 'pk_live_abc123',
          STRIPE_API_BASE: 'http://127.0.0.1:12111',
        }),
      (err: Error) => err instanceof ConfigError && err.message.startsWith('STRIPE_API_BASE'),
    );
  });

  it('STRIPE_PUBLISHABLE_KEY: a publishable key; in production with CARD_PROCESSOR=stripe required and live', () => {
    const live = {
      APP_ENV: 'production',
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: 'sk_live_abc123',
      STRIPE_WEBHOOK_SECRET: 'whsec_testsecret',
    };
    const refused = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (err) {
        assert.ok(err instanceof ConfigError, String(err));
        return err.message;
      }
      return assert.fail('expected a ConfigError');
    };
    assert.match(refused(live), /^STRIPE_PUBLISHABLE_KEY must be set when CARD_PROCESSOR=stripe in production/);
    const testKey = refused({ ...live, STRIPE_PUBLISHABLE_KEY: 'pk_test_abc123' });
    assert.match(testKey, /^STRIPE_PUBLISHABLE_KEY must be a live key/);
    assert.ok(!testKey.includes('pk_test_abc123'));
    assert.match(
      refused({
        CARD_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_abc123',
        STRIPE_WEBHOOK_SECRET: 'whsec_testsecret',
        STRIPE_PUBLISHABLE_KEY: 'sk_test_abc123',
      }),
      /^STRIPE_PUBLISHABLE_KEY must be a Stripe publishable key/,
    );
    assert.equal(loadConfig({ ...live, STRIPE_PUBLISHABLE_KEY: 'pk_live_abc123' }).stripeApi.publishableKey, 'pk_live_abc123');
    // Staging takes a test key, and runs without one (the hosted pages then cannot add a card).
    assert.equal(
      loadConfig({
        CARD_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: 'sk_test_abc123',
        STRIPE_WEBHOOK_SECRET: 'whsec_testsecret',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_abc123',
      }).stripeApi.publishableKey,
      'pk_test_abc123',
    );
    assert.equal(
      loadConfig({ CARD_PROCESSOR: 'stripe', STRIPE_SECRET_KEY: 'sk_test_abc123', STRIPE_WEBHOOK_SECRET: 'whsec_testsecret' }).stripeApi
        .publishableKey,
      undefined,
    );
  });

  it('never puts the secret in a ConfigError', () => {
    assert.throws(
      () => loadConfig({ ...paypal, PAYPAL_CLIENT_SECRET: 'sec ret' }),
      (err: Error) => err instanceof ConfigError && !err.message.includes('sec ret'),
    );
  });
});
