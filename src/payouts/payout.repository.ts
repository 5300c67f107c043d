/** Payouts (plain SQL). */
import type { Db } from '../db/sql.js';
import {
  expectedPhasesSql,
  firstFoundSql,
  type Found,
  PAYOUT_HOLDING_BALANCES_SQL,
  PROBLEM_TOTAL_SQL,
  phasesDifferSql,
  postingPhasesSql,
} from '../ledger/ledger.repository.js';
import { OPEN_STATUSES, type PayoutRecord, type PayoutStatus } from './payout.rules.js';

const COLUMNS = `id, integrator_id as "integratorId", account_id as "accountId", status, amount, currency,
  source_payment_method_id as "sourcePaymentMethodId", destination_payment_method_id as "destinationPaymentMethodId",
  token_exchange_id as "tokenExchangeId", failure_code as "failureCode", failure_reason as "failureReason",
  attempt, attempt_command_id as "attemptCommandId", provider_batch_id as "providerBatchId",
  provider_item_id as "providerItemId", provider_status as "providerStatus",
  created_at as "createdAt", updated_at as "updatedAt"`;

/** The open statuses as an SQL list (fixed literals, not input). */
const OPEN_SQL = OPEN_STATUSES.map((s) => `'${s}'`).join(', ');

/** A row as read (timestamps may come back as text) → the record. */
function fromRow(row: PayoutRecord): PayoutRecord {
  return { ...row, amount: Number(row.amount), createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

export async function insertPayout(db: Db, p: PayoutRecord): Promise<void> {
  await db.execute(
    `insert into payout (id, integrator_id, account_id, status, amount, currency, source_payment_method_id, destination_payment_method_id,
                         token_exchange_id, failure_code, failure_reason, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      p.id,
      p.integratorId,
      p.accountId,
      p.status,
      p.amount,
      p.currency,
      p.sourcePaymentMethodId,
      p.destinationPaymentMethodId,
      p.tokenExchangeId,
      p.failureCode,
      p.failureReason,
      p.createdAt,
      p.updatedAt,
    ],
  );
}

/** A payout, locked for its change (`for update`). */
export async function lockPayout(db: Db, payoutId: string): Promise<PayoutRecord | undefined> {
  const [row] = await db.execute<PayoutRecord[]>(`select ${COLUMNS} from payout where id = ? for update`, [payoutId]);
  return row && fromRow(row);
}

/**
 * The payout's status, its row locked `for share` until the caller's transaction ends: an
 * execution's claim of it (which locks it `for update`) waits, and one that committed first is
 * seen. A dispute's trace takes it on each payout it finds holding traced value.
 */
export async function lockPayoutStatus(db: Db, payoutId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ status: string }>>('select status from payout where id = ? for share', [payoutId]);
  return row?.status;
}

/** A payout by its id alone (the operator's commands). */
export async function payoutById(db: Db, payoutId: string): Promise<PayoutRecord | undefined> {
  const [row] = await db.execute<PayoutRecord[]>(`select ${COLUMNS} from payout where id = ?`, [payoutId]);
  return row && fromRow(row);
}

/** A payout of the integrator's. */
export async function findPayout(db: Db, integratorId: string, payoutId: string): Promise<PayoutRecord | undefined> {
  const [row] = await db.execute<PayoutRecord[]>(`select ${COLUMNS} from payout where id = ? and integrator_id = ?`, [
    payoutId,
    integratorId,
  ]);
  return row && fromRow(row);
}

/** Sets a payout's status and failure; its new `updated_at`. */
export async function setPayoutStatus(
  db: Db,
  payoutId: string,
  status: PayoutStatus,
  failure: { code: string | null; reason: string | null },
): Promise<Date> {
  const [row] = await db.execute<Array<{ updated_at: Date }>>(
    'update payout set status = ?, failure_code = ?, failure_reason = ?, updated_at = clock_timestamp() where id = ? returning updated_at',
    [status, failure.code, failure.reason, payoutId],
  );
  return new Date(row!.updated_at);
}

/**
 * Starts an attempt at the rail: the payout becomes PROCESSING on attempt `attempt`, owned by
 * the `payout.execute` command `commandId`, with no failure and nothing yet from the rail; its
 * new `updated_at`.
 */
export async function startPayoutAttempt(db: Db, payoutId: string, attempt: number, commandId: string): Promise<Date> {
  const [row] = await db.execute<Array<{ updated_at: Date }>>(
    `update payout set status = 'PROCESSING', attempt = ?, attempt_command_id = ?, failure_code = null, failure_reason = null,
            provider_batch_id = null, provider_item_id = null, provider_status = null, provider_snapshot = null,
            updated_at = clock_timestamp()
      where id = ? returning updated_at`,
    [attempt, commandId, payoutId],
  );
  return new Date(row!.updated_at);
}

/**
 * Records what the rail said of the payout's current attempt: its ids (kept when it names none),
 * its status and its object (kept when it sends none). Leaves the payout's state as it is.
 */
export async function recordRailReport(
  db: Db,
  payoutId: string,
  report: {
    providerBatchId?: string | null;
    providerItemId?: string | null;
    providerStatus: string;
    snapshot?: Record<string, unknown> | null;
  },
): Promise<void> {
  await db.execute(
    `update payout set provider_batch_id = coalesce(?, provider_batch_id), provider_item_id = coalesce(?, provider_item_id),
            provider_status = ?, provider_snapshot = coalesce(?::jsonb, provider_snapshot)
      where id = ?`,
    [
      report.providerBatchId ?? null,
      report.providerItemId ?? null,
      report.providerStatus.slice(0, 20),
      report.snapshot ? JSON.stringify(report.snapshot) : null,
      payoutId,
    ],
  );
}

/** The payout whose current attempt the rail knows by this item id. */
export async function payoutByProviderItem(db: Db, providerItemId: string): Promise<PayoutRecord | undefined> {
  const [row] = await db.execute<PayoutRecord[]>(`select ${COLUMNS} from payout where provider_item_id = ?`, [providerItemId]);
  return row && fromRow(row);
}

/** How many of the account's payouts are open (FUNDS-IN-ESCROW, PROCESSING or FAILED). */
export async function openPayoutCount(db: Db, accountId: string): Promise<number> {
  const [row] = await db.execute<Array<{ n: string }>>(
    `select count(*) as n from payout where account_id = ? and status in (${OPEN_SQL})`,
    [accountId],
  );
  return Number(row?.n ?? 0);
}

/** A page of the account's payouts, newest first, and how many it has. */
export async function payoutsOf(
  db: Db,
  accountId: string,
  limit: number,
  offset: number,
): Promise<{ total: number; payouts: PayoutRecord[] }> {
  const [count] = await db.execute<Array<{ n: string }>>('select count(*) as n from payout where account_id = ?', [accountId]);
  const payouts = await db.execute<PayoutRecord[]>(
    `select ${COLUMNS} from payout where account_id = ? order by created_at desc, id desc limit ? offset ?`,
    [accountId, limit, offset],
  );
  return { total: Number(count?.n ?? 0), payouts: payouts.map(fromRow) };
}

/** The integrator's payouts an operator decides (FUNDS-IN-ESCROW, FAILED), oldest first: the console's payouts queue. */
export async function payoutsAwaitingDecision(db: Db, integratorId: string, limit: number): Promise<PayoutRecord[]> {
  const rows = await db.execute<PayoutRecord[]>(
    `select ${COLUMNS} from payout where integrator_id = ? and status in ('FUNDS-IN-ESCROW', 'FAILED') order by created_at, id limit ?`,
    [integratorId, limit],
  );
  return rows.map(fromRow);
}

/**
 * `ledger verify`: where payout holding (per integrator and currency) differs from what its open
 * payouts hold (the first `limit`, each with the count of all as `total`).
 */
export function payoutHoldingMismatches(
  db: Db,
  limit: number,
): Promise<Array<Found<{ integrator_id: string; currency: string; balance: string; held: string }>>> {
  return db.execute(
    `select coalesce(a.integrator_id, p.integrator_id) as integrator_id, coalesce(a.currency, p.currency) as currency,
            coalesce(a.balance, 0) as balance, coalesce(p.held, 0) as held, ${PROBLEM_TOTAL_SQL}
       from (${PAYOUT_HOLDING_BALANCES_SQL}) a
       full join (select integrator_id, currency, sum(amount) as held from payout where status in (${OPEN_SQL})
                   group by integrator_id, currency) p
         on p.integrator_id = a.integrator_id and p.currency = a.currency
      where coalesce(a.balance, 0) <> coalesce(p.held, 0)
      order by 1, 2 limit ?`,
    [limit],
  );
}

/**
 * `ledger verify`: the payouts whose postings (`payout:<id>:<phase>`) are not the phases
 * `expected` gives for their status, and postings of that form naming no payout (`status`
 * null) — only those, the first `limit` by id, each with the count of all as `total`.
 */
export function payoutPhaseMismatches(
  db: Db,
  expected: Record<string, string[]>,
  limit: number,
): Promise<Array<Found<{ id: string; status: PayoutStatus | null; phases: string[] | null }>>> {
  return db.execute(
    firstFoundSql(
      `with p as (${postingPhasesSql('payout')}), x as (${expectedPhasesSql()})
       select coalesce(po.id, p.owner_id) as id, po.status, p.phases
         from x cross join (payout po full join p on p.owner_id = po.id)
        where po.id is null or ${phasesDifferSql(`array_remove(p.phases, '')`, 'x.by_state -> po.status')}`,
      'id, status, phases',
    ),
    [JSON.stringify(expected), limit],
  );
}

/**
 * `ledger verify`: the next `limit` payouts after `afterId` (by id) that Holdfast recorded as
 * sent to a rail that named its item (`provider_item_id` set) in one of `statuses`.
 */
export async function sentPayoutsPage(
  db: Db,
  statuses: readonly PayoutStatus[],
  afterId: string,
  limit: number,
): Promise<Array<Pick<PayoutRecord, 'id' | 'status' | 'amount' | 'currency' | 'attempt'> & { providerItemId: string }>> {
  const rows = await db.execute<
    Array<Pick<PayoutRecord, 'id' | 'status' | 'amount' | 'currency' | 'attempt'> & { providerItemId: string }>
  >(
    `select id, status, amount, currency, attempt, provider_item_id as "providerItemId" from payout
      where provider_item_id is not null and status = any(?::text[]) and id > ? order by id limit ?`,
    [[...statuses], afterId, limit],
  );
  return rows.map((r) => ({ ...r, amount: Number(r.amount), attempt: Number(r.attempt) }));
}

/**
 * Fragment for an export: the integrator's payouts (of one account, of one status, created in
 * [from, to): each optional), oldest first (ties by id), as rows (`payout_id`, `created_at`,
 * `updated_at`, `account_id`, `status`, `currency`, `amount`, `destination_payment_method_id`,
 * `token_exchange_id`, `attempt`, `failure_code`, `failure_reason`).
 */
export function payoutExportSql(
  integratorId: string,
  f: { accountId?: string; status?: string; from: string | null; to: string | null },
): { sql: string; params: unknown[] } {
  return {
    sql: `select id as payout_id, created_at, updated_at, account_id, status, currency, amount::text as amount,
                 destination_payment_method_id, token_exchange_id, attempt, failure_code, failure_reason
            from payout
           where integrator_id = ? and (?::varchar is null or account_id = ?::varchar) and (?::varchar is null or status = ?::varchar)
             and (?::timestamptz is null or created_at >= ?::timestamptz) and (?::timestamptz is null or created_at < ?::timestamptz)
           order by created_at, id`,
    params: [integratorId, f.accountId ?? null, f.accountId ?? null, f.status ?? null, f.status ?? null, f.from, f.from, f.to, f.to],
  };
}
