/**
 * Process entry (`npm start`). ROLE=all (default): find or start PostgreSQL and Redis,
 * migrate, serve HTTP and run the workers in one process. ROLE=web: migrate and serve HTTP.
 * ROLE=worker: workers only (workers/index.ts).
 */
import type { Server } from 'node:http';
import type { Express } from 'express';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { TokenSigner } from './auth/auth.service.js';
import { ensureDatabase, migrate, openOrm } from './db/orm.js';
import { buildApp } from './http/app.js';
import { closeRedis, createRedis, reportOutages } from './queues/connection.js';
import { CommandBus } from './queues/command-bus.js';
import { describeError } from './runtime/describe-error.js';
import { ensureDemoClient } from './runtime/demo-client.js';
import { DASHBOARD_PATH, dashboardMode } from './http/operations-routes.js';
import { createLogger } from './runtime/logger.js';
import { resolveServices, ServiceUnavailableError } from './runtime/services.js';
import { armFailpoints } from './runtime/failpoints.js';

function listen(app: Express, port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server: Server = app.listen(port, (err?: Error) => (err ? reject(err) : resolve(server)));
  });
}

/** The database URL for people: password hidden, a Unix socket named as such. */
function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const host = decodeURIComponent(url.hostname);
  const where = host.startsWith('/') ? `Unix socket ${host} (port ${url.port || 5432})` : `${host}:${url.port || 5432}`;
  return `${where}, database ${decodeURIComponent(url.pathname.slice(1))}, user ${decodeURIComponent(url.username) || 'postgres'}`;
}

async function runWeb(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, 'holdfast');
  const services = await resolveServices({
    databaseUrl: config.databaseUrl, redisUrl: config.redisUrl, databaseName: 'holdfast', allowPrivate: config.role === 'all',
  });
  await ensureDatabase(services.databaseUrl);
  const orm = await openOrm(services.databaseUrl);
  const applied = await migrate(orm);
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  const signer = await TokenSigner.load(orm.em.fork());
  const redis = createRedis(services.redisUrl, 'producer');
  reportOutages(redis, logger, 'web');
  const bus = new CommandBus(services.redisUrl, config.queuePrefix, redis, logger);
  const demo = config.appEnv === 'staging' && config.role === 'all' ? await ensureDemoClient(orm.em.fork()) : undefined;
  const app = await buildApp({ config, orm, redis, signer, logger, bus, demoClientId: demo?.client_id });
  let server: Server;
  try {
    server = await listen(app, config.port);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new ServiceUnavailableError(code === 'EADDRINUSE' ? `port ${config.port} is already in use: set PORT to a free port` : `cannot listen on port ${config.port}`);
  }
  armFailpoints(config.failpoints);
  const workers = config.role === 'all'
    ? await (await import('../workers/index.js')).startWorkers({
      orm, redisUrl: services.redisUrl, queuePrefix: config.queuePrefix, logger, databaseUrl: services.databaseUrl,
      commandSweepAfterMs: config.commandSweepAfterMs, sweepEveryMs: config.commandSweepEveryMs, lockMs: config.workerLockMs,
      webhooks: (await import('../workers/index.js')).webhookPolicy(config),
    })
    : undefined;

  const base = config.publicUrl;
  const dashboardLine = (c: typeof config, url: string) => {
    const mode = dashboardMode(c.appEnv, c.adminPassword);
    if (mode === 'off') return 'off (set ADMIN_PASSWORD to turn the dashboard on in production)';
    return `${url}${DASHBOARD_PATH}${mode === 'password' ? ` (user ${c.adminUser})` : ' (open: no ADMIN_PASSWORD set)'}`;
  };
  const lines = [
    `Holdfast is up (ROLE=${config.role}, APP_ENV=${config.appEnv})`,
    `  API            ${base}`,
    `  API reference  ${base}/docs`,
    `  Health         ${base}/healthz  ${base}/readyz`,
    `  Queues         ${dashboardLine(config, base)}`,
    `  Metrics        ${base}/metrics${config.adminPassword ? ' (admin password)' : ''}`,
    `  PostgreSQL     ${describeDatabase(services.databaseUrl)}${services.started.includes('postgresql') ? ' (private instance)' : ''}`,
    `  Redis          ${services.redisUrl.replace(/\/\/([^@/]*)@/, '//***@')}${services.started.includes('redis') ? ' (private instance, .data/)' : ''}`,
  ];
  if (demo) {
    lines.push(
      `  Demo shop      ${base}/ui/demo (the hosted checkout and payment selection in the widget)`,
      `  Demo client    integrator "${demo.integrator}", every scope, can-unblock, GEM tokens at 100 per USD (saved in .data/demo-client.json)`,
      `    CLIENT_ID=${demo.client_id}`,
      `    CLIENT_SECRET=${demo.client_secret}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests and jobs');
    server.closeIdleConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await workers?.close();
    await bus.close();
    await closeRedis(redis);
    await orm.close();
    services.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function main(): Promise<void> {
  const config = loadConfig();
  if (config.role === 'worker') {
    const { runWorkerProcess } = await import('../workers/index.js');
    return runWorkerProcess(config);
  }
  return runWeb(config);
}

main().catch((err: unknown) => {
  const known = err instanceof ConfigError || err instanceof ServiceUnavailableError;
  console.error(`holdfast: ${known ? (err as Error).message : describeError(err).message ?? 'failed to start'}`);
  process.exit(1);
});
