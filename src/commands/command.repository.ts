/**
 * The command table. Hand-written SQL: creating a pending command is an INSERT … ON CONFLICT on
 * a partial unique index (concurrent requests share one command), a worker's lock is an UPDATE
 * … RETURNING, and the escrow phases and escrow requests take this table into their one
 * statement through the fragments below.
 */
import type { Db } from '../db/sql.js';
import type { CommandKind, CommandResult } from './command.registry.js';

/** A command row as its readers use it. */
export interface CommandRecord {
  id: string;
  kind: CommandKind;
  target_id: string;
  input: Record<string, unknown> | null;
  /** Who asked for it, for the audit trail (an operator action's command), else null. */
  audit: Record<string, unknown> | null;
  state: 'pending' | 'done';
  result_status: number | null;
  result_body: unknown;
  created_at: Date;
  updated_at: Date;
}

/** A pending command to create. */
export interface NewCommand {
  id: string;
  integratorId: string | null;
  kind: CommandKind;
  targetId: string;
  input: Record<string, unknown> | null;
  inputKey: string;
  audit?: Record<string, unknown> | null;
  /** The W3C traceparent of the request that makes it (tracing on). */
  traceparent?: string | null;
}

/** Creates the pending command unless one exists for (target, kind, input key); its id when created. */
export async function insertPendingCommand(db: Db, command: NewCommand): Promise<string | undefined> {
  const [created] = await db.execute<Array<{ id: string }>>(
    `insert into command (id, integrator_id, kind, target_id, state, input, input_key, audit, traceparent) values (?, ?, ?, ?, 'pending', ?::jsonb, ?, ?::jsonb, ?)
     on conflict (target_id, kind, input_key) where state = 'pending' do nothing returning id`,
    [
      command.id,
      command.integratorId,
      command.kind,
      command.targetId,
      command.input ? JSON.stringify(command.input) : null,
      command.inputKey,
      command.audit ? JSON.stringify(command.audit) : null,
      command.traceparent ?? null,
    ],
  );
  return created?.id;
}

/** The pending command for (target, kind, input key), if any. */
export async function pendingCommandId(db: Db, targetId: string, kind: CommandKind, inputKey: string): Promise<string | undefined> {
  const [pending] = await db.execute<Array<{ id: string }>>(
    `select id from command where target_id = ? and kind = ? and input_key = ? and state = 'pending'`,
    [targetId, kind, inputKey],
  );
  return pending?.id;
}

/** Locks a command for its worker (counting the attempt); undefined when it does not exist. */
export async function lockCommandRow(db: Db, commandId: string): Promise<Omit<CommandRecord, 'created_at' | 'updated_at'> | undefined> {
  const [row] = await db.execute<Array<Omit<CommandRecord, 'created_at' | 'updated_at'>>>(
    `update command set attempts = attempts + 1, updated_at = now() where id = ? returning id, kind, target_id, state, result_status, result_body, input, audit`,
    [commandId],
  );
  return row;
}

/** A command's kind, target and state, without a lock; undefined when absent. */
export async function commandTargetRow(
  db: Db,
  commandId: string,
): Promise<
  { id: string; kind: CommandKind; target_id: string; state: 'pending' | 'done'; input: Record<string, unknown> | null } | undefined
> {
  const [row] = await db.execute<
    Array<{ id: string; kind: CommandKind; target_id: string; state: 'pending' | 'done'; input: Record<string, unknown> | null }>
  >('select id, kind, target_id, state, input from command where id = ?', [commandId]);
  return row;
}

/** The first done command of a kind on a target (by creation); undefined when there is none. */
export async function firstDoneCommandRow(db: Db, targetId: string, kind: CommandKind): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    `select id from command where target_id = ? and kind = ? and state = 'done' order by created_at, id limit 1`,
    [targetId, kind],
  );
  return row?.id;
}

/**
 * Stores a command's result. `onlyPending`: only when still pending (false when it was done
 * already, and nothing changes).
 */
export async function storeCommandResult(db: Db, commandId: string, result: CommandResult, onlyPending: boolean): Promise<boolean> {
  const rows = await db.execute<Array<{ id: string }>>(
    `update command set state = 'done', result_status = ?, result_body = ?::jsonb, updated_at = now() where id = ?${onlyPending ? ` and state = 'pending'` : ''} returning id`,
    [result.status, JSON.stringify(result.body), commandId],
  );
  return rows.length > 0;
}

/** A command's state and result columns. */
export async function commandOutcome(
  db: Db,
  commandId: string,
): Promise<{ state: string; result_status: number | null; result_body: unknown } | undefined> {
  const [row] = await db.execute<Array<{ state: string; result_status: number | null; result_body: unknown }>>(
    'select state, result_status, result_body from command where id = ?',
    [commandId],
  );
  return row;
}

/**
 * Deletes finished commands last changed more than `days` ago, at most `batch` (oldest first by
 * the `command_done_idx` index, then each by its key: `= any (array(…))`, never a join over the
 * whole table); returns how many.
 */
export async function purgeFinishedCommandRows(db: Db, days: number, batch: number): Promise<number> {
  const [row] = await db.execute<Array<{ n: number }>>(
    `with gone as (
       delete from command where id = any (array(
         select id from command where state = 'done' and updated_at < now() - (? * interval '1 day') order by updated_at limit ?))
       returning 1
     ) select count(*)::int as n from gone`,
    [days, batch],
  );
  return row?.n ?? 0;
}

/** Pending commands untouched for longer than `olderThanMs`, oldest first, 500 at most. */
export function stalledCommandRows(
  db: Db,
  olderThanMs: number,
): Promise<Array<{ id: string; kind: CommandKind; traceparent: string | null }>> {
  return db.execute(
    `select id, kind, traceparent from command where state = 'pending' and updated_at < now() - (? * interval '1 millisecond') order by updated_at limit 500`,
    [olderThanMs],
  );
}

/** One command of an integrator. */
export async function commandOfIntegrator(db: Db, integratorId: string, commandId: string): Promise<CommandRecord | undefined> {
  const [row] = await db.execute<CommandRecord[]>(
    `select id, kind, target_id, input, state, result_status, result_body, created_at, updated_at from command where id = ? and integrator_id = ?`,
    [commandId, integratorId],
  );
  return row;
}

/**
 * Fragment: an INSERT of the pending commands a relation holds (columns `id`, `integrator_id`,
 * `kind`, `target_id`, `traceparent`), skipping those whose work already has a pending command; returns
 * `id, target_id, kind` of the ones made.
 */
export function insertPendingCommandsSql(relation: string): string {
  return `insert into command (id, integrator_id, kind, target_id, state, traceparent)
       select n.id, n.integrator_id, n.kind, n.target_id, 'pending', n.traceparent from ${relation} n
       on conflict (target_id, kind, input_key) where state = 'pending' do nothing
       returning id, target_id, kind`;
}

/** Fragment: the commands (`id, kind, target_id, state, result_status, result_body`) whose ids an SQL array expression holds. */
export function commandsByIdsSql(idsExpression: string): string {
  return `select id, kind, target_id, state, result_status, result_body from command where id = any (${idsExpression})`;
}

/**
 * Fragment: an UPDATE finishing the pending commands a relation holds (columns `id`, `status`,
 * `body` jsonb) whose row satisfies `condition` (an SQL condition on the relation's row `v`);
 * returns the ids of those finished. Each command is found by its key (`= any`), not by joining
 * the whole table.
 */
export function finishCommandsSql(relation: string, condition: string): string {
  return `update command c set state = 'done', result_status = v.status, result_body = v.body, updated_at = now()
         from ${relation} v
        where c.id = any (array(select id from ${relation})) and c.id = v.id and c.state = 'pending' and (${condition})
       returning c.id`;
}
