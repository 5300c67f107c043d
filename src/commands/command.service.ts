/**
 * Command rows: written before their job is enqueued, finished in the same transaction as the
 * work they describe (or, for a refusal, by `runCommandWith`), swept when their job was lost.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { CommandBus } from '../queues/command-bus.js';
import { autocommit, executor, type Sql } from '../db/sql.js';
import type { CommandKind, CommandResult, CommandRunner } from './command.registry.js';

/** What a command is asked to do: its kind, its target and, for some kinds, an input (merge: the destination). */
export interface CommandRequest {
  integratorId: string;
  kind: CommandKind;
  targetId: string;
  /** Stored with the command; requests with the same target, kind and `inputKey` share one pending command. */
  input?: Record<string, unknown>;
  inputKey?: string;
}

/**
 * The pending command for (target, kind), created when there is none: concurrent requests for
 * the same work share one command (a unique index decides).
 */
export async function submitCommand(target: Sql, input: CommandRequest): Promise<string> {
  const em = executor(target);
  const inputKey = input.inputKey ?? '';
  for (;;) {
    const [created] = await em.execute<Array<{ id: string }>>(
      `insert into command (id, integrator_id, kind, target_id, state, input, input_key) values (?, ?, ?, ?, 'pending', ?::jsonb, ?)
       on conflict (target_id, kind, input_key) where state = 'pending' do nothing returning id`,
      [newId('cmd'), input.integratorId, input.kind, input.targetId, input.input ? JSON.stringify(input.input) : null, inputKey],
    );
    if (created) return created.id;
    const [pending] = await em.execute<Array<{ id: string }>>(
      `select id from command where target_id = ? and kind = ? and input_key = ? and state = 'pending'`,
      [input.targetId, input.kind, inputKey],
    );
    // The pending one finished between our insert and our select: make a new one.
    if (pending) return pending.id;
  }
}

/** Locks a command for its worker; null when it does not exist. */
export async function lockCommand(target: Sql, commandId: string) {
  const em = executor(target);
  const [row] = await em.execute<
    Array<{
      id: string;
      kind: CommandKind;
      target_id: string;
      state: 'pending' | 'done';
      result_status: number | null;
      result_body: unknown;
      input: Record<string, unknown> | null;
    }>
  >(
    `update command set attempts = attempts + 1, updated_at = now() where id = ? returning id, kind, target_id, state, result_status, result_body, input`,
    [commandId],
  );
  return row ?? null;
}

/** Marks a command done with its HTTP result, in the caller's transaction. */
export async function completeCommand(target: Sql, commandId: string, result: CommandResult): Promise<void> {
  await executor(target).execute(
    `update command set state = 'done', result_status = ?, result_body = ?::jsonb, updated_at = now() where id = ?`,
    [result.status, JSON.stringify(result.body), commandId],
  );
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
    return settleCommand(autocommit(em), commandId, errorReply(err));
  }
}

/** Stores a pending command's result; a done command keeps its own (returned); null when there is no such command. */
async function settleCommand(target: Sql, commandId: string, result: CommandResult): Promise<CommandResult | null> {
  const [stored] = await executor(target).execute<Array<{ id: string }>>(
    `update command set state = 'done', result_status = ?, result_body = ?::jsonb, updated_at = now() where id = ? and state = 'pending' returning id`,
    [result.status, JSON.stringify(result.body), commandId],
  );
  return stored ? result : commandResult(target, commandId);
}

/** A command's result once done, else null. */
export async function commandResult(target: Sql, commandId: string): Promise<CommandResult | null> {
  const em = executor(target);
  const [row] = await em.execute<Array<{ state: string; result_status: number | null; result_body: unknown }>>(
    'select state, result_status, result_body from command where id = ?',
    [commandId],
  );
  return row?.state === 'done' ? { status: row.result_status!, body: row.result_body } : null;
}

/** Pending commands untouched for longer than `olderThanMs` (their job may be lost). */
export async function stalledCommands(em: EntityManager, olderThanMs: number): Promise<Array<{ id: string; kind: CommandKind }>> {
  return em.execute(
    `select id, kind from command where state = 'pending' and updated_at < now() - (? * interval '1 millisecond') order by updated_at limit 500`,
    [olderThanMs],
  );
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
  const commandId = await submitCommand(autocommit(em), command);
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
  const db = autocommit(em);
  // Waiting starts before the job exists, so its worker cannot finish before anyone listens.
  const result = opts.respondAsync ? null : bus.waitFor(commandId, opts.syncWaitMs, () => commandResult(db, commandId));
  await bus.enqueue(commandId, kind);
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
export async function findCommand(target: Sql, integratorId: string, commandId: string): Promise<CommandView | null> {
  const em = executor(target);
  const [row] = await em.execute<
    Array<{
      id: string;
      kind: CommandKind;
      target_id: string;
      input: Record<string, unknown> | null;
      state: 'pending' | 'done';
      result_status: number | null;
      result_body: unknown;
      created_at: Date;
      updated_at: Date;
    }>
  >('select * from command where id = ? and integrator_id = ?', [commandId, integratorId]);
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
