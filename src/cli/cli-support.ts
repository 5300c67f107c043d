/**
 * What every `holdfast` command shares: the shape of a command, opening the database, printing,
 * announcing token changes, and the errors the dispatcher (index.ts) turns into exit codes.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { userInfo } from 'node:os';
import type { Writable } from 'node:stream';
import type { ParseArgsConfig } from 'node:util';
import type { MikroORM } from '@mikro-orm/postgresql';
import { type AppEnv, type Config, loadConfig } from '../../config/index.js';
import { TOKEN_STATE_RELOAD_MS } from '../auth/credential.rules.js';
import { announceTokenChange, type TokenChange } from '../auth/token-state.service.js';
import { ensureDatabase, migrate, openOrm, pendingMigrations } from '../db/orm.js';
import { DatabaseMissingError } from '../db/postgres-failures.js';
import { createRedis } from '../queues/connection.js';
import { AppError } from '../errors.js';
import { AUDIT_REASON_MAX, cliActor, type AuditContext } from '../audit/audit.rules.js';
import { resolveServices } from '../runtime/services.js';
import { assertEnvironmentBeforeMigrating, assertRailsFor, settleEnvironment } from '../environment/environment.service.js';

/**
 * Where a command line reads its variables and writes its output: the process's own, unless
 * `withCliIo` gives others (the test suite runs command lines in its own process this way).
 */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
}
const cliIo = new AsyncLocalStorage<CliIo>();

/** Runs `work` (a command line) with `io` as its output and variables. */
export function withCliIo<T>(io: CliIo, work: () => Promise<T>): Promise<T> {
  return cliIo.run(io, work);
}
/** The command line's standard output. */
export function stdout(): Writable {
  return cliIo.getStore()?.stdout ?? process.stdout;
}
/** The command line's standard error. */
export function stderr(): Writable {
  return cliIo.getStore()?.stderr ?? process.stderr;
}
/** The configuration from the command line's variables. */
export function cliConfig(): Config {
  return loadConfig(cliIo.getStore()?.env ?? process.env);
}

/** The parsed options of one command line. */
export type Values = Record<string, string | boolean | undefined>;

export interface Command {
  usage: string;
  /** Its line in `holdfast --help`. */
  summary: string;
  options: NonNullable<ParseArgsConfig['options']>;
  /** How many positional arguments it takes (none unless said). */
  positionals?: number;
  run(values: Values, positionals: string[]): Promise<void>;
}

/** A usage mistake: exit 2. */
export class UsageError extends Error {}
/** What the command was asked to act on does not exist. */
export class NotFound extends Error {}
/** Where to find a right id of each kind the commands look up, said after the not-found line. */
const FINDING = {
  account: 'an account_id',
  client: 'holdfast client list shows every client_id',
  event: `the "id" field of a webhook's body`,
  integrator: 'a name or id; holdfast integrator list shows them',
  payout: 'a payout_status_id',
  'provider event': 'holdfast provider-events list shows them',
  'webhook endpoint': "GET /v2/webhooks lists an integrator's",
} as const;

/** The one way a command says that what it was asked to act on does not exist: `no KIND "ID" (where to find one)`. */
export function notFound(kind: keyof typeof FINDING, id: string): NotFound {
  return new NotFound(`no ${kind} "${id}" (${FINDING[kind]})`);
}

/** `work`, with a service's not-found (an AppError, worded for the API) said the CLI's one way. */
export async function orNotFound<T>(kind: keyof typeof FINDING, id: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw err instanceof AppError && err.kind === 'not_found' ? notFound(kind, id) : err;
  }
}

/** What the command may not do here (a staging-only command on a production database). */
export class Refused extends Error {}
/** `ledger verify` found a breach: the report is printed, the exit code says so. */
export class LedgerBreach extends Error {}

/**
 * Opens the database for one command. `write`: created and migrated as needed, as `npm start`
 * does. `read` (the command named): it must exist and be migrated already, so a mistyped
 * DATABASE_URL is one line instead of a new empty database.
 */
export async function withOrm<T>(
  access: 'write' | { read: string },
  work: (orm: MikroORM, applied: string[], environment: AppEnv) => Promise<T>,
): Promise<T> {
  const config = cliConfig();
  assertRailsFor(config);
  const services = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl ?? 'redis://unused',
    databaseName: 'holdfast',
    allowPrivate: false,
  });
  if (access === 'write') {
    await ensureDatabase(services.databaseUrl);
  } else {
    const never = `holdfast ${access.read} never creates or migrates a database: run holdfast migrate first`;
    try {
      await ensureDatabase(services.databaseUrl, { create: false });
    } catch (err) {
      throw err instanceof DatabaseMissingError ? new DatabaseMissingError(`${err.message}; ${never}`) : err;
    }
    const pending = await pendingMigrations(services.databaseUrl);
    if (pending.length) {
      const name = decodeURIComponent(new URL(services.databaseUrl).pathname.slice(1));
      throw new DatabaseMissingError(
        `database "${name}" (DATABASE_URL) lacks ${pending.length} migration${pending.length === 1 ? '' : 's'}; ${never}`,
      );
    }
  }
  const orm = await openOrm(services.databaseUrl, 2);
  try {
    if (access === 'write') await assertEnvironmentBeforeMigrating(orm.em.fork(), config, services.databaseUrl);
    const applied = access === 'write' ? await migrate(orm) : [];
    // The database's environment, not this shell's, decides: a CLI configured for the other one stops here.
    const environment = await settleEnvironment(
      orm.em.fork(),
      config,
      services.databaseUrl,
      `holdfast ${access === 'write' ? 'migrate' : access.read}`,
    );
    return await work(orm, applied, environment);
  } finally {
    await orm.close();
  }
}

/** The Redis of REDIS_URL, or the one `npm start` finds. */
export async function redisUrl(): Promise<string> {
  const config = cliConfig();
  const services = await resolveServices({
    databaseUrl: config.databaseUrl,
    redisUrl: config.redisUrl,
    databaseName: 'holdfast',
    allowPrivate: false,
  });
  return services.redisUrl;
}

/** One result on stdout: one JSON line with --json, else the text. */
export function print(json: boolean, value: Record<string, unknown>, text: string): void {
  stdout().write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/** Rows under a header, each column but the last padded to its widest cell. */
export function table(header: string[], rows: string[][]): string {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => row[i].length)));
  return all.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join(' ')).join('\n');
}

/** The one positional argument a command acts on (`what` names it in the usage mistake). */
export function onlyArgument(positionals: string[], what: string): string {
  const value = positionals[0]?.trim();
  if (!value || positionals.length > 1) throw new UsageError(`give exactly one ${what}`);
  return value;
}

/**
 * Tells every web process of a committed key or revocation change (Redis pub/sub). When Redis
 * cannot take it, says so on stderr: the change is in PostgreSQL, and web processes read it at
 * their next reload.
 */
export async function announce(change: TokenChange): Promise<void> {
  const redis = createRedis(await redisUrl(), 'producer', { connectTimeout: 2000 });
  redis.on('error', () => {});
  try {
    if (!(await announceTokenChange(redis, cliConfig().queuePrefix, change))) {
      stderr().write(
        `holdfast: warning: Redis (REDIS_URL) did not take the announcement; web processes apply the change within ${TOKEN_STATE_RELOAD_MS / 1000} s\n`,
      );
    }
  } finally {
    redis.disconnect();
  }
}

/** The options of every command that makes an operator decision: why, and who (docs/security.md#audit-trail). */
export const auditOptions = { reason: { type: 'string' }, actor: { type: 'string' } } as const;

/** The usage lines of `auditOptions` (`required`: the command refuses to run without a reason). */
export function auditUsage(required: boolean): string {
  return `  --reason TEXT   why (${required ? 'required' : 'optional'}, at most ${AUDIT_REASON_MAX} characters; kept in the audit trail)
  --actor NAME    who decides, as the audit trail names them (default: the operating-system user)`;
}

/**
 * The audit context of a command line: the actor (`--actor NAME`, else the operating-system
 * user) and the `--reason`, required for a money or identity decision (`required`).
 */
export function cliAuditContext(v: Values, required: boolean): AuditContext {
  const reason = typeof v.reason === 'string' ? v.reason.trim() : '';
  if (required && !reason) throw new UsageError('--reason is required: say why (it is kept in the audit trail)');
  if (reason.length > AUDIT_REASON_MAX) throw new UsageError(`--reason is longer than ${AUDIT_REASON_MAX} characters`);
  const given = typeof v.actor === 'string' ? v.actor.trim() : undefined;
  if (given === '') throw new UsageError('--actor needs a NAME');
  return { actor: cliActor(given, userInfo().username), reason: reason || null, requestId: null };
}
