/**
 * Process entry (`npm start`). ROLE=all (default): find or start PostgreSQL and Redis,
 * migrate, serve HTTP and run the workers in one process. ROLE=web: migrate and serve HTTP.
 * ROLE=worker: workers only (workers/index.ts). In staging, ROLE=all and ROLE=web serve the demo
 * shop. A failure to start is one line on stderr naming the cause and the variable to look at.
 */
import type { Server } from 'node:http';
import type { Express } from 'express';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { TokenSigner } from './auth/auth.service.js';
import { ensureDatabase, migrate, openOrm } from './db/orm.js';
import { buildApp } from './http/app.js';
import { closeRedis, createRedis, reportOutages, type RedisConnection } from './queues/connection.js';
import { CommandBus } from './queues/command-bus.js';
import { describeRedisUrl } from './queues/redis-url.rules.js';
import { describeError } from './runtime/describe-error.js';
import { ensureDemoClient } from './runtime/demo-client.js';
import { DASHBOARD_PATH, dashboardMode, metricsMode } from './http/operations-routes.js';
import { createLogger } from './runtime/logger.js';
import { DatabaseMissingError, postgresServer, ServiceUnavailableError } from './db/postgres-failures.js';
import { resolveServices } from './runtime/services.js';
import { railAdapters } from './rails/rail-adapters.js';
import { armFailpoints } from './runtime/failpoints.js';
import { flushTracing } from './runtime/tracing-hooks.js';
import { assertEnvironmentBeforeMigrating, assertRailsFor, settleEnvironment } from './environment/environment.service.js';
import { environmentReason } from './environment/environment.rules.js';

function listen(app: Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(port, (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}

/** The database URL for people: password hidden, a Unix socket named as such. */
function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${postgresServer(databaseUrl)}, database ${decodeURIComponent(url.pathname.slice(1))}, user ${decodeURIComponent(url.username) || 'postgres'}`;
}

/** How long boot waits to see Redis answer before printing the banner without it. */
const REDIS_PROBE_MS = 3_000;

/** Whether the connection becomes ready within `ms` (ioredis keeps retrying either way). */
function redisAnswers(redis: RedisConnection, ms: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off('ready', ready);
      resolve(false);
    }, ms);
    const ready = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once('ready', ready);
  });
}

async function runWeb(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, 'holdfast');
  assertRailsFor(config);
  const services = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    databaseName: 'holdfast',
    allowPrivate: config.role === 'all',
  });
  await ensureDatabase(services.databaseUrl);
  const orm = await openOrm(services.databaseUrl, config.databasePoolSize);
  await assertEnvironmentBeforeMigrating(orm.em.fork(), config, services.databaseUrl);
  const applied = await migrate(orm);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  await settleEnvironment(orm.em.fork(), config, services.databaseUrl, `npm start (ROLE=${config.role})`);
  const redis = createRedis(services.redisUrl, 'producer');
  reportOutages(redis, logger, 'web');
  // Keys and revocations: every web process hears the others' changes over Redis.
  const signer = await TokenSigner.load(orm.em.fork(), {
    connect: () => createRedis(services.redisUrl, 'worker'),
    publisher: redis,
    prefix: config.queuePrefix,
  });
  const bus = new CommandBus(services.redisUrl, config.queuePrefix, redis, logger, config.commandJobBatch);
  // ROLE=web serves it too (its payments run on the ROLE=worker processes): it needs only the
  // database and the demo client, which every web process finds in .data/ or makes.
  const demo = config.appEnv === 'staging' ? await ensureDemoClient(orm.em.fork()) : undefined;
  const rails = railAdapters(config.rails, { ...config, logger });
  const app = await buildApp({
    config,
    orm,
    redis,
    signer,
    logger,
    bus,
    demoClientId: demo?.client_id,
    // One card processor per process, chosen by CARD_PROCESSOR: the web side adds cards through it, the workers charge them.
    cards: rails.cards,
    verifyPaypalWebhook: rails.paypal?.verifyWebhookSignature,
  });
  let server: Server;
  try {
    server = await listen(app, config.port);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ServiceUnavailableError(
      code === 'EADDRINUSE' ? `port ${config.port} is already in use: set PORT to a free port` : `cannot listen on port ${config.port}`,
    );
  }
  armFailpoints(config.failpoints);
  const redisUp = await redisAnswers(redis, REDIS_PROBE_MS);
  const { startWorkers, webhookPolicy } = await import('../workers/index.js');
  const starting =
    config.role === 'all'
      ? startWorkers({
          orm,
          rails,
          redisUrl: services.redisUrl,
          queuePrefix: config.queuePrefix,
          logger,
          databaseUrl: services.databaseUrl,
          commandSweepAfterMs: config.commandSweepAfterMs,
          sweepEveryMs: config.commandSweepEveryMs,
          lockMs: config.workerLockMs,
          webhooks: webhookPolicy(config),
          queues: config.workerQueues,
          concurrency: config.concurrency,
        })
      : undefined;
  // Starting the workers waits for Redis (their schedules live there): with Redis down the
  // banner comes first and the workers start when it answers.
  let workers = redisUp ? await starting : undefined;
  starting?.then(
    (started) => {
      workers = started;
    },
    (err: unknown) => {
      console.error(`holdfast: the workers could not start: ${describeError(err).message ?? describeError(err).type}`);
      process.exit(1);
    },
  );

  const base = config.publicUrl;
  const dashboard = dashboardMode(config.appEnv, config.adminPassword);
  const metrics = metricsMode(config.appEnv, config.adminPassword, config.metricsToken);
  const metricsGuard = {
    open: 'open: no ADMIN_PASSWORD or METRICS_TOKEN set',
    password: 'admin password',
    token: 'Bearer METRICS_TOKEN',
    'password or token': 'admin password or Bearer METRICS_TOKEN',
  };
  const lines = [
    `Holdfast is up (ROLE=${config.role}, ${config.appEnv}: ${environmentReason(config)})`,
    `  Money rails    cards ${config.rails.cards}, identity ${config.rails.identity}, payouts ${config.rails.payouts}`,
    `  API            ${base}`,
    `  API reference  ${base}/docs`,
    `  Health         ${base}/healthz  ${base}/readyz`,
    dashboard === 'off'
      ? '  Queues         off (set ADMIN_PASSWORD to turn the dashboard on in production)'
      : `  Queues         ${base}${DASHBOARD_PATH}${dashboard === 'password' ? ` (user ${config.adminUser})` : ' (open: no ADMIN_PASSWORD set)'}`,
    ...(dashboard === 'off'
      ? []
      : [
          `                 its job views show command results with every integrator's invoices${dashboard === 'open' ? ', to anyone who reaches this port' : ''}`,
        ]),
    metrics === 'off'
      ? '  Metrics        off (set METRICS_TOKEN or ADMIN_PASSWORD to serve it in production)'
      : `  Metrics        ${base}/metrics (${metricsGuard[metrics]})`,
    `  PostgreSQL     ${describeDatabase(services.databaseUrl)}${services.started.includes('postgresql') ? ' (private instance)' : ''}`,
    `  Redis          ${describeRedisUrl(services.redisUrl)}${services.started.includes('redis') ? ' (private instance, .data/)' : ''}`,
  ];
  if (!redisUp) {
    lines.push(
      `                 UNREACHABLE (REDIS_URL): commands are accepted (202) and wait in PostgreSQL until Redis answers;`,
      `                 ${base}/readyz says 503 meanwhile`,
    );
  }
  if (demo) {
    lines.push(
      `  Demo shop      ${base}/ui/demo (the hosted checkout and payment selection in the widget${config.role === 'web' ? '; its payments run on the ROLE=worker process' : ''})`,
      `  Demo client    integrator "${demo.integrator}", every scope, can-unblock, ToS signing, GEM tokens at 100 per USD (saved in .data/demo-client.json)`,
      `    CLIENT_ID=${demo.client_id}`,
      `    CLIENT_SECRET=${demo.client_secret}`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    server.closeIdleConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await workers?.close();
    await bus.close();
    await signer.close();
    await closeRedis(redis);
    await orm.close();
    services.stop();
    await flushTracing();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.role === 'worker') {
    const { runWorkerProcess } = await import('../workers/index.js');
    return runWorkerProcess(config).catch((err: unknown) => {
      if (!(err instanceof DatabaseMissingError)) throw err;
      throw new ServiceUnavailableError(`${err.message}: ROLE=worker never creates it; start ROLE=web (or run holdfast migrate) first`);
    });
  }
  return runWeb(config);
}

/** The one line a failed start prints (connection failures are already worded by describePostgresFailure). */
function startFailure(err: unknown): string {
  if (err instanceof ConfigError || err instanceof ServiceUnavailableError) return err.message;
  const described = describeError(err);
  return described.message ?? `failed to start (${described.type}${described.code ? ` ${described.code}` : ''})`;
}

main().catch((err: unknown) => {
  console.error(`holdfast: ${startFailure(err)}`);
  process.exit(1);
});
