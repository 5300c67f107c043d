/** Disputes (plain SQL). */
import type { Db } from '../db/sql.js';
import { purchasesChargedToSql } from '../invoices/invoice.repository.js';
import {
  DISPUTE_BALANCES_SQL,
  HELD_ACCOUNTS_SQL,
  PROBLEM_TOTAL_SQL,
  clawbackMovedSql,
  postingPhasesSql,
  type Found,
} from '../ledger/ledger.repository.js';
import { disputingSandboxCardsSql } from '../payment-methods/payment-method.repository.js';
import { tenantNowSql } from '../sandbox/sandbox.repository.js';
import type { DisputeFlag, DisputeFunds, DisputeHold, DisputeRecord, DisputeStatus, Evidence } from './dispute.rules.js';

const COLUMNS = `id, integrator_id as "integratorId", invoice_id as "invoiceId", payment_method_id as "paymentMethodId",
  account_id as "accountId", amount, reported_amount as "reportedAmount", currency, reason, status,
  evidence_due_by as "evidenceDueBy", evidence, evidence_submitted_at as "evidenceSubmittedAt", fee, funds, unrecovered,
  provider, provider_dispute_id as "providerDisputeId", flags, inquiry, created_at as "createdAt", updated_at as "updatedAt", closed_at as "closedAt"`;

/** A row as read (bigints and timestamps may come back as text) → the record. */
function fromRow(row: DisputeRecord): DisputeRecord {
  return {
    ...row,
    amount: Number(row.amount),
    reportedAmount: Number(row.reportedAmount),
    fee: Number(row.fee),
    evidenceDueBy: new Date(row.evidenceDueBy),
    evidenceSubmittedAt: row.evidenceSubmittedAt ? new Date(row.evidenceSubmittedAt) : null,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
    closedAt: row.closedAt ? new Date(row.closedAt) : null,
  };
}

/**
 * Writes a new dispute, its evidence deadline `dueInSeconds` after "now" on its integrator's
 * test clock; the record as stored, or undefined when the charge already has one (then nothing
 * is written).
 */
export async function insertDispute(
  db: Db,
  d: Omit<DisputeRecord, 'evidenceDueBy' | 'createdAt' | 'updatedAt' | 'closedAt' | 'evidenceSubmittedAt'>,
  dueInSeconds: number,
): Promise<DisputeRecord | undefined> {
  const [row] = await db.execute<DisputeRecord[]>(
    `insert into dispute (id, integrator_id, invoice_id, payment_method_id, account_id, amount, reported_amount, currency, reason, status,
                          evidence_due_by, evidence, fee, funds, unrecovered, provider, provider_dispute_id, flags, inquiry)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ${tenantNowSql('?')} + ? * interval '1 second', ?::jsonb, ?, ?, ?::jsonb, ?, ?, ?::jsonb, ?)
     on conflict (invoice_id, payment_method_id) do nothing
     returning ${COLUMNS}`,
    [
      d.id,
      d.integratorId,
      d.invoiceId,
      d.paymentMethodId,
      d.accountId,
      d.amount,
      d.reportedAmount,
      d.currency,
      d.reason,
      d.status,
      d.integratorId,
      dueInSeconds,
      JSON.stringify(d.evidence),
      d.fee,
      d.funds,
      JSON.stringify(d.unrecovered),
      d.provider,
      d.providerDisputeId,
      JSON.stringify(d.flags),
      d.inquiry,
    ],
  );
  return row && fromRow(row);
}

/** A dispute, locked for its change (`for update`). */
export async function lockDispute(db: Db, disputeId: string): Promise<DisputeRecord | undefined> {
  const [row] = await db.execute<DisputeRecord[]>(`select ${COLUMNS} from dispute where id = ? for update`, [disputeId]);
  return row && fromRow(row);
}

/** The dispute of one charge (a purchase invoice's payment method), if any. */
export async function disputeOfCharge(db: Db, invoiceId: string, paymentMethodId: string): Promise<DisputeRecord | undefined> {
  const [row] = await db.execute<DisputeRecord[]>(`select ${COLUMNS} from dispute where invoice_id = ? and payment_method_id = ?`, [
    invoiceId,
    paymentMethodId,
  ]);
  return row && fromRow(row);
}

/** The dispute of one charge, locked for its change (`for update`). */
export async function lockDisputeOfCharge(db: Db, invoiceId: string, paymentMethodId: string): Promise<DisputeRecord | undefined> {
  const [row] = await db.execute<DisputeRecord[]>(
    `select ${COLUMNS} from dispute where invoice_id = ? and payment_method_id = ? for update`,
    [invoiceId, paymentMethodId],
  );
  return row && fromRow(row);
}

/** The dispute a provider reported under its own id (Stripe's `dp_…`), if any. */
export async function disputeByProviderId(db: Db, providerDisputeId: string): Promise<DisputeRecord | undefined> {
  const [row] = await db.execute<DisputeRecord[]>(`select ${COLUMNS} from dispute where provider_dispute_id = ?`, [providerDisputeId]);
  return row && fromRow(row);
}

/**
 * A processor's later notice on a dispute: where its money is now, its status while open
 * (null: unchanged) and its evidence deadline (null: unchanged); `escalated`: an inquiry became
 * a chargeback (no longer `inquiry`; back to NEEDS_RESPONSE, its evidence no longer submitted,
 * when `status` says so). The record after.
 */
export async function applyDisputeNotice(
  db: Db,
  disputeId: string,
  change: { funds: DisputeFunds; status: DisputeStatus | null; evidenceDueBy: Date | null; escalated: boolean },
): Promise<DisputeRecord> {
  const [row] = await db.execute<DisputeRecord[]>(
    `update dispute set funds = ?, status = coalesce(?, status), evidence_due_by = coalesce(?::timestamptz, evidence_due_by),
            inquiry = inquiry and not ?,
            evidence_submitted_at = case when ? and ? = 'NEEDS_RESPONSE' then null else evidence_submitted_at end,
            updated_at = clock_timestamp()
      where id = ? returning ${COLUMNS}`,
    [
      change.funds,
      change.status,
      change.evidenceDueBy ? change.evidenceDueBy.toISOString() : null,
      change.escalated,
      change.escalated,
      change.status,
      disputeId,
    ],
  );
  return fromRow(row!);
}

/** Adds a flag to a dispute (once); the record after. */
export async function addDisputeFlag(db: Db, disputeId: string, flag: DisputeFlag): Promise<DisputeRecord> {
  const [row] = await db.execute<DisputeRecord[]>(
    `update dispute set flags = case when flags @> ?::jsonb then flags else flags || ?::jsonb end, updated_at = clock_timestamp()
      where id = ? returning ${COLUMNS}`,
    [JSON.stringify([flag]), JSON.stringify([flag]), disputeId],
  );
  return fromRow(row!);
}

/** A dispute of the integrator's. */
export async function findDispute(db: Db, integratorId: string, disputeId: string): Promise<DisputeRecord | undefined> {
  const [row] = await db.execute<DisputeRecord[]>(`select ${COLUMNS} from dispute where id = ? and integrator_id = ?`, [
    disputeId,
    integratorId,
  ]);
  return row && fromRow(row);
}

/** The disputes of one purchase invoice, oldest first. */
export async function disputesOfInvoice(db: Db, invoiceId: string): Promise<DisputeRecord[]> {
  const rows = await db.execute<DisputeRecord[]>(`select ${COLUMNS} from dispute where invoice_id = ? order by created_at, id`, [
    invoiceId,
  ]);
  return rows.map(fromRow);
}

export interface DisputeFilter {
  status?: DisputeStatus;
  accountId?: string;
  invoiceId?: string;
  /** Only disputes carrying this flag. */
  flag?: DisputeFlag;
}

/** A page of the integrator's disputes, newest first, and how many match in all. */
export async function listDisputes(
  db: Db,
  integratorId: string,
  filter: DisputeFilter,
  page: { limit: number; offset: number },
): Promise<{ total: number; rows: DisputeRecord[] }> {
  const where = ['integrator_id = ?'];
  const params: unknown[] = [integratorId];
  if (filter.status) where.push('status = ?') && params.push(filter.status);
  if (filter.accountId) where.push('account_id = ?') && params.push(filter.accountId);
  if (filter.invoiceId) where.push('invoice_id = ?') && params.push(filter.invoiceId);
  if (filter.flag) where.push('flags @> ?::jsonb') && params.push(JSON.stringify([filter.flag]));
  const rows = await db.execute<Array<DisputeRecord & { total: string }>>(
    `select ${COLUMNS}, count(*) over () as total from dispute where ${where.join(' and ')}
      order by created_at desc, id desc limit ? offset ?`,
    [...params, page.limit, page.offset],
  );
  return { total: rows.length ? Number(rows[0]!.total) : 0, rows: rows.map(fromRow) };
}

/** Saves a dispute's evidence and, when submitted, its submission time and new status; the record after. */
export async function saveEvidence(db: Db, disputeId: string, evidence: Evidence, submit: boolean): Promise<DisputeRecord> {
  const [row] = await db.execute<DisputeRecord[]>(
    `update dispute set evidence = ?::jsonb,
            evidence_submitted_at = case when ? then clock_timestamp() else evidence_submitted_at end,
            status = case when ? then 'UNDER_REVIEW' else status end,
            updated_at = clock_timestamp()
      where id = ? returning ${COLUMNS}`,
    [JSON.stringify(evidence), submit, submit, disputeId],
  );
  return fromRow(row!);
}

/** Decides a dispute: its status, where its money is now, and when it closed; the record after. */
export async function closeDisputeRow(db: Db, disputeId: string, status: 'WON' | 'LOST', funds: DisputeFunds): Promise<DisputeRecord> {
  const [row] = await db.execute<DisputeRecord[]>(
    `update dispute set status = ?, funds = ?, closed_at = clock_timestamp(), updated_at = clock_timestamp()
      where id = ? returning ${COLUMNS}`,
    [status, funds, disputeId],
  );
  return fromRow(row!);
}

/**
 * The sandbox's processor notices now due, at most `limit`: charges of the disputing sandbox card
 * paid at least `delaySeconds` before "now" on their integrator's test clock, not yet disputed.
 */
export function dueSandboxCharges(
  db: Db,
  delaySeconds: number,
  limit: number,
): Promise<Array<{ invoice_id: string; payment_method_id: string; integrator_id: string }>> {
  return db.execute(
    `select i.id as invoice_id, c.id as payment_method_id, i.integrator_id
       from (${disputingSandboxCardsSql()}) c
       cross join lateral (${purchasesChargedToSql('c.id', 'c.account_id')}) i
      where i.updated_at + ? * interval '1 second' <= ${tenantNowSql('i.integrator_id')}
        and not exists (select 1 from dispute d where d.invoice_id = i.id and d.payment_method_id = c.id)
      limit ?`,
    [delaySeconds, limit],
  );
}

/** Sandbox disputes still waiting for evidence past their deadline on their integrator's test clock, at most `limit`. */
export function overdueSandboxDisputes(db: Db, limit: number): Promise<Array<{ id: string; integrator_id: string }>> {
  return db.execute(
    `select d.id, d.integrator_id from dispute d
      where d.status = 'NEEDS_RESPONSE' and d.provider = 'sandbox' and d.evidence_due_by <= ${tenantNowSql('d.integrator_id')}
      order by d.evidence_due_by limit ?`,
    [limit],
  );
}

/**
 * `ledger verify`: per integrator and currency, dispute holding against the withdrawn amounts of
 * its disputes still holding them, dispute fees against the fees of its disputes whose money
 * moved, dispute losses against the lost ones — only those that differ (`kind` says which), the
 * first `limit`.
 */
export function disputeAccountMismatches(
  db: Db,
  limit: number,
): Promise<Array<Found<{ integrator_id: string; currency: string; kind: string; balance: string; expected: string }>>> {
  return db.execute(
    `with expected as (
       select integrator_id, currency, 'dispute_holding' as kind, sum(amount) filter (where funds = 'withdrawn') as expected
         from dispute group by 1, 2
       union all
       select integrator_id, currency, 'dispute_fees', sum(fee) filter (where funds <> 'none') from dispute group by 1, 2
       union all
       select integrator_id, currency, 'dispute_losses', sum(amount) filter (where funds = 'lost') from dispute group by 1, 2),
     actual as (${DISPUTE_BALANCES_SQL})
     select coalesce(e.integrator_id, a.integrator_id) as integrator_id, coalesce(e.currency, a.currency) as currency,
            coalesce(e.kind, a.kind) as kind, coalesce(a.balance, 0) as balance, coalesce(e.expected, 0) as expected, ${PROBLEM_TOTAL_SQL}
       from expected e full join actual a on a.integrator_id = e.integrator_id and a.currency = e.currency and a.kind = e.kind
      where coalesce(a.balance, 0) <> coalesce(e.expected, 0)
      order by 1, 2, 3 limit ?`,
    [limit],
  );
}

/**
 * `ledger verify`: disputes whose postings (references `dispute:<id>:<phase>`) do not match
 * where their money is (`none`: no posting; `withdrawn`: open; `reinstated`: open and won;
 * `lost`: open and lost), the first `limit`.
 */
export function disputePostingMismatches(
  db: Db,
  limit: number,
): Promise<Array<Found<{ id: string; funds: string; phases: string[] | null }>>> {
  return db.execute(
    `with p as (${postingPhasesSql('dispute')})
     select d.id, d.funds, p.phases, ${PROBLEM_TOTAL_SQL}
       from dispute d left join p on p.owner_id = d.id
      where coalesce(p.phases, '{}') <> case d.funds when 'none' then '{}'::text[]
                                                       when 'withdrawn' then '{open}'::text[]
                                                       when 'reinstated' then '{open,won}'::text[]
                                                       else '{lost,open}'::text[] end
      order by d.id limit ?`,
    [limit],
  );
}

/** The hold columns of the row aliased `alias`, as `holdFromRow` reads them. */
function holdColumnsOf(alias: string): string {
  return `${alias}.id, ${alias}.dispute_id as "disputeId", ${alias}.integrator_id as "integratorId", ${alias}.account_id as "accountId",
  coalesce(${alias}.wallet_id, '') as "walletId", ${alias}.currency, ${alias}.amount, ${alias}.held, ${alias}.released,
  ${alias}.clawed_back as "clawedBack", ${alias}.via, ${alias}.reference_id as "referenceId", ${alias}.state`;
}

const HOLD_COLUMNS = holdColumnsOf('dispute_hold');

function holdFromRow(r: DisputeHold): DisputeHold {
  return { ...r, amount: Number(r.amount), held: Number(r.held), released: Number(r.released), clawedBack: Number(r.clawedBack) };
}

/** Writes a dispute's trace: one row per place its value was found. */
export async function insertHolds(db: Db, holds: readonly DisputeHold[]): Promise<void> {
  if (holds.length === 0) return;
  await db.execute(
    `insert into dispute_hold (id, dispute_id, integrator_id, account_id, wallet_id, currency, amount, held, released, clawed_back, via, reference_id, state)
     select * from jsonb_to_recordset(?::jsonb) as x (id varchar, dispute_id varchar, integrator_id varchar, account_id varchar, wallet_id varchar,
       currency varchar, amount bigint, held bigint, released bigint, clawed_back bigint, via varchar, reference_id varchar, state varchar)`,
    [
      JSON.stringify(
        holds.map((h) => ({
          id: h.id,
          dispute_id: h.disputeId,
          integrator_id: h.integratorId,
          account_id: h.accountId,
          wallet_id: h.walletId || null,
          currency: h.currency,
          amount: h.amount,
          held: h.held,
          released: h.released,
          clawed_back: h.clawedBack,
          via: h.via,
          reference_id: h.referenceId,
          state: h.state,
        })),
      ),
    ],
  );
}

/** The traces of these disputes, in the order they were found. */
export async function holdsOf(db: Db, disputeIds: string[]): Promise<DisputeHold[]> {
  if (disputeIds.length === 0) return [];
  const rows = await db.execute<DisputeHold[]>(
    `select ${HOLD_COLUMNS} from dispute_hold where dispute_id = any (?::varchar[]) order by created_at, id`,
    [disputeIds],
  );
  return rows.map(holdFromRow);
}

/** Ends a hold: what it held is now released or clawed back. */
export async function endHold(db: Db, holdId: string, outcome: 'released' | 'clawed_back'): Promise<void> {
  await db.execute(`update dispute_hold set ${outcome} = ${outcome} + held, held = 0 where id = ?`, [holdId]);
}

/** Records what a lost dispute could not claw back. */
export async function setUnrecovered(db: Db, disputeId: string, unrecovered: Record<string, number>): Promise<void> {
  await db.execute('update dispute set unrecovered = ?::jsonb where id = ?', [JSON.stringify(unrecovered), disputeId]);
}

/** Whether the account has an open dispute (as the buyer whose card was disputed). */
export async function hasOpenDispute(db: Db, accountId: string): Promise<boolean> {
  const [row] = await db.execute<Array<{ open: boolean }>>(
    `select exists (select 1 from dispute where account_id = ? and status in ('NEEDS_RESPONSE', 'UNDER_REVIEW')) as open`,
    [accountId],
  );
  return row!.open;
}

/**
 * `ledger verify`: accounts whose held amount differs from what disputes' holds hold on them, holds
 * of decided disputes still holding, and clawbacks that differ from their postings — the first `limit`.
 */
export function holdMismatches(
  db: Db,
  limit: number,
): Promise<Array<Found<{ id: string; problem: string; actual: string; expected: string }>>> {
  return db.execute(
    `with by_wallet as (select wallet_id, sum(held) as held from dispute_hold where held > 0 group by 1),
     problems as (
       select coalesce(a.id, w.wallet_id) as id, 'held' as problem, coalesce(a.held, 0)::text as actual, coalesce(w.held, 0)::text as expected
         from (${HELD_ACCOUNTS_SQL}) a full join by_wallet w on w.wallet_id = a.id
        where coalesce(a.held, 0) <> coalesce(w.held, 0)
       union all
       select h.id, 'decided', h.held::text, '0' from dispute_hold h join dispute d on d.id = h.dispute_id
        where h.held > 0 and d.status in ('WON', 'LOST')
       union all
       select h.id, 'clawback', coalesce(c.moved, 0)::text, h.clawed_back::text
         from dispute_hold h
         left join lateral (${clawbackMovedSql('h.dispute_id', 'h.id')}) c on true
        where coalesce(c.moved, 0) <> h.clawed_back)
     select id, problem, actual, expected, ${PROBLEM_TOTAL_SQL} from problems order by id limit ?`,
    [limit],
  );
}

/**
 * What open and lost disputes of a purchase invoice took, per payment method: no longer the
 * integrator's to refund (a WON dispute gave it back).
 */
export async function disputedByMethod(db: Db, invoiceId: string): Promise<Map<string, number>> {
  const rows = await db.execute<Array<{ payment_method_id: string; amount: string }>>(
    `select payment_method_id, sum(amount) as amount from dispute
      where invoice_id = ? and status in ('NEEDS_RESPONSE', 'UNDER_REVIEW', 'LOST') group by 1`,
    [invoiceId],
  );
  return new Map(rows.map((r) => [r.payment_method_id, Number(r.amount)]));
}

/**
 * Fragment: whether the escrow whose id is `<escrowExpression>` holds value an open dispute traced
 * (a hold row `escrowed` on it): such an escrow is not committed while the dispute is open.
 */
export function escrowFrozenByDisputeSql(escrowExpression: string): string {
  return `exists (select 1 from dispute_hold h join dispute d on d.id = h.dispute_id
                   where h.state = 'escrowed' and h.reference_id = ${escrowExpression}
                     and d.status in ('NEEDS_RESPONSE', 'UNDER_REVIEW'))`;
}

/**
 * Fragment: what open and lost disputes of the purchase invoice `<invoiceExpression>` took, per
 * payment method, as a JSON object (`{"pm_…": amount}`, `{}` when none): an escrow cancel does
 * not refund that part to the card again.
 */
export function disputedByMethodJsonSql(invoiceExpression: string): string {
  return `(select coalesce(jsonb_object_agg(x.payment_method_id, x.amount), '{}'::jsonb)
             from (select payment_method_id, sum(amount) as amount from dispute
                    where invoice_id = ${invoiceExpression} and status in ('NEEDS_RESPONSE', 'UNDER_REVIEW', 'LOST')
                    group by 1) x)`;
}

/** Whether an open dispute traced value into this payout before it was sent (a `payout_waiting` hold): it waits for the dispute. */
export async function payoutWaitsForDispute(db: Db, payoutId: string): Promise<boolean> {
  const [row] = await db.execute<Array<{ waits: boolean }>>(
    `select exists (select 1 from dispute_hold h join dispute d on d.id = h.dispute_id
                     where h.state = 'payout_waiting' and h.reference_id = ? and d.status in ('NEEDS_RESPONSE', 'UNDER_REVIEW')) as waits`,
    [payoutId],
  );
  return row!.waits;
}

/**
 * Fragment: whether an escrow cancel of the escrow `<escrowExpression>` gives back value a
 * dispute traced into it (a hold row `escrowed` on it, of an open or a lost dispute): such a
 * cancel holds (or, lost, claws back) what returns to the buyer's wallet, in a transaction of
 * its own. Served by the partial index on `escrowed` holds: a cancel without one finds nothing.
 */
export function escrowReturnsDisputedValueSql(escrowExpression: string): string {
  return `exists (select 1 from dispute_hold h join dispute d on d.id = h.dispute_id
                   where h.state = 'escrowed' and h.reference_id = ${escrowExpression}
                     and d.status in ('NEEDS_RESPONSE', 'UNDER_REVIEW', 'LOST'))`;
}

/** A hold waiting in a movement (`escrowed`, `payout_waiting`), with its dispute's status. */
export type WaitingHold = DisputeHold & { disputeStatus: DisputeStatus };

/**
 * The holds waiting in one movement (an escrow, a payout: `reference_id`) with their disputes'
 * status, oldest first; hold rows and dispute rows locked (`for update`: a close of the dispute
 * waits, and is waited for).
 */
export async function lockWaitingHolds(db: Db, state: 'escrowed' | 'payout_waiting', referenceId: string): Promise<WaitingHold[]> {
  const rows = await db.execute<WaitingHold[]>(
    `select ${holdColumnsOf('h')}, d.status as "disputeStatus"
       from dispute_hold h join dispute d on d.id = h.dispute_id
      where h.state = ? and h.reference_id = ?
      order by d.id, h.created_at, h.id for update of h, d`,
    [state, referenceId],
  );
  return rows.map((r) => ({ ...holdFromRow(r), disputeStatus: r.disputeStatus }));
}

/**
 * A waiting hold whose value came back to a wallet: it is `in_wallet` there now (its wallet,
 * currency and amount where it landed) and holds `held` of it.
 */
export async function landHold(
  db: Db,
  holdId: string,
  landed: { walletId: string; accountId: string; currency: string; amount: number; held: number },
): Promise<void> {
  await db.execute(
    `update dispute_hold set state = 'in_wallet', wallet_id = ?, account_id = ?, currency = ?, amount = ?, held = ? where id = ?`,
    [landed.walletId, landed.accountId, landed.currency, landed.amount, landed.held, holdId],
  );
}

/** `ledger verify`: Stripe's disputes after `afterId` in id order, at most `limit` (the page's last id, null when none are left). */
export async function stripeDisputesPage(
  db: Db,
  afterId: string,
  limit: number,
): Promise<{ disputes: DisputeRecord[]; last: string | null }> {
  const rows = await db.execute<DisputeRecord[]>(
    `select ${COLUMNS} from dispute where provider = 'stripe' and id > ? order by id limit ?`,
    [afterId, limit],
  );
  return { disputes: rows.map(fromRow), last: rows.length ? rows[rows.length - 1]!.id : null };
}

/**
 * Fragment for an export: the integrator's disputes matching the filter (and created in [from,
 * to), either end open when null), oldest first (ties by id), as rows (`dispute_id`,
 * `created_at`, `closed_at`, `account_id`, `invoice_id`, `payment_method_id`, `status`,
 * `reason`, `funds`, `currency`, `amount`, `reported_amount`, `fee`, `provider`, `flags`).
 */
export function disputeExportSql(
  integratorId: string,
  f: DisputeFilter & { from: string | null; to: string | null },
): { sql: string; params: unknown[] } {
  return {
    sql: `select id as dispute_id, created_at, closed_at, account_id, invoice_id, payment_method_id, status, reason, funds, currency,
                 amount::text as amount, reported_amount::text as reported_amount, fee::text as fee, provider, flags
            from dispute
           where integrator_id = ? and (?::varchar is null or status = ?::varchar) and (?::varchar is null or account_id = ?::varchar)
             and (?::varchar is null or invoice_id = ?::varchar)
             and (?::jsonb is null or flags @> ?::jsonb)
             and (?::timestamptz is null or created_at >= ?::timestamptz) and (?::timestamptz is null or created_at < ?::timestamptz)
           order by created_at, id`,
    params: [
      integratorId,
      f.status ?? null,
      f.status ?? null,
      f.accountId ?? null,
      f.accountId ?? null,
      f.invoiceId ?? null,
      f.invoiceId ?? null,
      f.flag ? JSON.stringify([f.flag]) : null,
      f.flag ? JSON.stringify([f.flag]) : null,
      f.from,
      f.from,
      f.to,
      f.to,
    ],
  };
}
