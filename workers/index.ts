/**
 * Worker entry: one BullMQ worker per queue, each with exactly one processor, and one runner
 * per command kind (the process refuses to start otherwise). On SIGTERM/SIGINT the workers stop taking jobs, let the
 * running ones finish, close their connections, and the process exits 0.
 */
import { Queue, Worker, type Processor } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { openOrm } from '../src/db/orm.js';
import { closeRedis, createRedis, isConnectionFailure, queueErrors, reportOutages } from '../src/queues/connection.js';
import { MaintenanceJob, QueueName } from '../src/queues/names.js';
import { createLogger, type Logger } from '../src/runtime/logger.js';
import { describeError } from '../src/runtime/describe-error.js';
import { resolveServices } from '../src/runtime/services.js';
import { armFailpoints } from '../src/runtime/failpoints.js';
import { maintenanceProcessor } from './maintenance.processor.js';
import { COMMAND_RUNNERS, commandsProcessor } from './commands.processor.js';
import { commandRegistry, type CommandRegistry, type CommandRunners } from '../src/commands/command.registry.js';
import { CommandBus } from '../src/queues/command-bus.js';
import { WebhookBus } from '../src/queues/webhook-bus.js';
import type { DeliveryPolicy } from '../src/webhooks/delivery.service.js';
import { webhooksProcessor } from './webhooks.processor.js';
import { startOutboxRelay, type OutboxRelay } from './outbox-relay.js';

export interface WorkerDeps {
  orm: MikroORM;
  redisUrl: string;
  queuePrefix: string;
  logger: Logger;
  /** When a pending command counts as stalled (COMMAND_SWEEP_AFTER_MS). */
  commandSweepAfterMs: number;
  /** How often the sweeper looks (default 10 s). */
  sweepEveryMs?: number;
  /** BullMQ lock duration and stall-check interval (default 30 s). */
  lockMs?: number;
  /** For the outbox relay's LISTEN connection; without it the relay only polls. */
  databaseUrl?: string;
  /** Webhook delivery policy (defaults: the config's defaults). */
  webhooks?: Partial<DeliveryPolicy>;
  /** When a pending webhook delivery counts as lost (default: commandSweepAfterMs). */
  deliverySweepAfterMs?: number;
  /** Each module's command runners (default: every module's, COMMAND_RUNNERS). */
  commandRunners?: Record<string, CommandRunners>;
}

/** The webhook policy of the config's defaults (staging: private targets allowed). */
const DEFAULT_POLICY: DeliveryPolicy = {
  allowPrivateTargets: true,
  maxAttempts: 15,
  retryBaseMs: 30_000,
  disableAfterMs: 5 * 24 * 3_600_000,
};

export interface RunningWorkers {
  workers: Worker[];
  relay: OutboxRelay;
  webhookBus: WebhookBus;
  /** Stops taking jobs, waits for running ones, closes connections. */
  close(): Promise<void>;
}

function processors(deps: WorkerDeps, bus: CommandBus, webhookBus: WebhookBus, commands: CommandRegistry): Record<QueueName, Processor> {
  return {
    [QueueName.Commands]: commandsProcessor(deps.orm, bus, commands),
    [QueueName.Maintenance]: maintenanceProcessor(deps.orm, bus, webhookBus, {
      commandSweepAfterMs: deps.commandSweepAfterMs,
      deliverySweepAfterMs: deps.deliverySweepAfterMs ?? deps.commandSweepAfterMs,
    }),
    [QueueName.Webhooks]: webhooksProcessor(deps.orm, { ...DEFAULT_POLICY, ...deps.webhooks }, deps.logger),
  };
}

/** Starts every queue's worker and the maintenance schedule. */
export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  // Before any connection: a kind without exactly one runner stops the process here.
  const commands = commandRegistry(deps.commandRunners ?? COMMAND_RUNNERS);
  const bus = new CommandBus(deps.redisUrl, deps.queuePrefix, undefined, deps.logger);
  const connection = createRedis(deps.redisUrl, 'worker');
  reportOutages(connection, deps.logger, 'workers');
  const webhookBus = new WebhookBus(connection, deps.queuePrefix, deps.logger);
  const table = processors(deps, bus, webhookBus, commands);
  const missing = Object.values(QueueName).filter((q) => typeof table[q] !== 'function');
  if (missing.length) throw new Error(`no processor for queue(s): ${missing.join(', ')}`);

  const workers = Object.values(QueueName).map((name) => {
    const lock = deps.lockMs ?? 30_000;
    // Deliveries wait on receivers (up to 10 s each): more of them run at once.
    const concurrency = name === QueueName.Webhooks ? 64 : 16;
    const worker = new Worker(name, table[name], {
      connection,
      prefix: deps.queuePrefix,
      concurrency,
      lockDuration: lock,
      stalledInterval: lock,
    });
    worker.on('failed', (job, err) => deps.logger.warn({ queue: name, job_id: job?.id, err: describeError(err) }, 'job failed'));
    worker.on('error', queueErrors(deps.logger, name));
    return worker;
  });

  const maintenance = new Queue(QueueName.Maintenance, { connection, prefix: deps.queuePrefix });
  maintenance.on('error', queueErrors(deps.logger, QueueName.Maintenance));
  const sweepEvery = deps.sweepEveryMs ?? 10_000;
  const schedule: Array<[MaintenanceJob, number]> = [
    [MaintenanceJob.PurgeIdempotencyKeys, 3_600_000],
    [MaintenanceJob.PurgeWebhookHistory, 3_600_000],
    [MaintenanceJob.SweepCommands, sweepEvery],
    [MaintenanceJob.SweepDeliveries, sweepEvery],
  ];
  const ensureSchedules = () =>
    Promise.all(
      schedule.map(([name, every]) =>
        maintenance.upsertJobScheduler(name, { every }, { name, opts: { removeOnComplete: 100, removeOnFail: 100 } }),
      ),
    );
  await ensureSchedules();
  // The schedules live in Redis: put them back if Redis lost them (a flush, a failover).
  const keeper = setInterval(() => {
    ensureSchedules().catch((err) => {
      // Redis being down is already in the log (reportOutages); the next tick tries again.
      if (!isConnectionFailure(err)) deps.logger.warn({ err: describeError(err) }, 'could not renew the maintenance schedules');
    });
  }, sweepEvery);
  const relay = await startOutboxRelay(deps.orm, deps.databaseUrl, webhookBus, deps.logger);

  return {
    workers,
    relay,
    webhookBus,
    async close() {
      clearInterval(keeper);
      await relay.close();
      // A graceful close waits for the running jobs and for Redis, and with Redis unreachable it
      // would wait for ever (BullMQ's fetch loop waits for its connection to come back). Then the
      // running jobs are not waited for — one cut short runs again later (stalled) and finds its
      // work done — and the connections are dropped (closeRedis).
      const reachable = connection.status === 'ready';
      await Promise.all(workers.map((w) => w.close(!reachable)));
      await maintenance.close();
      await webhookBus.close();
      await bus.close();
      await closeRedis(connection);
    },
  };
}

/** The webhook delivery policy the configuration sets. */
export function webhookPolicy(config: Config): DeliveryPolicy {
  return {
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    maxAttempts: config.webhookMaxAttempts,
    retryBaseMs: config.webhookRetryBaseMs,
    disableAfterMs: config.webhookDisableAfterMs,
  };
}

/** `ROLE=worker`: workers only — no migrations, no HTTP port, no private database. */
export async function runWorkerProcess(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel, 'holdfast-worker');
  const services = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    databaseName: 'holdfast',
    allowPrivate: false,
  });
  const orm = await openOrm(services.databaseUrl);
  armFailpoints(config.failpoints);
  const running = await startWorkers({
    orm,
    redisUrl: services.redisUrl,
    queuePrefix: config.queuePrefix,
    logger,
    databaseUrl: services.databaseUrl,
    commandSweepAfterMs: config.commandSweepAfterMs,
    sweepEveryMs: config.commandSweepEveryMs,
    lockMs: config.workerLockMs,
    webhooks: webhookPolicy(config),
  });
  logger.info({ queues: Object.values(QueueName) }, 'workers started');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping workers: finishing running jobs');
    await running.close();
    await orm.close();
    logger.info('workers stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (/workers[\\/]index\.(ts|js)$/.test(process.argv[1] ?? '')) {
  try {
    await runWorkerProcess(loadConfig());
  } catch (err) {
    console.error(`holdfast worker: ${err instanceof ConfigError ? err.message : (describeError(err).message ?? 'failed to start')}`);
    process.exit(1);
  }
}
