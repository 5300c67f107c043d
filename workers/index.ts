/**
 * Worker entry: one BullMQ worker per queue it serves (WORKER_QUEUES; every queue by default),
 * each with exactly one processor, and one runner per command kind (the process refuses to start
 * otherwise). Each queue brings its side jobs: `webhooks` the outbox relay (it feeds that queue),
 * `maintenance` the schedules of the sweepers and purges (their jobs run on that queue; the
 * command sweeper only re-enqueues, so the commands themselves run wherever `commands` is served). On SIGTERM/SIGINT the workers stop taking jobs, let the
 * running ones finish, close their connections, and the process exits 0.
 */
import { Queue, Worker, type Processor } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { openOrm, pendingMigrations } from '../src/db/orm.js';
import { ServiceUnavailableError } from '../src/db/postgres-failures.js';
import { closeRedis, createRedis, isConnectionFailure, queueErrors, reportOutages } from '../src/queues/connection.js';
import { AUDIT_SEAL_EVERY_MS } from '../src/audit/audit.service.js';
import { MaintenanceJob, QueueName } from '../src/queues/names.js';
import { createLogger, type Logger } from '../src/runtime/logger.js';
import { describeError } from '../src/runtime/describe-error.js';
import { resolveServices } from '../src/runtime/services.js';
import { armFailpoints } from '../src/runtime/failpoints.js';
import { flushTracing, queueTelemetry } from '../src/runtime/tracing-hooks.js';
import { observeJobs } from '../src/runtime/metrics.js';
import { assertRailsFor, settleEnvironment } from '../src/environment/environment.service.js';
import { maintenanceProcessor } from './maintenance.processor.js';
import { commandRunners, commandsProcessor } from './commands.processor.js';
import { railAdapters, type RailAdapters } from '../src/rails/rail-adapters.js';
import type { CardProcessor } from '../src/rails/card-processor.port.js';
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
  /** The rails' adapters the commands run on (default: those the environment configures, `config.rails`). */
  rails?: RailAdapters;
  /** Each module's command runners (default: every module's, `commandRunners(rails)`). */
  commandRunners?: Record<string, CommandRunners>;
  /** The card processor the command runners charge and refund cards through (default: the sandbox). */
  cards?: CardProcessor;
  /** The queues this process serves, with their side jobs (default: every queue). */
  queues?: readonly QueueName[];
  /** Jobs run at once per queue (defaults: DEFAULT_CONCURRENCY). */
  concurrency?: Partial<Record<QueueName, number>>;
}

/** Jobs each queue's worker runs at once; deliveries wait on receivers (up to 10 s each), so more of them. */
export const DEFAULT_CONCURRENCY: Record<QueueName, number> = {
  [QueueName.Commands]: 16,
  [QueueName.Webhooks]: 64,
  [QueueName.Maintenance]: 16,
};

/** The webhook policy of the config's defaults (staging: private targets allowed). */
const DEFAULT_POLICY: DeliveryPolicy = {
  allowPrivateTargets: true,
  maxAttempts: 15,
  retryBaseMs: 30_000,
  disableAfterMs: 5 * 24 * 3_600_000,
};

export interface RunningWorkers {
  workers: Worker[];
  /** The outbox relay: only where `webhooks` is served. */
  relay: OutboxRelay | undefined;
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

/** Starts the served queues' workers and their side jobs (the outbox relay, the maintenance schedule). */
export async function startWorkers(deps: WorkerDeps): Promise<RunningWorkers> {
  // Before any connection: a kind without exactly one runner stops the process here.
  const rails = deps.rails ?? railAdapters(loadConfig().rails, { ...loadConfig(), logger: deps.logger });
  const commands = commandRegistry(deps.commandRunners ?? commandRunners(deps.cards ? { ...rails, cards: deps.cards } : rails));
  const bus = new CommandBus(deps.redisUrl, deps.queuePrefix, undefined, deps.logger);
  const connection = createRedis(deps.redisUrl, 'worker');
  reportOutages(connection, deps.logger, 'workers');
  const webhookBus = new WebhookBus(connection, deps.queuePrefix, deps.logger);
  const table = processors(deps, bus, webhookBus, commands);
  const missing = Object.values(QueueName).filter((q) => typeof table[q] !== 'function');
  if (missing.length) throw new Error(`no processor for queue(s): ${missing.join(', ')}`);

  const served = deps.queues ?? Object.values(QueueName);
  const workers = served.map((name) => {
    const lock = deps.lockMs ?? 30_000;
    const concurrency = deps.concurrency?.[name] ?? DEFAULT_CONCURRENCY[name];
    const worker = new Worker(name, table[name], {
      connection,
      prefix: deps.queuePrefix,
      concurrency,
      lockDuration: lock,
      stalledInterval: lock,
      // BullMQ's own spans (tracing on) for the queues a request's work goes through; not for the housekeeping schedule.
      ...(name === QueueName.Maintenance ? {} : queueTelemetry()),
    });
    worker.on('failed', (job, err) => deps.logger.warn({ queue: name, job_id: job?.id, err: describeError(err) }, 'job failed'));
    worker.on('error', queueErrors(deps.logger, name));
    observeJobs(worker, name);
    return worker;
  });

  const maintenance = new Queue(QueueName.Maintenance, { connection, prefix: deps.queuePrefix });
  maintenance.on('error', queueErrors(deps.logger, QueueName.Maintenance));
  const sweepEvery = deps.sweepEveryMs ?? 10_000;
  const schedule: Array<[MaintenanceJob, number]> = [
    [MaintenanceJob.PurgeIdempotencyKeys, 3_600_000],
    [MaintenanceJob.PurgeWebhookHistory, 3_600_000],
    [MaintenanceJob.PurgeCommands, 3_600_000],
    [MaintenanceJob.SweepCommands, sweepEvery],
    [MaintenanceJob.SweepDeliveries, sweepEvery],
    // The sandbox processor's disputes: a day after a disputing card's charge, and past their evidence deadline.
    [MaintenanceJob.SandboxDisputeClock, Math.min(sweepEvery, 5_000)],
    // The audit trail's new records sealed into their integrator's chain, seconds after they commit.
    [MaintenanceJob.SealAudit, Math.min(sweepEvery, AUDIT_SEAL_EVERY_MS)],
  ];
  // The schedules go with the queue their jobs run on: a process not serving `maintenance`
  // leaves them to the processes that do.
  const scheduling = served.includes(QueueName.Maintenance);
  const ensureSchedules = () =>
    Promise.all(
      schedule.map(([name, every]) =>
        maintenance.upsertJobScheduler(name, { every }, { name, opts: { removeOnComplete: 100, removeOnFail: 100 } }),
      ),
    );
  if (scheduling) await ensureSchedules();
  // The schedules live in Redis: put them back if Redis lost them (a flush, a failover).
  const keeper = scheduling
    ? setInterval(() => {
        ensureSchedules().catch((err) => {
          // Redis being down is already in the log (reportOutages); the next tick tries again.
          if (!isConnectionFailure(err)) deps.logger.warn({ err: describeError(err) }, 'could not renew the maintenance schedules');
        });
      }, sweepEvery)
    : undefined;
  // The relay feeds the webhooks queue: it runs where deliveries are served.
  const relay = served.includes(QueueName.Webhooks)
    ? await startOutboxRelay(deps.orm, deps.databaseUrl, webhookBus, deps.logger)
    : undefined;

  return {
    workers,
    relay,
    webhookBus,
    async close() {
      if (keeper) clearInterval(keeper);
      await relay?.close();
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
  assertRailsFor(config);
  const services = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    databaseName: 'holdfast',
    allowPrivate: false,
  });
  // A worker never migrates: on a schema older than its code (or none) it would fail at every
  // job, so it refuses to start, saying what to run first.
  const pending = await pendingMigrations(services.databaseUrl);
  if (pending.length) {
    throw new ServiceUnavailableError(
      `the database has ${pending.length} migration${pending.length === 1 ? '' : 's'} not applied (${pending[0]}${pending.length > 1 ? ', …' : ''}): ROLE=worker never migrates; start ROLE=web (or run holdfast migrate) first`,
    );
  }
  const orm = await openOrm(services.databaseUrl, config.databasePoolSize);
  await settleEnvironment(orm.em.fork(), config, services.databaseUrl, 'ROLE=worker').catch(async (err: unknown) => {
    await orm.close();
    throw err;
  });
  armFailpoints(config.failpoints);
  const running = await startWorkers({
    orm,
    rails: railAdapters(config.rails, { ...config, logger }),
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
  });
  logger.info({ queues: config.workerQueues, concurrency: config.concurrency }, 'workers started');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping workers: finishing running jobs');
    await running.close();
    await orm.close();
    logger.info('workers stopped');
    await flushTracing();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

if (/workers[\\/]index\.(ts|js)$/.test(process.argv[1] ?? '')) {
  try {
    await runWorkerProcess(loadConfig());
  } catch (err) {
    console.error(
      `holdfast worker: ${err instanceof ConfigError || err instanceof ServiceUnavailableError ? err.message : (describeError(err).message ?? 'failed to start')}`,
    );
    process.exit(1);
  }
}
