/**
 * Command rows: written before their job is enqueued, finished in the same transaction as the
 * work they describe (or, for a refusal, by `runCommandWith`), swept when their job was lost.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { CommandBus } from '../queues/command-bus.js';
import { db as pooled, type Db } from '../db/sql.js';
import { isContention } from '../db/postgres-failures.js';
import { post, type Posting } from '../ledger/ledger.service.js';
import {
  commandOfIntegrator,
  commandOutcome,
  commandTargetRow,
  firstDoneCommandRow,
  insertPendingCommand,
  lockCommandRow,
  pendingCommandId,
  purgeFinishedCommandRows,
  stalledCommandRows,
  storeCommandResult,
} from './command.repository.js';
import type { CommandKind, CommandResult, CommandRunner } from './command.registry.js';
import type { AuditContext } from '../audit/audit.rules.js';
import { currentTraceparent } from '../runtime/tracing-hooks.js';

/** What a command is asked to do: its kind, its target and, for some kinds, an input (merge: the destination). */
export interface CommandRequest {
  /** The integrator it acts for; null for a provider event's command (no integrator sent it). */
  integratorId: string | null;
  kind: CommandKind;
  targetId: string;
  /** Stored with the command; requests with the same target, kind and `inputKey` share one pending command. */
  input?: Record<string, unknown>;
  inputKey?: string;
  /**
   * An operator action's actor, reason and request: stored with the command (not its input) for
   * its runner to record the action in the audit trail, in the command's transaction.
   */
  audit?: AuditContext;
}

/**
 * The pending command for (target, kind), created when there is none: concurrent requests for
 * the same work share one command (a unique index decides).
 */
export async function submitCommand(db: Db, input: CommandRequest): Promise<string> {
  const inputKey = input.inputKey ?? '';
  for (;;) {
    const created = await insertPendingCommand(db, {
      id: newId('cmd'),
      integratorId: input.integratorId,
      kind: input.kind,
      targetId: input.targetId,
      input: input.input ?? null,
      inputKey,
      audit: input.audit ? { ...input.audit } : null,
      traceparent: currentTraceparent(),
    });
    if (created) return created;
    const pending = await pendingCommandId(db, input.targetId, input.kind, inputKey);
    // The pending one finished between our insert and our select: make a new one.
    if (pending) return pending;
  }
}

/** How many times a command's transaction runs when PostgreSQL aborts it for contention (deadlock, serialization failure). */
export const CONTENTION_ATTEMPTS = 3;

/** A command as its runner's work sees it: locked in the transaction, pending. */
export interface LockedCommand {
  id: string;
  kind: CommandKind;
  /** What the command acts on (an invoice, a payout, the merge's source account…). */
  target_id: string;
  input: Record<string, unknown> | null;
  /** Who asked for it (an operator action's command): its runner records the action with `recordAudit`. */
  audit: AuditContext | null;
}

/**
 * What a command's work comes to: its reply (stored on the command row) and the ledger postings
 * it makes last (`postings`, not stored).
 */
export type CommandWorkResult = CommandResult & { postings?: Posting[] };

/**
 * The one command transaction every runner but the escrow phases' goes through. In one
 * transaction: lock the command row; answer the stored result of a done command; otherwise run
 * `work`, store the result it returns as the command's (its `next` commands are not stored: the
 * worker enqueues them), then write the postings it returns — last, because the accounts every
 * command of an integrator posts to (its default wallet, the clearing accounts) stay locked from
 * then until the commit, and each of them must be new (a reference posted before is a bug:
 * money never moves twice). The command ends in the same commit as its work. A refusal `work`
 * throws (an AppError) rolls all of it back; `runCommandWith` stores it. When PostgreSQL aborts
 * the transaction for contention (deadlock, serialization failure) it runs again at once, up to
 * `CONTENTION_ATTEMPTS` times, rather than wait for the job's retry. `work` must do all its SQL
 * on `db`: a runner then holds one pooled connection, so many can share a job. Null: no such
 * command.
 */
export async function inCommandTransaction(
  em: EntityManager,
  commandId: string,
  work: (db: Db, command: LockedCommand) => Promise<CommandWorkResult>,
): Promise<CommandResult | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pooled(em).transaction(async (db) => {
        const command = await lockCommandRow(db, commandId);
        if (!command) return null;
        if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
        const { postings = [], ...result } = await work(db, {
          id: command.id,
          kind: command.kind,
          target_id: command.target_id,
          input: command.input,
          audit: command.audit as AuditContext | null,
        });
        const { next: _next, ...stored } = result;
        await storeCommandResult(db, commandId, stored, false);
        if (postings.length && (await post(db, ...postings)) !== postings.length) {
          throw new Error(`command ${commandId}: a posting it makes was made before (${postings.map((p) => p.reference).join(', ')})`);
        }
        return result;
      });
    } catch (err) {
      if (!isContention(err) || attempt >= CONTENTION_ATTEMPTS) throw err;
    }
  }
}

/**
 * The first step of a command whose work calls a provider between two transactions (a payout's
 * execution): in one transaction, lock the command row and, while it is pending, run `work` and
 * commit what it did — the command stays pending; its runner then calls the provider and ends
 * the command with `inCommandTransaction`. Answers `{ done }` (its stored result) for a done
 * command, null when there is none. Runs again on contention, as `inCommandTransaction` does.
 */
export async function inCommandStep<T>(
  em: EntityManager,
  commandId: string,
  work: (db: Db, command: LockedCommand) => Promise<T>,
): Promise<{ done: CommandResult } | { value: T } | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pooled(em).transaction(async (db) => {
        const command = await lockCommandRow(db, commandId);
        if (!command) return null;
        if (command.state === 'done') return { done: { status: command.result_status!, body: command.result_body } };
        return {
          value: await work(db, {
            id: command.id,
            kind: command.kind,
            target_id: command.target_id,
            input: command.input,
            audit: command.audit as AuditContext | null,
          }),
        };
      });
    } catch (err) {
      if (!isContention(err) || attempt >= CONTENTION_ATTEMPTS) throw err;
    }
  }
}

/**
 * Runs a command with its runner (the worker's job). A refusal the runner throws (an AppError)
 * is the command's result: stored, through the one status map, unless the command was done
 * meanwhile (then the stored result stands). Any other error rejects: the job retries.
 */
export async function runCommandWith(runner: CommandRunner, em: EntityManager, commandId: string): Promise<CommandResult | null> {
  try {
    return await runner(em, commandId);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return settleCommand(pooled(em), commandId, errorReply(err));
  }
}

/** Stores a pending command's result; a done command keeps its own (returned); null when there is no such command. */
async function settleCommand(db: Db, commandId: string, result: CommandResult): Promise<CommandResult | null> {
  return (await storeCommandResult(db, commandId, result, true)) ? result : commandResult(db, commandId);
}

/** A command's kind, target and state as they stand (no lock); undefined when there is no such command. */
export function commandTarget(db: Db, commandId: string) {
  return commandTargetRow(db, commandId);
}

/** The first done command of a kind on a target (the one that did the work); undefined when none. */
export function firstDoneCommand(db: Db, targetId: string, kind: CommandKind): Promise<string | undefined> {
  return firstDoneCommandRow(db, targetId, kind);
}

/** A command's result once done, else null. */
export async function commandResult(db: Db, commandId: string): Promise<CommandResult | null> {
  const row = await commandOutcome(db, commandId);
  return row?.state === 'done' ? { status: row.result_status!, body: row.result_body } : null;
}

/**
 * How long a finished command is kept: its result answers `GET /v2/commands/{command_id}` and a
 * job run again; Idempotency-Keys, which replay answers, live only 24 hours.
 */
export const COMMAND_RETENTION_DAYS = 30;

/** Deletes finished commands past the retention, at most `batch`; returns how many. */
export function purgeFinishedCommands(em: EntityManager, days = COMMAND_RETENTION_DAYS, batch = 5_000): Promise<number> {
  return purgeFinishedCommandRows(pooled(em), days, batch);
}

/** Pending commands untouched for longer than `olderThanMs` (their job may be lost). */
export function stalledCommands(
  em: EntityManager,
  olderThanMs: number,
): Promise<Array<{ id: string; kind: CommandKind; traceparent: string | null }>> {
  return stalledCommandRows(pooled(em), olderThanMs);
}

/**
 * Submits a command, enqueues its job and answers: the command's result when
 * it finishes within `syncWaitMs`; otherwise — or at once with `respondAsync` — 202 with the
 * resource as it stands (`current()`), `Location` and `X-Command-Id`.
 */
export async function runCommand(
  em: EntityManager,
  bus: CommandBus,
  command: CommandRequest,
  opts: FollowOptions,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const commandId = await submitCommand(pooled(em), command);
  return followCommand(em, bus, commandId, command.kind, opts);
}

export interface FollowOptions {
  respondAsync: boolean;
  syncWaitMs: number;
  location: string | ((commandId: string) => string);
  current: (commandId: string) => Promise<unknown>;
}

/** Enqueues a submitted command's job and answers as `runCommand` says. */
export async function followCommand(
  em: EntityManager,
  bus: CommandBus,
  commandId: string,
  kind: CommandKind,
  opts: FollowOptions,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const db = pooled(em);
  // Waiting starts before the job exists, so its worker cannot finish before anyone listens.
  const result = opts.respondAsync ? null : bus.waitFor(commandId, opts.syncWaitMs, () => commandResult(db, commandId));
  await bus.enqueue(commandId, kind, currentTraceparent());
  const done = await result;
  if (done) return { ...done, headers: { 'X-Command-Id': commandId } };
  const location = typeof opts.location === 'string' ? opts.location : opts.location(commandId);
  return { status: 202, body: await opts.current(commandId), headers: { Location: location, 'X-Command-Id': commandId } };
}

/** The command view of `GET /v2/commands/{id}`: its state and, once done, the HTTP answer it produced. */
export interface CommandView {
  command_id: string;
  kind: CommandKind;
  target_id: string;
  input: Record<string, unknown> | null;
  state: 'pending' | 'done';
  result: CommandResult | null;
  created: string;
  updated: string;
}

/** One command of the caller's integrator, or null. */
export async function findCommand(db: Db, integratorId: string, commandId: string): Promise<CommandView | null> {
  const row = await commandOfIntegrator(db, integratorId, commandId);
  if (!row) return null;
  return {
    command_id: row.id,
    kind: row.kind,
    target_id: row.target_id,
    input: row.input,
    state: row.state,
    result: row.state === 'done' ? { status: row.result_status!, body: row.result_body } : null,
    created: new Date(row.created_at).toISOString(),
    updated: new Date(row.updated_at).toISOString(),
  };
}
