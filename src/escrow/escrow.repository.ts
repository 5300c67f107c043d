/**
 * The escrow table. Hand-written SQL: escrow requests and phases are the hot path, so a
 * request reads its escrow and makes its pending command in one statement, and a phase moves
 * escrows with a guarded UPDATE (only from the state it read) inside the phase's one statement
 * (escrow-phase.flow.ts), through the fragments below.
 */
import { insertPendingCommandsSql } from '../commands/command.repository.js';
import type { Db } from '../db/sql.js';
import type { EscrowRow } from './escrow.rules.js';
import { joinInvoiceSql, lineItemWalletsSql } from '../invoices/invoice.repository.js';
import {
  ESCROW_HOLDING_BALANCES_SQL,
  expectedPhasesSql,
  firstFoundSql,
  type Found,
  PROBLEM_TOTAL_SQL,
  phasesDifferSql,
  postingPhasesSql,
} from '../ledger/ledger.repository.js';

/** The escrow columns its record is made from (named, never `*`: statements are prepared). */
const ESCROW_COLUMNS = [
  'id',
  'integrator_id',
  'account_id',
  'status',
  'currency',
  'total_amount',
  'escrow_invoice_id',
  'commit_invoice_id',
  'cancel_invoice_id',
  'metadata',
  'created_at',
  'updated_at',
];

/** Fragment: the escrow columns of the row aliased `alias`, as `escrowFromRow` reads them. */
export function escrowColumnsSql(alias: string): string {
  return ESCROW_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
}

/**
 * Fragment: the escrow whose id is `<expr>` as `<alias>` (a left join), found by one key lookup
 * per row. A plain join lets PostgreSQL merge the whole key index with the rows instead, which
 * it judges cheap when it guesses the ids spread evenly over the keys; the newest escrows (time-ordered ids, all at
 * the end) then cost a walk over every escrow. The subquery (`offset 0` keeps it whole) allows only the lookup.
 */
export function joinEscrowSql(alias: string, idExpression: string): string {
  return `left join lateral (select * from escrow where id = ${idExpression} offset 0) ${alias} on true`;
}

/** The integrator's escrow, if any. */
export async function escrowOfIntegrator(db: Db, integratorId: string, escrowId: string): Promise<EscrowRow | undefined> {
  const [row] = await db.execute<EscrowRow[]>(`select ${ESCROW_COLUMNS.join(', ')} from escrow where id = ? and integrator_id = ?`, [
    escrowId,
    integratorId,
  ]);
  return row;
}

/**
 * The escrow's status, its row locked `for share` until the caller's transaction ends: a phase's
 * guarded move of it waits, and a move that committed first is seen (undefined: no such escrow).
 * A dispute's trace takes it on each escrow it finds ESCROWED.
 */
export async function lockEscrowStatus(db: Db, escrowId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ status: string }>>('select status from escrow where id = ? for share', [escrowId]);
  return row?.status;
}

/** A request for a transition: the caller's escrow and, when it is in a runnable state, a command to make. */
export interface TransitionRequestRow {
  escrowId: string;
  integratorId: string;
  commandId: string;
  kind: string;
  /** The states the transition runs from. */
  runnable: string[];
  /** The W3C traceparent of the request (tracing on), kept with the command it makes. */
  traceparent?: string;
}

/**
 * Requests in one statement: each caller's escrow and, when its state is runnable, the pending
 * command for it (made unless one exists: concurrent requests share it). Answers in request
 * order; undefined row: no such escrow for that integrator.
 */
export async function requestTransitionRows(
  db: Db,
  requests: TransitionRequestRow[],
): Promise<Array<(EscrowRow & { command_id: string | null }) | undefined>> {
  const rows = await db.execute<Array<EscrowRow & { ord: string; command_id: string | null }>>(
    `with v as (
       select * from jsonb_to_recordset(?::jsonb) as v (ord int, escrow_id varchar, integrator_id varchar, command_id varchar, kind varchar, runnable text, traceparent varchar)
     ), e as (
       select v.ord, v.command_id as new_command_id, v.kind as new_kind, v.runnable, v.traceparent as new_traceparent, ${escrowColumnsSql('x')}
         from v join escrow x on x.id = v.escrow_id and x.integrator_id = v.integrator_id
        where x.id = any (array(select escrow_id from v))
     ), n as (
       select e.new_command_id as id, e.integrator_id, e.new_kind as kind, e.id as target_id, e.new_traceparent as traceparent from e where e.status = any (string_to_array(e.runnable, ','))
     ), c as (${insertPendingCommandsSql('n')})
     select e.ord, ${ESCROW_COLUMNS.join(', ')}, (select c.id from c where c.target_id = e.id and c.kind = e.new_kind) as command_id from e`,
    [
      JSON.stringify(
        requests.map((r, i) => ({
          ord: i + 1,
          escrow_id: r.escrowId,
          integrator_id: r.integratorId,
          command_id: r.commandId,
          kind: r.kind,
          runnable: r.runnable.join(','),
          traceparent: r.traceparent,
        })),
      ),
    ],
  );
  const byOrd = new Map(rows.map((r) => [Number(r.ord), r]));
  return requests.map((_, i) => byOrd.get(i + 1));
}

/**
 * Fragment: an UPDATE moving the escrows a relation holds (columns `id`, `prev`, `next`,
 * `commit_invoice_id`, `cancel_invoice_id`, `at`) — each only if still in state `prev`;
 * returns the ids of those moved. Each escrow is found by its key (`= any`), not by joining the
 * whole table.
 */
export function moveEscrowsSql(relation: string): string {
  return `update escrow e set status = v.next, commit_invoice_id = v.commit_invoice_id, cancel_invoice_id = v.cancel_invoice_id, updated_at = v.at
         from ${relation} v
        where e.id = any (array(select id from ${relation})) and e.id = v.id and e.status = v.prev
       returning e.id`;
}

/**
 * Fragment: an INSERT of the OPEN escrows of the new escrow invoices a relation holds (columns
 * `id`: the invoice's, `escrow_id`, `integrator_id`, `account_id`, `currency`, `total_amount`,
 * `reference_type`, `reference_id`, `description`, `metadata`, `created_at`, `updated_at`): an
 * escrow's row is its invoice's (same buyer, currency, total, references and times).
 */
export function insertOpenEscrowsSql(relation: string): string {
  return `insert into escrow (id, integrator_id, account_id, status, currency, total_amount, escrow_invoice_id, reference_type, reference_id,
                         description, metadata, created_at, updated_at)
     select escrow_id, integrator_id, account_id, 'OPEN', currency, total_amount, id, reference_type, reference_id,
            description, metadata, created_at, updated_at from ${relation} where escrow_id is not null`;
}

/**
 * Each integrator's escrow holding balance beside the total of its ESCROWED escrows, where the
 * two differ (the caller's snapshot; the first `limit`, each with the count of all as `total`).
 */
export function escrowHoldingMismatches(
  db: Db,
  limit: number,
): Promise<Array<Found<{ integrator_id: string; currency: string; balance: string; held: string }>>> {
  return db.execute(
    `select coalesce(a.integrator_id, e.integrator_id) as integrator_id, coalesce(a.currency, e.currency) as currency,
            coalesce(a.balance, 0) as balance, coalesce(e.held, 0) as held, ${PROBLEM_TOTAL_SQL}
       from (${ESCROW_HOLDING_BALANCES_SQL}) a
       full join (select integrator_id, currency, sum(total_amount) as held from escrow where status = 'ESCROWED' group by integrator_id, currency) e
         on e.integrator_id = a.integrator_id and e.currency = a.currency
      where coalesce(a.balance, 0) <> coalesce(e.held, 0)
      order by 1, 2 limit ?`,
    [limit],
  );
}

/**
 * `ledger verify`: the escrows whose postings (references `escrow:<id>:<phase>`, grouped once: a
 * hash join, not a scan per escrow) are not the phases `expected` gives for their status (none
 * for a status it lacks) — only those, the first `limit` by id, each with the count of all as
 * `total`, and `phases` as stored.
 */
export function escrowPhaseMismatches(
  db: Db,
  expected: Record<string, string[]>,
  limit: number,
): Promise<Array<Found<{ id: string; status: string; phases: string[] | null }>>> {
  return db.execute(
    firstFoundSql(
      `with p as (${postingPhasesSql('escrow')}), x as (${expectedPhasesSql()})
       select e.id, e.status, p.phases from x cross join escrow e left join p on p.owner_id = e.id
        where ${phasesDifferSql(`array_remove(p.phases, '')`, 'x.by_state -> e.status')}`,
      'id, status, phases',
    ),
    [JSON.stringify(expected), limit],
  );
}

/** How many of the integrator's unfinished escrows (OPEN, ESCROWED) name an account: as their buyer, and as the owner of a wallet they pay. */
export interface EscrowsNaming {
  escrowedAsBuyer: number;
  escrowedAsPayee: number;
  openAsBuyer: number;
  openAsPayee: number;
}

/** The unfinished escrows naming an account (its id, and its wallets' ledger accounts), counted by state and role. */
export async function unfinishedEscrowsNaming(
  db: Db,
  integratorId: string,
  accountId: string,
  walletIds: string[],
): Promise<EscrowsNaming> {
  const [row] = await db.execute<Array<Record<'escrowed_buyer' | 'escrowed_payee' | 'open_buyer' | 'open_payee', string>>>(
    `with e as (
       select e.status, e.account_id = ? as buyer, exists (select 1 from (${lineItemWalletsSql('i')}) n where n.w = any (?::varchar[])) as payee
         from escrow e ${joinInvoiceSql('i', 'e.escrow_invoice_id')}
        where e.integrator_id = ? and e.status in ('OPEN', 'ESCROWED')
     )
     select count(*) filter (where status = 'ESCROWED' and buyer) as escrowed_buyer,
            count(*) filter (where status = 'ESCROWED' and payee) as escrowed_payee,
            count(*) filter (where status = 'OPEN' and buyer) as open_buyer,
            count(*) filter (where status = 'OPEN' and payee) as open_payee
       from e`,
    [accountId, walletIds, integratorId],
  );
  return {
    escrowedAsBuyer: Number(row.escrowed_buyer),
    escrowedAsPayee: Number(row.escrowed_payee),
    openAsBuyer: Number(row.open_buyer),
    openAsPayee: Number(row.open_payee),
  };
}

/** A page of a lookup: how it is ordered and which slice. */
export interface LookupPage {
  sort: 'asc' | 'desc';
  sortField: 'created' | 'updated';
  limit: number;
  offset: number;
}

/**
 * The integrator's escrows whose `reference_id` is the one given (of one status, when named),
 * ordered by creation or update time (then id), one page of them; and how many match in all.
 * Index `escrow_reference_idx`.
 */
export async function escrowsByReference(
  db: Db,
  integratorId: string,
  referenceId: string,
  status: string | undefined,
  page: LookupPage,
): Promise<{ total: number; rows: EscrowRow[] }> {
  const where = 'integrator_id = ? and reference_id = ? and (?::varchar is null or status = ?::varchar)';
  const params = [integratorId, referenceId, status ?? null, status ?? null];
  const [count] = await db.execute<Array<{ total: string }>>(`select count(*) as total from escrow where ${where}`, params);
  const column = page.sortField === 'updated' ? 'updated_at' : 'created_at';
  const direction = page.sort === 'asc' ? 'asc' : 'desc';
  const rows = await db.execute<EscrowRow[]>(
    `select ${ESCROW_COLUMNS.join(', ')} from escrow where ${where} order by ${column} ${direction}, id ${direction} limit ? offset ?`,
    [...params, page.limit, page.offset],
  );
  return { total: Number(count.total), rows };
}

/** The integrator's escrows among these ids. */
export function escrowsOfIntegrator(db: Db, integratorId: string, ids: string[]): Promise<EscrowRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.execute<EscrowRow[]>(`select ${ESCROW_COLUMNS.join(', ')} from escrow where id = any (?::varchar[]) and integrator_id = ?`, [
    ids,
    integratorId,
  ]);
}

/**
 * The integrator's escrows the account bought (is the buyer of), newest first, one page of
 * them; and how many in all. Index `escrow_account_idx`.
 */
export async function escrowsOfAccount(
  db: Db,
  integratorId: string,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: EscrowRow[] }> {
  const where = 'account_id = ? and integrator_id = ?';
  const [count] = await db.execute<Array<{ total: string }>>(`select count(*) as total from escrow where ${where}`, [
    accountId,
    integratorId,
  ]);
  const rows = await db.execute<EscrowRow[]>(
    `select ${ESCROW_COLUMNS.join(', ')} from escrow where ${where} order by created_at desc, id desc limit ? offset ?`,
    [accountId, integratorId, page.limit, page.offset],
  );
  return { total: Number(count.total), rows };
}

/** What the account's ESCROWED escrows (as buyer) hold, per currency. Index `escrow_account_idx`. */
export async function heldForAccount(db: Db, integratorId: string, accountId: string): Promise<Array<{ currency: string; held: number }>> {
  const rows = await db.execute<Array<{ currency: string; held: string }>>(
    `select currency, sum(total_amount)::text as held from escrow
      where account_id = ? and integrator_id = ? and status = 'ESCROWED' group by currency order by currency`,
    [accountId, integratorId],
  );
  return rows.map((r) => ({ currency: r.currency, held: Number(r.held) }));
}
