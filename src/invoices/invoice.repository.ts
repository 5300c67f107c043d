/**
 * The invoice table. MikroORM reads one invoice and lists an account's (simple entity reads);
 * hand-written SQL where a statement matters for speed or safety: purchases of a turn written
 * together with their escrows, a pay's row lock and compare-and-set, the fragments the escrow
 * phase composes its one statement from (escrow-phase.flow.ts) and the refunds module reads its
 * refund invoices with, and `ledger verify`'s invoice check.
 */
import { mergedAccountSql } from '../accounts/account-block.repository.js';
import type { Db } from '../db/sql.js';
import {
  expectedPhasesSql,
  type Found,
  firstFoundSql,
  phasesDifferSql,
  postingPhasesSql,
  walletAccountsAmongSql,
} from '../ledger/ledger.repository.js';
import { isStripeCardSql, joinPaymentMethodSql } from '../payment-methods/payment-method.repository.js';
import type { InvoiceMechanism, StoredCharge, StoredLineItem } from './invoice.entity.js';
import type { InvoiceRecord } from './invoice.rules.js';
import type { StripeCardMove } from './stripe-card-check.rules.js';

/** A new OPEN purchase invoice (with the escrow it belongs to, if any). */
export interface NewPurchaseInvoice extends Omit<InvoiceRecord, 'state'> {
  state: 'OPEN';
  invoiceMechanism: InvoiceMechanism | null;
}

/** The invoice columns `invoiceFromRow` reads (named, never `*`: statements are prepared). */
export const INVOICE_COLUMNS =
  'id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description, metadata, currency, total_amount, failure_reason, payment_methods, line_items, created_at, updated_at, next_action_url';

/** An invoice row (its columns as `INVOICE_COLUMNS` names them) as a record. */
export function invoiceFromRow(r: Record<string, unknown>): InvoiceRecord {
  return {
    id: r.id as string,
    integratorId: r.integrator_id as string,
    accountId: r.account_id as string,
    escrowId: r.escrow_id as string | null,
    invoiceType: r.invoice_type as string,
    state: r.state as InvoiceRecord['state'],
    referenceType: r.reference_type as string | null,
    referenceId: r.reference_id as string | null,
    description: r.description as string | null,
    metadata: r.metadata as InvoiceRecord['metadata'],
    currency: r.currency as string,
    totalAmount: Number(r.total_amount),
    failureReason: r.failure_reason as string | null,
    paymentMethods: r.payment_methods as StoredCharge[],
    lineItems: r.line_items as StoredLineItem[],
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
    nextActionUrl: (r.next_action_url as string | null) ?? null,
  };
}

/** Fragment: the wallet ids the line items of the invoice aliased `alias` name (each recipient's destination and source), as rows of one column. */
export function lineItemWalletsSql(alias: string): string {
  return `select w from jsonb_array_elements(${alias}.line_items) l, jsonb_array_elements(coalesce(l -> 'recipients', '[]')) r,
                 lateral (values (r ->> 'destination_wallet_id'), (nullif(r ->> 'source_wallet_id', ''))) as x (w)
           where w is not null`;
}

/**
 * Fragment: the condition "the invoice aliased `alias` pays an account that was merged into
 * another" — a wallet its line items name belongs to one, or a token purchase issues to one.
 * Pay and commit refuse such a purchase: money never lands in a merged account.
 */
export function paysMergedAccountSql(alias: string): string {
  return `(exists (select 1 from (${walletAccountsAmongSql(`${alias}.integrator_id`, `${alias}.currency`, `array(${lineItemWalletsSql(alias)})`)}) w
                    ${joinPaymentMethodSql('pm', 'w.payment_method_id')}
                   where ${mergedAccountSql('pm.account_id')})
           or (${alias}.invoice_type = 'token_purchase' and ${mergedAccountSql(`(${alias}.metadata ->> 'destination_account_id')`)}))`;
}

/** Whether the invoice pays an account that was merged into another (see `paysMergedAccountSql`). */
export async function invoicePaysMergedAccount(db: Db, invoiceId: string): Promise<boolean> {
  const [row] = await db.execute<Array<{ merged: boolean }>>(
    `select ${paysMergedAccountSql('i')} as merged from invoice i where i.id = ?`,
    [invoiceId],
  );
  return row?.merged === true;
}

/** Unfinished (OPEN or PROCESSING) standard and token purchase invoices naming an account: as their buyer, and as the owner of a wallet they pay (or the account a token purchase issues to). */
export async function unfinishedInvoicesNaming(
  db: Db,
  integratorId: string,
  accountId: string,
  walletIds: string[],
): Promise<{ asBuyer: number; asPayee: number }> {
  const [row] = await db.execute<Array<{ as_buyer: string; as_payee: string }>>(
    `select count(*) filter (where i.account_id = ?) as as_buyer,
            count(*) filter (where i.metadata ->> 'destination_account_id' = ?
                                or exists (select 1 from (${lineItemWalletsSql('i')}) n where n.w = any (?::varchar[]))) as as_payee
       from invoice i
      where i.integrator_id = ? and i.escrow_id is null and i.state in ('OPEN', 'PROCESSING')`,
    [accountId, accountId, walletIds, integratorId],
  );
  return { asBuyer: Number(row.as_buyer), asPayee: Number(row.as_payee) };
}

/** Writes new OPEN invoices without an escrow (standard invoices, token purchases), in one statement. */
export async function insertOpenInvoices(db: Db, invoices: NewPurchaseInvoice[]): Promise<void> {
  await db.execute(
    `with v as (select ${NEW_PURCHASE_COLUMNS.map(([name]) => name).join(', ')}
                  from jsonb_to_recordset(?::jsonb) as v (${NEW_PURCHASE_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')}))
     ${insertOpenInvoicesSql('v')}`,
    [JSON.stringify(invoices.map(newPurchaseRow))],
  );
}

/** An invoice as it stands, without a lock; undefined when absent. */
export async function readInvoice(db: Db, invoiceId: string): Promise<InvoiceRecord | undefined> {
  const [row] = await db.execute<Array<Record<string, unknown>>>(`select ${INVOICE_COLUMNS} from invoice where id = ?`, [invoiceId]);
  return row && invoiceFromRow(row);
}

/** Locks an invoice in the caller's transaction; undefined when absent. */
export async function lockInvoice(db: Db, invoiceId: string): Promise<InvoiceRecord | undefined> {
  const [row] = await db.execute<Array<Record<string, unknown>>>(`select ${INVOICE_COLUMNS} from invoice where id = ? for update`, [
    invoiceId,
  ]);
  return row && invoiceFromRow(row);
}

/** Sets an invoice's state (and failure reason); its new `updated_at`. */
export async function setInvoiceState(db: Db, invoiceId: string, state: string, failureReason: string | null): Promise<Date> {
  const [updated] = await db.execute<Array<{ updated_at: Date }>>(
    // A decided invoice has no page left to send its buyer to.
    `update invoice set state = ?, failure_reason = ?, updated_at = now(),
            next_action_url = case when ?::varchar = 'PROCESSING' then next_action_url end where id = ? returning updated_at`,
    [state, failureReason, state, invoiceId],
  );
  return new Date(updated.updated_at);
}

/**
 * Sets an invoice PROCESSING while its buyer authenticates a card charge (3-D Secure), with the
 * provider's page to send them to; its new `updated_at`.
 */
export async function setInvoiceAwaitingAction(db: Db, invoiceId: string, nextActionUrl: string): Promise<Date> {
  const [updated] = await db.execute<Array<{ updated_at: Date }>>(
    `update invoice set state = 'PROCESSING', next_action_url = ?, updated_at = now() where id = ? returning updated_at`,
    [nextActionUrl, invoiceId],
  );
  return new Date(updated.updated_at);
}

/** Sets an OPEN invoice's payment methods once: nothing changes when they were set already (compare-and-set). */
export async function chooseInvoiceCharges(db: Db, invoiceId: string, charges: StoredCharge[]): Promise<void> {
  await db.execute(
    `update invoice set payment_methods = ?::jsonb, updated_at = now() where id = ? and state = 'OPEN' and payment_methods = '[]'::jsonb`,
    [JSON.stringify(charges), invoiceId],
  );
}

/**
 * Fragment: whether part `m` (a `payment_methods` element) of refund invoice `<alias>` moved
 * money — went through, or is `processing` at a card processor (posted, not yet answered); rows
 * without a part status: the refund's state says.
 */
export function refundPartSucceededSql(alias: string): string {
  return `coalesce(m ->> 'status', case when ${alias}.state = 'SUCCESS' then 'succeeded' else 'failed' end) in ('succeeded', 'processing')`;
}

/** Fragment: whether part `m` failed after its money was posted, and a reversing posting gave it back. */
export const REFUND_PART_REVERSED_SQL = `coalesce((m ->> 'reversed')::boolean, false)`;

/**
 * What became of an invoice without escrow, as far as its postings go: a purchase not (yet)
 * paid, one paid (a token purchase apart: it also issues tokens), a refund none of whose parts
 * went through, or one some part of which did.
 */
export type InvoiceOutcome = 'unpaid' | 'paid' | 'paid-token-purchase' | 'refund-not-moved' | 'refund-moved';

/**
 * `ledger verify`: the standard and token purchase invoices and refunds (no escrow) whose
 * postings (references `invoice:<id>:<phase>`) lack a phase `required` gives for their outcome
 * or hold one that neither it nor `optional` gives — only those, the first `limit` by id, each
 * with the count of all as `total`, its `outcome` and `phases` as stored.
 */
export function invoicePhaseMismatches(
  db: Db,
  required: Record<InvoiceOutcome, string[]>,
  optional: Partial<Record<InvoiceOutcome, string[]>>,
  limit: number,
): Promise<Array<Found<{ id: string; state: string; outcome: InvoiceOutcome; phases: string[] | null }>>> {
  const allowed = Object.fromEntries(Object.entries(required).map(([k, v]) => [k, [...v, ...(optional[k as InvoiceOutcome] ?? [])]]));
  return db.execute(
    firstFoundSql(
      `with p as (${postingPhasesSql('invoice')}), x as (${expectedPhasesSql()}), a as (${expectedPhasesSql()})
       select v.id, v.state, v.outcome, v.phases
         from x cross join a cross join (
           select i.id, i.state, p.phases,
                  case when starts_with(i.invoice_type, 'user_refund')
                         then case when i.refunded_invoice_id is not null
                                        and exists (select 1 from jsonb_array_elements(i.payment_methods) m
                                                     where ${refundPartSucceededSql('i')} or ${REFUND_PART_REVERSED_SQL})
                                   then 'refund-moved' else 'refund-not-moved' end
                       when i.state <> 'SUCCESS' then 'unpaid'
                       when i.invoice_type = 'token_purchase' then 'paid-token-purchase'
                       else 'paid' end as outcome
             from invoice i left join p on p.owner_id = i.id where i.escrow_id is null offset 0) v
        where ${phasesDifferSql(`array_remove(v.phases, '')`, 'x.by_state -> v.outcome', 'a.by_state -> v.outcome')}`,
      'id, state, outcome, phases',
    ),
    [JSON.stringify(required), JSON.stringify(allowed), limit],
  );
}

/**
 * Escrow cancel invoices with a Stripe card part not yet recorded (no part status: its refund was
 * not asked, or its answer not recorded), untouched for `olderThanMs` — at most `limit`, of the
 * last 30 days (a cancel command is kept that long).
 */
export function cancelsWithOpenCardRefunds(db: Db, olderThanMs: number, limit = 100): Promise<Array<{ id: string; escrow_id: string }>> {
  return db.execute(
    `select i.id, i.escrow_id from invoice i
      where i.invoice_type like 'user_purchase_refund_escrow%'
        and i.created_at > now() - interval '30 days' and i.updated_at < now() - (? * interval '1 millisecond')
        and exists (select 1 from jsonb_array_elements(i.payment_methods) m ${joinPaymentMethodSql('pm', "m ->> 'payment_method_id'")}
                     where ${isStripeCardSql('pm')} and m ->> 'status' is null)
      order by i.updated_at limit ?`,
    [olderThanMs, limit],
  );
}

/** Fragment: the invoice whose id is `<expr>` as `<alias>` (a left join), by one key lookup per row, as `joinEscrowSql`. */
export function joinInvoiceSql(alias: string, idExpression: string): string {
  return `left join lateral (select * from invoice where id = ${idExpression} offset 0) ${alias} on true`;
}

/**
 * Fragment: an UPDATE setting the state of the invoices a relation holds (columns `id`,
 * `state`, `failure_reason`, `at`) whose row `v` satisfies `condition`. Each invoice is found
 * by its key (`= any`), not by joining the whole table.
 */
export function setInvoiceStatesSql(relation: string, condition: string): string {
  return `update invoice i set state = v.state, failure_reason = v.failure_reason, updated_at = v.at
         from ${relation} v
        where i.id = any (array(select id from ${relation})) and i.id = v.id and (${condition})`;
}

/**
 * Fragment: an INSERT of the SUCCESS invoices a relation holds (columns `id`, `integrator_id`,
 * `account_id`, `escrow_id`, `invoice_type`, `reference_type`, `reference_id`, `description`,
 * `metadata`, `currency`, `total_amount`, `payment_methods`, `line_items`, `at`) whose row `v`
 * satisfies `condition`.
 */
export function insertSucceededInvoicesSql(relation: string, condition: string): string {
  return `insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description,
                            metadata, currency, total_amount, failure_reason, payment_methods, line_items, created_at, updated_at)
       select v.id, v.integrator_id, v.account_id, v.escrow_id, v.invoice_type, 'SUCCESS', v.reference_type, v.reference_id, v.description,
              v.metadata, v.currency, v.total_amount, null, v.payment_methods, v.line_items, v.at, v.at
         from ${relation} v
        where ${condition}`;
}

/** The columns every new invoice row carries, as the JSON relations of the invoice fragments name them. */
function invoiceRowColumns(i: Omit<InvoiceRecord, 'state'>): Record<string, unknown> {
  return {
    id: i.id,
    integrator_id: i.integratorId,
    account_id: i.accountId,
    escrow_id: i.escrowId,
    invoice_type: i.invoiceType,
    reference_type: i.referenceType,
    reference_id: i.referenceId,
    description: i.description,
    metadata: i.metadata,
    currency: i.currency,
    total_amount: i.totalAmount,
    payment_methods: i.paymentMethods,
    line_items: i.lineItems,
  };
}

/** A phase invoice as one JSON row of `insertSucceededInvoicesSql`'s relation. */
export function succeededInvoiceRow(i: InvoiceRecord): Record<string, unknown> {
  return { ...invoiceRowColumns(i), at: i.createdAt };
}

/** The columns of a new purchase invoice (and of its escrow), as `insertOpenInvoicesSql`'s relation holds them. */
export const NEW_PURCHASE_COLUMNS: Array<[string, string]> = [
  ['id', 'varchar'],
  ['integrator_id', 'varchar'],
  ['account_id', 'varchar'],
  ['escrow_id', 'varchar'],
  ['invoice_type', 'varchar'],
  ['reference_type', 'varchar'],
  ['reference_id', 'varchar'],
  ['description', 'varchar'],
  ['metadata', 'jsonb'],
  ['currency', 'varchar'],
  ['total_amount', 'bigint'],
  ['payment_methods', 'jsonb'],
  ['line_items', 'jsonb'],
  ['invoice_mechanism', 'varchar'],
  ['created_at', 'timestamptz'],
  ['updated_at', 'timestamptz'],
];

/** A new purchase invoice as one JSON row of `NEW_PURCHASE_COLUMNS`. */
export function newPurchaseRow(i: NewPurchaseInvoice): Record<string, unknown> {
  return { ...invoiceRowColumns(i), invoice_mechanism: i.invoiceMechanism, created_at: i.createdAt, updated_at: i.updatedAt };
}

/** Fragment: an INSERT of the OPEN invoices a relation holds (columns `NEW_PURCHASE_COLUMNS`). */
export function insertOpenInvoicesSql(relation: string): string {
  return `insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description,
                            metadata, currency, total_amount, failure_reason, payment_methods, line_items, invoice_mechanism, created_at, updated_at)
       select id, integrator_id, account_id, escrow_id, invoice_type, 'OPEN', reference_type, reference_id, description,
              metadata, currency, total_amount, null, payment_methods, line_items, invoice_mechanism, created_at, updated_at from ${relation}`;
}

/** How far an escrow got, read from its phase invoices: `committed`, `cancelled`, or `neither` (OPEN, ESCROWED, ESCROW-FAILED). */
export async function escrowOutcome(db: Db, escrowId: string): Promise<'committed' | 'cancelled' | 'neither'> {
  const [row] = await db.execute<Array<{ outcome: 'committed' | 'cancelled' | 'neither' }>>(
    `select case when bool_or(invoice_type like 'user_purchase_commit_escrow%') then 'committed'
                 when bool_or(invoice_type like 'user_purchase_refund_escrow%') then 'cancelled'
                 else 'neither' end as outcome
       from invoice where escrow_id = ? and state = 'SUCCESS'`,
    [escrowId],
  );
  return row?.outcome ?? 'neither';
}

/** The invoice types a line item is refunded from (the purchases; an escrow's, its escrow invoice). */
const PURCHASE_TYPES_SQL = `('user_purchase', 'user_purchase_virtual', 'user_purchase_escrow', 'user_purchase_escrow_virtual', 'token_purchase')`;

/** The purchase invoice of the integrator's that holds a line item (by the GIN index on purchases' lines). */
export async function purchaseOfLineItem(db: Db, integratorId: string, lineItemId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    `select id from invoice where invoice_type in ${PURCHASE_TYPES_SQL} and line_items @> ?::jsonb and integrator_id = ? limit 1`,
    [JSON.stringify([{ line_item_id: lineItemId }]), integratorId],
  );
  return row?.id;
}

/**
 * Fragment: what each payment method paid, per purchase invoice among those an SQL query yields
 * (rows `invoice_id`, `payment_method_id`, `paid`), for the refunds' `ledger verify` checks.
 */
export function purchaseChargesSql(invoiceIdsQuery: string): string {
  return `select i.id as invoice_id, m ->> 'payment_method_id' as payment_method_id, sum((m ->> 'amount')::bigint) as paid
            from invoice i, jsonb_array_elements(i.payment_methods) m
           where i.id in (${invoiceIdsQuery})
           group by 1, 2`;
}

/**
 * Fragment: what each line item cost, per purchase invoice among those an SQL query yields
 * (rows `invoice_id`, `line_item_id`, `paid`), for the refunds' `ledger verify` checks.
 */
export function purchaseLineCostsSql(invoiceIdsQuery: string): string {
  return `select i.id as invoice_id, l ->> 'line_item_id' as line_item_id, sum((l ->> 'amount')::bigint) as paid
            from invoice i, jsonb_array_elements(i.line_items) l
           where i.id in (${invoiceIdsQuery})
           group by 1, 2`;
}

/**
 * `ledger verify`: the invoices after `after` (by id, at most `limit`) that recorded a card move
 * on a Stripe card — paid purchases (state SUCCESS) and refunds (refund invoices, escrow
 * cancels) — with those moves; `last` is the page's last invoice id (the next page starts after it).
 */
export async function stripeCardMovesPage(db: Db, after: string, limit: number): Promise<{ moves: StripeCardMove[]; last: string | null }> {
  const rows = await db.execute<
    Array<{
      id: string;
      kind: 'charge' | 'refund';
      currency: string;
      paid_invoice_id: string | null;
      escrow_cancelled: boolean;
      parts: Array<{ payment_method_id: string; amount: number; reversed: boolean }>;
    }>
  >(
    `with page as (
       select i.id, i.currency, i.escrow_id, i.refunded_invoice_id, i.state, i.payment_methods,
              case when i.invoice_type in ${PURCHASE_TYPES_SQL} then 'charge' else 'refund' end as kind
         from invoice i
        where i.id > ?
          and ((i.invoice_type in ${PURCHASE_TYPES_SQL} and i.state = 'SUCCESS')
               or i.refunded_invoice_id is not null or i.invoice_type like 'user_purchase_refund_escrow%')
        order by i.id limit ?)
     select p.id, p.kind, p.currency,
            case when p.kind = 'charge' then null
                 else coalesce(p.refunded_invoice_id,
                               (select e.id from invoice e where e.escrow_id = p.escrow_id and e.invoice_type like 'user_purchase_escrow%' limit 1)) end
              as paid_invoice_id,
            p.kind = 'charge' and p.escrow_id is not null
              and exists (select 1 from invoice c where c.escrow_id = p.escrow_id and c.invoice_type like 'user_purchase_refund_escrow%')
              as escrow_cancelled,
            coalesce((select jsonb_agg(jsonb_build_object('payment_method_id', m ->> 'payment_method_id', 'amount', (m ->> 'amount')::bigint,
                                                      'reversed', p.kind = 'refund' and ${REFUND_PART_REVERSED_SQL}))
                        from jsonb_array_elements(p.payment_methods) m ${joinPaymentMethodSql('pm', "m ->> 'payment_method_id'")}
                       where ${isStripeCardSql('pm')}
                         and (p.kind = 'charge' or ${refundPartSucceededSql('p')} or ${REFUND_PART_REVERSED_SQL})), '[]'::jsonb) as parts
       from page p order by p.id`,
    [after, limit],
  );
  const moves = rows.flatMap((r) =>
    r.parts.map((m) => ({
      kind: r.kind,
      invoiceId: r.id,
      paymentMethodId: m.payment_method_id,
      amount: Number(m.amount),
      currency: r.currency,
      paidInvoiceId: r.paid_invoice_id,
      escrowCancelled: r.escrow_cancelled,
      reversed: m.reversed === true,
    })),
  );
  return { moves, last: rows.length ? rows[rows.length - 1]!.id : null };
}

/**
 * Fragment: the paid purchases (state SUCCESS) of account `<accountExpression>` that charged
 * payment method `<methodExpression>`: `id`, `integrator_id`, `account_id`, `currency`,
 * `updated_at` (when it was paid) — by the account's invoice index.
 */
export function purchasesChargedToSql(methodExpression: string, accountExpression: string): string {
  return `select i.id, i.integrator_id, i.account_id, i.currency, i.updated_at from invoice i
           where i.account_id = ${accountExpression} and i.state = 'SUCCESS' and i.invoice_type in ${PURCHASE_TYPES_SQL}
             and i.payment_methods @> jsonb_build_array(jsonb_build_object('payment_method_id', ${methodExpression}))`;
}

/** What the successful parts of a purchase's refunds gave back to one payment method (minor units). */
export async function givenBackToMethod(db: Db, invoiceId: string, paymentMethodId: string): Promise<number> {
  const [row] = await db.execute<Array<{ back: string | null }>>(
    `select sum((m ->> 'amount')::bigint) as back
       from invoice i, jsonb_array_elements(i.payment_methods) m
      where i.refunded_invoice_id = ? and m ->> 'payment_method_id' = ? and ${refundPartSucceededSql('i')}`,
    [invoiceId, paymentMethodId],
  );
  return Number(row?.back ?? 0);
}

/** What an export of invoices filters on (`from` inclusive, `to` exclusive, on the creation time). */
export interface InvoiceExportFilter {
  accountId?: string;
  states?: string[];
  invoiceTypes?: string[];
  from: string | null;
  to: string | null;
}

/**
 * Fragment for an export: the integrator's invoices (purchases, phase and refund invoices alike)
 * matching the filter, oldest first (ties by id), as rows (`invoice_id`, `created_at`,
 * `updated_at`, `account_id`, `invoice_type`, `state`, `currency`, `amount`, `escrow_id`,
 * `refunded_invoice_id`, `reference_type`, `reference_id`, `description`, `failure_reason`).
 * `refundsOnly`: the refund invoices (`user_refund…`), optionally of one purchase.
 */
export function invoiceExportSql(
  integratorId: string,
  f: InvoiceExportFilter & { refundsOnly?: boolean; refundedInvoiceId?: string },
): { sql: string; params: unknown[] } {
  const where = ['integrator_id = ?'];
  const params: unknown[] = [integratorId];
  const add = (condition: string, value: unknown) => {
    where.push(condition);
    params.push(value);
  };
  if (f.refundsOnly) where.push(`invoice_type like 'user_refund%'`);
  if (f.refundedInvoiceId !== undefined) add('refunded_invoice_id = ?', f.refundedInvoiceId);
  if (f.accountId !== undefined) add('account_id = ?', f.accountId);
  if (f.states !== undefined) add('state = any (?::varchar[])', f.states);
  if (f.invoiceTypes !== undefined) add('invoice_type = any (?::varchar[])', f.invoiceTypes);
  if (f.from !== null) add('created_at >= ?::timestamptz', f.from);
  if (f.to !== null) add('created_at < ?::timestamptz', f.to);
  return {
    sql: `select id as invoice_id, created_at, updated_at, account_id, invoice_type, state, currency, total_amount::text as amount,
                 escrow_id, refunded_invoice_id, reference_type, reference_id, description, failure_reason
            from invoice where ${where.join(' and ')} order by created_at, id`,
    params,
  };
}
