/**
 * The test harness: one Holdfast web app per run, on a database and a Redis key prefix of the
 * run's own, against real PostgreSQL and Redis found (or started) exactly as `npm start` does.
 *
 * - `TEST_DATABASE_URL` names the database to use (created when missing, emptied at the start
 *   only when no other session is connected to it); by default each run makes
 *   `holdfast_test_<time>_<random>` and drops it at the end, so two runs on one PostgreSQL never
 *   share or drop each other's database.
 * - `TEST_QUEUE_PREFIX` names the Redis key prefix (default `{holdfast-test-<same suffix>}`); the
 *   run deletes its keys at the end.
 */
import { spawn } from 'node:child_process';
import { Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type Config, loadConfig } from '../../config/index.js';
import { TokenSigner } from '../../src/auth/auth.service.js';
import { createClient } from '../../src/auth/auth.service.js';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { settleEnvironment } from '../../src/environment/environment.service.js';
import { buildApp } from '../../src/http/app.js';
import { withCliIo } from '../../src/cli/cli-support.js';
import { runCli } from '../../src/cli/main.js';
import type { IdentityVerifier } from '../../src/rails/identity-verifier.port.js';
import { createRedis, type RedisConnection } from '../../src/queues/connection.js';
import { createLogger, type Logger } from '../../src/runtime/logger.js';
import { resolveServices, type ResolvedServices } from '../../src/runtime/services.js';
import { checkResponse } from './contract.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import type { CardProcessor } from '../../src/rails/card-processor.port.js';
import { startWorkers, type RunningWorkers } from '../../workers/index.js';

/** This run's suffix: base-36 start time (stale databases of crashed runs are recognised by it) and a random part. */
const RUN = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
const NAMED_URL = process.env.TEST_DATABASE_URL || undefined;
export const TEST_DATABASE = NAMED_URL ? decodeURIComponent(new URL(NAMED_URL).pathname.slice(1)) : `holdfast_test_${RUN}`;
export const TEST_QUEUE_PREFIX = process.env.TEST_QUEUE_PREFIX || `{holdfast-test-${RUN}}`;
/** Databases this run's own tests make beside the main one: named after it, so runs never share them. */
export function scratchDatabase(purpose: string): string {
  return `${TEST_DATABASE}_${purpose}`.slice(0, 63);
}
/** A crashed run's database is dropped by a later run once it is this old and nobody uses it. */
const STALE_AFTER_MS = 6 * 3_600_000;
/** Webhook retries in milliseconds, not minutes: four attempts, 40 ms apart and doubling. */
export const TEST_WEBHOOK_POLICY = { allowPrivateTargets: true, maxAttempts: 4, retryBaseMs: 40, disableAfterMs: 5 * 24 * 3_600_000 };

export interface Harness {
  baseUrl: string;
  bus: CommandBus;
  workers: RunningWorkers;
  databaseUrl: string;
  redisUrl: string;
  orm: MikroORM;
  redis: RedisConnection;
  signer: TokenSigner;
  server: Server;
  services: ResolvedServices;
}

// Kept on globalThis: mocha may load this module twice (CommonJS for the root hooks, ESM for
// test files with top-level await), and both copies must see the one harness.
const state = globalThis as { holdfastHarness?: Harness };

export function h(): Harness {
  if (!state.holdfastHarness) throw new Error('harness not started');
  return state.holdfastHarness;
}

async function withAdmin<T>(databaseUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(databaseUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * A database for this run: a default one is new (and, while at it, databases of crashed
 * default runs older than STALE_AFTER_MS with nobody connected are dropped); a named one is
 * emptied, unless another session is connected to it — then the run stops rather than pull it
 * from under someone else.
 */
async function prepareDatabase(databaseUrl: string): Promise<void> {
  await withAdmin(databaseUrl, async (admin) => {
    if (NAMED_URL) {
      const { rows } = await admin.query('select count(*)::int as n from pg_stat_activity where datname = $1', [TEST_DATABASE]);
      if (rows[0].n > 0)
        throw new Error(`TEST_DATABASE_URL names ${TEST_DATABASE}, which another session is using: choose another database`);
      await admin.query(`drop database if exists "${TEST_DATABASE}"`);
      return;
    }
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database d where datname ~ '^holdfast_test_[0-9a-z]+_[0-9a-f]{6}$'
          and not exists (select 1 from pg_stat_activity a where a.datname = d.datname)`,
    );
    for (const { datname } of rows) {
      const started = parseInt(datname.split('_')[2], 36);
      if (Date.now() - started > STALE_AFTER_MS) await admin.query(`drop database if exists "${datname}"`).catch(() => undefined);
    }
  });
  await ensureDatabase(databaseUrl);
}

/** Starts services, a fresh test database and the app on an ephemeral port. */
export async function startHarness(): Promise<Harness> {
  const config = loadConfig();
  const services = await resolveServices({
    databaseUrl: NAMED_URL ?? (config.databaseUrl ? withDatabase(config.databaseUrl, TEST_DATABASE) : undefined),
    redisUrl: config.redisUrl,
    databaseName: TEST_DATABASE,
    allowPrivate: true,
  });
  await prepareDatabase(services.databaseUrl);
  const orm = await openOrm(services.databaseUrl);
  await migrate(orm);
  // The suite's database is a staging one, as `npm start` records a new database it migrates.
  await settleEnvironment(orm.em.fork(), loadConfig({ APP_ENV: 'staging' }), services.databaseUrl, 'test harness');
  const redis = createRedis(services.redisUrl, 'producer');
  await deleteKeys(redis, TEST_QUEUE_PREFIX);
  const signer = await loadSigner(orm, services.redisUrl, redis);
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent', 'holdfast-test');
  const bus = new CommandBus(services.redisUrl, TEST_QUEUE_PREFIX, redis);
  const workers = await startWorkers({
    orm,
    redisUrl: services.redisUrl,
    queuePrefix: TEST_QUEUE_PREFIX,
    logger,
    commandSweepAfterMs: 30_000,
    databaseUrl: services.databaseUrl,
    webhooks: TEST_WEBHOOK_POLICY,
  });
  const app = await buildApp({
    config: {
      appEnv: 'staging',
      publicUrl: 'http://localhost:3000',
      syncWaitMs: 10_000,
      queuePrefix: TEST_QUEUE_PREFIX,
      allowedRedirectPatterns: ['127.0.0.1'],
    },
    orm,
    redis,
    signer,
    logger,
    bus,
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  state.holdfastHarness = {
    bus,
    workers,
    baseUrl: `http://127.0.0.1:${port}`,
    databaseUrl: services.databaseUrl,
    redisUrl: services.redisUrl,
    orm,
    redis,
    signer,
    server,
    services,
  };
  return state.holdfastHarness;
}

/** A token signer as a web process has: it hears the other processes' key and revocation changes over Redis. */
export function loadSigner(orm: MikroORM, redisUrl: string, publisher: RedisConnection): Promise<TokenSigner> {
  return TokenSigner.load(orm.em.fork(), { connect: () => createRedis(redisUrl, 'worker'), publisher, prefix: TEST_QUEUE_PREFIX });
}

/** Another app on the harness database with other settings or connections; close it after. */
export async function startExtraApp(
  opts: {
    appEnv?: 'staging' | 'production';
    orm?: MikroORM;
    redis?: RedisConnection;
    logger?: Logger;
    syncWaitMs?: number;
    bus?: CommandBus;
    adminPassword?: string;
    metricsToken?: string;
    tokenQueryCredentials?: boolean;
    demoClientId?: string;
    userRateLimitPerMinute?: number;
    cardAddsPerHour?: number;
    frameAncestors?: string;
    /** Another process's signer (its own keys and revocations); the harness's by default. */
    signer?: TokenSigner;
    /** The identity port's adapter (the sandbox by default). */
    identityVerifier?: IdentityVerifier;
    /** The card processor cards are added through (the sandbox by default). */
    cards?: CardProcessor;
    /** Hosts a hosted flow (and a buyer-present pay's return_url) may send the user back to. */
    allowedRedirectPatterns?: string[];
    /** Stripe's API, browser library and publishable key (the hosted pages load the library under the Stripe processor). */
    stripeApi?: Config['stripeApi'];
    /** STRIPE_WEBHOOK_SECRET: mounts POST /hooks/stripe. */
    stripeWebhookSecret?: string;
  } = {},
) {
  const base = h();
  const app = await buildApp({
    config: {
      appEnv: opts.appEnv ?? 'staging',
      publicUrl: 'http://localhost:3000',
      syncWaitMs: opts.syncWaitMs ?? 10_000,
      queuePrefix: TEST_QUEUE_PREFIX,
      adminUser: 'ops',
      adminPassword: opts.adminPassword,
      metricsToken: opts.metricsToken,
      tokenQueryCredentials: opts.tokenQueryCredentials,
      userRateLimitPerMinute: opts.userRateLimitPerMinute,
      cardAddsPerHour: opts.cardAddsPerHour,
      frameAncestors: opts.frameAncestors,
      allowedRedirectPatterns: opts.allowedRedirectPatterns,
      stripeApi: opts.stripeApi,
      providerWebhooks: opts.stripeWebhookSecret
        ? { stripeWebhookSecret: opts.stripeWebhookSecret, paypalWebhookId: undefined }
        : undefined,
    },
    bus: opts.bus ?? base.bus,
    orm: opts.orm ?? base.orm,
    redis: opts.redis ?? base.redis,
    signer: opts.signer ?? base.signer,
    logger: opts.logger ?? createLogger('silent', 'holdfast-test'),
    demoClientId: opts.demoClientId,
    identityVerifier: opts.identityVerifier,
    cards: opts.cards,
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

export async function stopHarness(): Promise<void> {
  if (!state.holdfastHarness) return;
  const { server, orm, redis, services, workers, bus, signer } = state.holdfastHarness;
  server.closeAllConnections?.();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await workers.close();
  await bus.close();
  await signer.close();
  await deleteKeys(redis, TEST_QUEUE_PREFIX).catch(() => undefined);
  await redis.quit().catch(() => redis.disconnect());
  await orm.close();
  if (!NAMED_URL)
    await withAdmin(services.databaseUrl, (admin) => admin.query(`drop database if exists "${TEST_DATABASE}" with (force)`)).catch(
      () => undefined,
    );
  services.stop();
  state.holdfastHarness = undefined;
}

/** Deletes every key under a prefix (the run's queues and counters), a page at a time. */
async function deleteKeys(redis: RedisConnection, prefix: string): Promise<void> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Drops a scratch database of a test (forcing out its connections). */
export async function dropDatabase(name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDatabase(h().databaseUrl, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
}

/** Adds a sandbox card to an account; returns its payment method id. */
export async function addCard(client: TestClient, accountId: string, number = '4242424242424242'): Promise<string> {
  const res = await call('POST', `/v1/${accountId}/payment_methods`, {
    token: client.token,
    body: { type: 'card', card: { number, exp_month: 12, exp_year: 2099, cvc: '123' } },
  });
  if (res.status !== 201) throw new Error(`add card failed: ${res.status} ${res.text}`);
  return res.body.payload.id;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (with its own content type); `body` is sent as JSON. */
  rawBody?: string;
  headers?: Record<string, string>;
  /** Skip the contract check (for responses the documents cannot describe). */
  unchecked?: boolean;
  baseUrl?: string;
}

let sequence = 0;
/** A unique suffix for names in one run. */
export function unique(prefix = 'x'): string {
  sequence += 1;
  return `${prefix}${Date.now().toString(36)}${sequence}`;
}

/**
 * Runs a `holdfast` command line on the suite's database and answers its exit code and output.
 * In this process by default (the same dispatcher, `runCli`, with its output and variables its
 * own), which saves a process start of seconds per call; `{ process: true }`, or a variable only
 * a new process reads (failpoints, Node's trusted certificates), run `bin/holdfast.js` as a
 * process of its own, for what only a process shows (its exit, its wiring). A process is spawned, never run synchronously: this process's event
 * loop also serves the suite's app, and a loop blocked for seconds had the server close a
 * kept-alive socket just as the next request reused it (ECONNRESET).
 */
export async function holdfastCli(
  args: string[],
  env: Record<string, string> = {},
  opts: { process?: boolean } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const variables: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: h().databaseUrl, ...env };
  if (!opts.process && !PROCESS_VARIABLES.some((name) => env[name] !== undefined)) {
    const stdout = new Collected();
    const stderr = new Collected();
    const status = await withCliIo({ stdout, stderr, env: variables }, () => runCli(args));
    return { status, stdout: stdout.text, stderr: stderr.text };
  }
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/holdfast.js', ...args], { env: variables, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * Variables only a new process reads (Node's at its start, or failpoints armed at boot): a
 * command line given one of them runs as a process, or it would not see it.
 */
export const PROCESS_VARIABLES = ['HOLDFAST_FAILPOINTS', 'NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];

/** A command line's output, kept as text. */
class Collected extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

/** Calls the API and checks the response against the OpenAPI documents. */
export async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${opts.baseUrl ?? h().baseUrl}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  const response = { status: res.status, headers: res.headers, body: parsed as T, text };
  if (!opts.unchecked) await checkResponse(method, path, response);
  return response;
}

export interface TestClient {
  clientId: string;
  clientSecret: string;
  integrator: string;
  token: string;
}

/** A new client (of a new integrator unless named) and a token for it. */
export async function newClient(
  opts: { integrator?: string; scopes?: string[]; tosSigning?: boolean; isOperator?: boolean; canUnblock?: boolean } = {},
): Promise<TestClient> {
  const { ALL_SCOPES } = await import('../../src/auth/auth.rules.js');
  const created = await createClient(h().orm.em.fork(), {
    integrator: opts.integrator ?? unique('int-'),
    scopes: opts.scopes ?? [...ALL_SCOPES],
    tosSigning: opts.tosSigning ?? true,
    isOperator: opts.isOperator,
    canUnblock: opts.canUnblock,
  });
  const res = await call('POST', '/token', {
    rawBody: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: created.client_id,
      client_secret: created.client_secret,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${res.text}`);
  return { clientId: created.client_id, clientSecret: created.client_secret, integrator: created.integrator, token: res.body.access_token };
}

/** Registers an account with a unique username and email; returns the registration payload. */
export async function register(client: TestClient, extra: Record<string, unknown> = {}): Promise<any> {
  const name = unique('user');
  const body = { username: name, email: { address: `${name}@example.com` }, ...extra };
  const res = await call('POST', '/register', { token: client.token, body });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  return res.body.payload;
}
