/**
 * The typed configuration: read from the environment once, validated at boot.
 * A bad value stops the process with one line naming the variable (ConfigError).
 */
import { FAILPOINTS, THROWING_FAILPOINTS } from '../src/runtime/failpoints.js';
import { DEFAULT_COMMAND_JOB_BATCH, QueueName } from '../src/queues/names.js';
import { parseRedisUrl, RedisUrlError } from '../src/queues/redis-url.rules.js';
import { RAILS, type Rail, type RailAdapter, type RailChoice } from '../src/rails/rail-choice.rules.js';

export type Role = 'all' | 'web' | 'worker';
export type AppEnv = 'staging' | 'production';

export interface Config {
  role: Role;
  appEnv: AppEnv;
  /** Why `appEnv` is what it is: `APP_ENV`, else `NODE_ENV=production`, else the staging default. */
  appEnvFrom: 'APP_ENV' | 'NODE_ENV' | 'default';
  /** The adapter each money rail runs on (CARD_PROCESSOR, IDENTITY_VERIFIER, PAYOUT_RAIL; `sandbox` by default). */
  rails: RailChoice;
  /** PayPal Payouts' credentials, webhook and API base: set when PAYOUT_RAIL=paypal. */
  paypal: PaypalConfig | undefined;
  /** Stripe's API for the Stripe rails (STRIPE_SECRET_KEY, STRIPE_API_BASE, STRIPE_JS_URL); the key is set when CARD_PROCESSOR or IDENTITY_VERIFIER is stripe. */
  stripeApi: StripeApiConfig;
  /** Provider webhooks in (STRIPE_WEBHOOK_SECRET, PAYPAL_WEBHOOK_ID): an endpoint whose value is unset is not mounted (404). */
  providerWebhooks: ProviderWebhooks;
  port: number;
  /** Unset means "discover or start a local PostgreSQL". */
  databaseUrl: string | undefined;
  /** Unset means "discover or start a local Redis". */
  redisUrl: string | undefined;
  publicUrl: string;
  syncWaitMs: number;
  queuePrefix: string;
  commandSweepAfterMs: number;
  /** How often the sweeper looks for stalled commands. */
  commandSweepEveryMs: number;
  /** BullMQ job lock: a job whose worker died is retried after this (and the stall check). */
  workerLockMs: number;
  /** The queues a worker process serves (WORKER_QUEUES; default every queue), each with its side jobs. */
  workerQueues: QueueName[];
  /** Jobs each queue's worker runs at once in one process (COMMANDS_/WEBHOOKS_/MAINTENANCE_CONCURRENCY). */
  concurrency: Record<QueueName, number>;
  /** At most this many commands per BullMQ job when a web process enqueues several in one turn (COMMAND_JOB_BATCH; 1: a job per command). */
  commandJobBatch: number;
  /** Connections in each process's PostgreSQL pool (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** Fault-test failpoints (HOLDFAST_FAILPOINTS); never in production. */
  failpoints: string[];
  webhookAllowPrivateTargets: boolean;
  /** First webhook retry delay; each next one doubles (with jitter), capped at 480× this. */
  webhookRetryBaseMs: number;
  /** Attempts per delivery before it is dead-lettered (the default schedule spans about a day). */
  webhookMaxAttempts: number;
  /** An endpoint failing without a success for this long is disabled. */
  webhookDisableAfterMs: number;
  adminUser: string;
  adminPassword: string | undefined;
  /** A bearer token for Prometheus scrapers: `/metrics` also answers `Authorization: Bearer <it>`. */
  metricsToken: string | undefined;
  /** Whether `POST /token` takes `client_secret` and `refresh_token` from the query string (discouraged). */
  tokenQueryCredentials: boolean;
  /** Hosts a hosted flow's `postOAuthURLOverride` may send the user back to (`example.com`, `*.example.com`). */
  allowedRedirectPatterns: string[];
  /** Who may frame the hosted pages: CSP `frame-ancestors` sources (`*` by default: any integrator's page). */
  frameAncestors: string;
  /** Requests a user password token's account may make per minute (429 past it). */
  userRateLimitPerMinute: number;
  /** Cards that may be added to one account per hour (429 past it: card testing). */
  cardAddsPerHour: number;
  /** PayPal webhook deliveries verified with PayPal per minute, all web processes together (PAYPAL_WEBHOOK_VERIFY_PER_MINUTE); past it 429. */
  paypalWebhookVerifyPerMinute: number;
  /** How long a token exchange may be executed after it was quoted. */
  tokenExchangeTtlSeconds: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

/** Where and how the `stripe` package reaches Stripe's API, and the browser library's URL. */
export interface StripeApiConfig {
  /** Unset unless a rail uses Stripe. */
  secretKey: string | undefined;
  /** STRIPE_API_BASE split into the package's options (default Stripe's own, https://api.stripe.com). */
  host: string;
  port: number;
  protocol: 'http' | 'https';
  /** STRIPE_JS_URL: Stripe's browser library (default https://js.stripe.com/v3/). */
  jsUrl: string;
  /**
   * STRIPE_PUBLISHABLE_KEY: what the hosted pages give Stripe's browser library to collect a card
   * (pk_live_…, pk_test_…). Required in production with CARD_PROCESSOR=stripe; unset in staging,
   * the hosted pages cannot add a card under the Stripe processor.
   */
  publishableKey?: string;
}

export class ConfigError extends Error {}

/** PayPal's REST app (PAYPAL_CLIENT_ID, PAYPAL_CLIENT_SECRET), its webhook (PAYPAL_WEBHOOK_ID) and PAYPAL_API_BASE. */
export interface PaypalConfig {
  clientId: string;
  clientSecret: string;
  webhookId: string;
  apiBase: string;
}

type Env = Record<string, string | undefined>;

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL (${protocols.join(' or ')})`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')}`);
  }
  return raw;
}

/** `REDIS_URL`: one server, a Sentinel set or a Cluster (src/queues/redis-url.rules.ts). */
function redisUrl(env: Env): string | undefined {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return undefined;
  if (/^rediss?:/i.test(raw)) return url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  try {
    parseRedisUrl(raw);
  } catch (err) {
    if (err instanceof RedisUrlError) throw new ConfigError(err.message);
    throw err;
  }
  return raw;
}

function failpoints(env: Env, appEnv: AppEnv): string[] {
  const list = (env.HOLDFAST_FAILPOINTS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length && appEnv === 'production') throw new ConfigError('HOLDFAST_FAILPOINTS must not be set when APP_ENV=production');
  const unknown = list.filter((f) => !([...FAILPOINTS, ...THROWING_FAILPOINTS] as readonly string[]).includes(f));
  if (unknown.length) throw new ConfigError(`HOLDFAST_FAILPOINTS names unknown failpoints: ${unknown.join(', ')}`);
  return list;
}

/** `FRAME_ANCESTORS`: space-separated CSP sources (`https://shop.example`, `https://*.example.com`, `'self'`), or `*`. */
function frameAncestors(env: Env): string {
  const raw = (env.FRAME_ANCESTORS ?? '').trim();
  if (raw === '') return '*';
  for (const source of raw.split(/\s+/)) {
    if (!/^(\*|'self'|'none'|https?:\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?)$/i.test(source)) {
      throw new ConfigError(`FRAME_ANCESTORS must list origins such as https://shop.example (got "${source}")`);
    }
  }
  return raw.split(/\s+/).join(' ');
}

/** `METRICS_TOKEN`: a bearer token (RFC 6750 characters), long enough not to be guessed. */
function metricsToken(env: Env): string | undefined {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[A-Za-z0-9\-._~+/]{32,}=*$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN must be at least 32 characters of A-Z a-z 0-9 - . _ ~ + / (such as `openssl rand -hex 32`)');
  }
  return raw;
}

/**
 * `WORKER_QUEUES`: comma-separated queue names (`commands,webhooks,maintenance`); unset or empty
 * means every queue. Names are trimmed and lower-cased, repeats collapse; an unknown name, or a list
 * of nothing but commas, is refused naming the variable.
 */
export function parseWorkerQueues(raw: string | undefined): QueueName[] {
  const all = Object.values(QueueName);
  if (raw === undefined || raw.trim() === '') return all;
  const names = raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !(all as string[]).includes(n));
  if (unknown.length || !names.length) {
    throw new ConfigError(`WORKER_QUEUES must list queues among ${all.join(', ')}, comma-separated (got "${raw}")`);
  }
  // In the queues' own order, so logs and tests read the same whatever order the variable used.
  return all.filter((q) => names.includes(q));
}

/**
 * The environment: `APP_ENV` when set; otherwise `NODE_ENV=production` means production (a
 * platform that sets only NODE_ENV must not get staging's open doors); otherwise staging.
 */
function appEnvironment(env: Env): { appEnv: AppEnv; appEnvFrom: Config['appEnvFrom'] } {
  if (env.APP_ENV) return { appEnv: oneOf(env, 'APP_ENV', ['staging', 'production'] as const, 'staging'), appEnvFrom: 'APP_ENV' };
  if (env.NODE_ENV === 'production') return { appEnv: 'production', appEnvFrom: 'NODE_ENV' };
  return { appEnv: 'staging', appEnvFrom: 'default' };
}

function rails(env: Env): RailChoice {
  const pick = <R extends Rail>(rail: R): RailAdapter<R> =>
    oneOf<RailAdapter<R>>(env, RAILS[rail].variable, RAILS[rail].adapters as readonly RailAdapter<R>[], 'sandbox' as RailAdapter<R>);
  return { cards: pick('cards'), identity: pick('identity'), payouts: pick('payouts') };
}

/**
 * `STRIPE_SECRET_KEY`, `STRIPE_API_BASE` and `STRIPE_JS_URL`: the key is required with
 * CARD_PROCESSOR=stripe or IDENTITY_VERIFIER=stripe and must look like a secret or restricted
 * key (never echoed); the API base is a bare origin, split into the `stripe` package's host,
 * port and protocol.
 */
function stripeApi(env: Env, choice: RailChoice, appEnv: AppEnv): StripeApiConfig {
  const key = env.STRIPE_SECRET_KEY || undefined;
  const needs = (Object.keys(RAILS) as Rail[]).find((rail) => (choice[rail] as string) === 'stripe');
  if (needs && !key) throw new ConfigError(`STRIPE_SECRET_KEY must be set when ${RAILS[needs].variable}=stripe`);
  if (key && !/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(key))
    throw new ConfigError('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_live_…, sk_test_…, rk_…)');
  // A test-mode key in production would take test cards as payment and pass anyone's identity.
  if (needs && appEnv === 'production' && key && !/^(sk|rk)_live_/.test(key))
    throw new ConfigError(
      'STRIPE_SECRET_KEY must be a live key (sk_live_… or rk_live_…) in production: a test-mode key takes test cards as payment',
    );
  const base = new URL(url(env, 'STRIPE_API_BASE', appEnv === 'production' ? ['https:'] : ['http:', 'https:']) ?? 'https://api.stripe.com');
  if (base.pathname !== '/' || base.search || base.username || base.password)
    throw new ConfigError(
      `STRIPE_API_BASE must be an origin such as https://api.stripe.com, without a path (got "${env.STRIPE_API_BASE}")`,
    );
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  return {
    secretKey: key,
    host: base.hostname.replace(/^\[|\]$/g, ''),
    port: base.port ? Number(base.port) : protocol === 'http' ? 80 : 443,
    protocol,
    jsUrl: url(env, 'STRIPE_JS_URL', ['http:', 'https:']) ?? 'https://js.stripe.com/v3/',
    ...publishableKey(env, choice, appEnv),
  };
}

/**
 * `STRIPE_PUBLISHABLE_KEY`: a publishable key (pk_live_…, pk_test_…), the one key a browser sees.
 * Production with CARD_PROCESSOR=stripe serves the hosted checkout on it, so it must be set there,
 * and live: a test-mode key would take test cards, as a test-mode secret key would.
 */
function publishableKey(env: Env, choice: RailChoice, appEnv: AppEnv): { publishableKey?: string } {
  const key = env.STRIPE_PUBLISHABLE_KEY || undefined;
  if (key !== undefined && !/^pk_(test|live)_[A-Za-z0-9_]+$/.test(key))
    throw new ConfigError('STRIPE_PUBLISHABLE_KEY must be a Stripe publishable key (pk_live_…, pk_test_…)');
  if (choice.cards === 'stripe' && appEnv === 'production') {
    if (!key)
      throw new ConfigError(
        'STRIPE_PUBLISHABLE_KEY must be set when CARD_PROCESSOR=stripe in production (the hosted checkout collects cards with it)',
      );
    if (!key.startsWith('pk_live_'))
      throw new ConfigError(
        'STRIPE_PUBLISHABLE_KEY must be a live key (pk_live_…) in production: a test-mode key takes test cards as payment',
      );
  }
  return key ? { publishableKey: key } : {};
}

/** What verifies the providers' webhooks: Stripe's endpoint signing secret and PayPal's webhook id. */
export interface ProviderWebhooks {
  stripeWebhookSecret: string | undefined;
  paypalWebhookId: string | undefined;
}

function providerWebhooks(env: Env, choice: RailChoice): ProviderWebhooks {
  const stripe = env.STRIPE_WEBHOOK_SECRET || undefined;
  // A Stripe rail hears its outcomes (a session's result, a 3-D Secure charge, a refund failing) only by webhook.
  const onStripe = (Object.keys(RAILS) as Rail[]).find((rail) => (choice[rail] as string) === 'stripe');
  if (onStripe && stripe === undefined) throw new ConfigError(`STRIPE_WEBHOOK_SECRET must be set when ${RAILS[onStripe].variable}=stripe`);
  if (stripe !== undefined && !/^whsec_[A-Za-z0-9+/=_-]{8,}$/.test(stripe))
    throw new ConfigError("STRIPE_WEBHOOK_SECRET must be the endpoint's signing secret from Stripe (whsec_…)");
  const paypal = env.PAYPAL_WEBHOOK_ID || undefined;
  // PayPal's verify-webhook-signature takes `webhook_id` as ^[a-zA-Z0-9]+$, at most 50.
  if (paypal !== undefined && !/^[A-Za-z0-9]{1,50}$/.test(paypal))
    throw new ConfigError(
      `PAYPAL_WEBHOOK_ID must be the webhook's id from PayPal (letters and digits, such as 1JE4291016473214C; got "${paypal}")`,
    );
  return { stripeWebhookSecret: stripe, paypalWebhookId: paypal };
}

/**
 * The PayPal variables, required when PAYOUT_RAIL=paypal. PAYPAL_API_BASE defaults to PayPal's
 * live API (`https://api-m.sandbox.paypal.com` is its sandbox); http is for local fakes, staging only.
 */
function paypal(env: Env, choice: RailChoice, appEnv: AppEnv, webhookId: string | undefined): PaypalConfig | undefined {
  if (choice.payouts !== 'paypal') return undefined;
  const required = (name: string, shape: RegExp, what: string) => {
    const raw = env[name] ?? '';
    if (raw === '') throw new ConfigError(`${name} is required when PAYOUT_RAIL=paypal`);
    if (!shape.test(raw)) throw new ConfigError(`${name} must be ${what}`);
    return raw;
  };
  const apiBase = url(env, 'PAYPAL_API_BASE', appEnv === 'production' ? ['https:'] : ['https:', 'http:']) ?? 'https://api-m.paypal.com';
  // PayPal's sandbox pays nobody: production payouts on it would be accepted and never paid.
  if (appEnv === 'production' && /(^|\.)sandbox\.paypal\.com$/i.test(new URL(apiBase).hostname))
    throw new ConfigError(`PAYPAL_API_BASE must be PayPal's live API in production, not its sandbox (got "${apiBase}")`);
  const clientId = required('PAYPAL_CLIENT_ID', /^[\w-]{1,200}$/, "the REST app's client ID (letters, digits, - and _)");
  const clientSecret = required('PAYPAL_CLIENT_SECRET', /^[\w-]{1,200}$/, "the REST app's secret (letters, digits, - and _)");
  // Its shape is checked with the webhook inbox's variables (providerWebhooks).
  if (!webhookId) throw new ConfigError('PAYPAL_WEBHOOK_ID is required when PAYOUT_RAIL=paypal');
  return { clientId, clientSecret, webhookId, apiBase: apiBase.replace(/\/+$/, '') };
}

/** Reads and validates the whole configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const { appEnv, appEnvFrom } = appEnvironment(env);
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicUrl = url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`;
  const redis = redisUrl(env);
  const queuePrefix = env.QUEUE_PREFIX || '{holdfast}';
  // BullMQ runs a queue's commands on all its keys at once: on a cluster they must share a slot.
  if (redis && /^redis\+cluster:/i.test(redis) && !/\{[^{}]+\}/.test(queuePrefix))
    throw new ConfigError(`QUEUE_PREFIX must hold a hash tag such as {holdfast} when REDIS_URL names a cluster (got "${queuePrefix}")`);
  const choice = rails(env);
  // The key before the webhook secret: the first missing variable a Stripe rail needs is named first.
  const stripe = stripeApi(env, choice, appEnv);
  const hooks = providerWebhooks(env, choice);
  return {
    role: oneOf(env, 'ROLE', ['all', 'web', 'worker'] as const, 'all'),
    appEnv,
    appEnvFrom,
    rails: choice,
    paypal: paypal(env, choice, appEnv, hooks.paypalWebhookId),
    providerWebhooks: hooks,
    stripeApi: stripe,
    port,
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    redisUrl: redis,
    publicUrl: publicUrl.replace(/\/+$/, ''),
    syncWaitMs: integer(env, 'SYNC_WAIT_MS', 10_000, 0, 120_000),
    queuePrefix,
    commandSweepAfterMs: integer(env, 'COMMAND_SWEEP_AFTER_MS', 30_000, 1_000, 3_600_000),
    commandSweepEveryMs: integer(env, 'COMMAND_SWEEP_EVERY_MS', 10_000, 200, 3_600_000),
    workerLockMs: integer(env, 'WORKER_LOCK_MS', 30_000, 1_000, 600_000),
    workerQueues: parseWorkerQueues(env.WORKER_QUEUES),
    concurrency: {
      [QueueName.Commands]: integer(env, 'COMMANDS_CONCURRENCY', 16, 1, 1_000),
      // Deliveries wait on receivers (up to 10 s each): more of them run at once.
      [QueueName.Webhooks]: integer(env, 'WEBHOOKS_CONCURRENCY', 64, 1, 1_000),
      [QueueName.Maintenance]: integer(env, 'MAINTENANCE_CONCURRENCY', 16, 1, 1_000),
    },
    commandJobBatch: integer(env, 'COMMAND_JOB_BATCH', DEFAULT_COMMAND_JOB_BATCH, 1, 256),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
    failpoints: failpoints(env, appEnv),
    webhookAllowPrivateTargets: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_TARGETS', appEnv === 'staging'),
    webhookRetryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 30_000, 1, 3_600_000),
    webhookMaxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 15, 1, 100),
    webhookDisableAfterMs: integer(env, 'WEBHOOK_DISABLE_AFTER_MS', 5 * 24 * 3_600_000, 1_000, 365 * 24 * 3_600_000),
    adminUser: env.ADMIN_USER || 'admin',
    adminPassword: env.ADMIN_PASSWORD || undefined,
    metricsToken: metricsToken(env),
    tokenQueryCredentials: boolean(env, 'TOKEN_QUERY_CREDENTIALS', true),
    allowedRedirectPatterns: (env.ALLOWED_REDIRECT_PATTERNS ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    frameAncestors: frameAncestors(env),
    userRateLimitPerMinute: integer(env, 'USER_RATE_LIMIT_PER_MINUTE', 300, 1, 1_000_000),
    cardAddsPerHour: integer(env, 'CARD_ADDS_PER_HOUR', 20, 1, 1_000_000),
    paypalWebhookVerifyPerMinute: integer(env, 'PAYPAL_WEBHOOK_VERIFY_PER_MINUTE', 600, 1, 1_000_000),
    tokenExchangeTtlSeconds: integer(env, 'TOKEN_EXCHANGE_TTL_SECONDS', 900, 1, 7 * 24 * 3600),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
  };
}
