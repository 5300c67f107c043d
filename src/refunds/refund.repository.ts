/**
 * Refund invoices: rows of the invoice table (`invoice_type` `user_refund…`, with the purchase
 * they refund in `refunded_invoice_id`), which this module writes and reads for itself through
 * the invoice columns and fragments of invoices' repository; and the `ledger verify` checks over
 * them. Hand-written SQL: a refund is decided under the purchase's row lock, from what its
 * earlier refunds moved.
 */
import { mergedAccountSql } from '../accounts/account-block.repository.js';
import type { Db } from '../db/sql.js';
import {
  INVOICE_COLUMNS,
  invoiceExportSql,
  invoiceFromRow,
  purchaseChargesSql,
  purchaseLineCostsSql,
  REFUND_PART_REVERSED_SQL,
  refundPartSucceededSql,
} from '../invoices/invoice.repository.js';
import type { InvoiceRecord } from '../invoices/invoice.rules.js';
import { type Found, PROBLEM_TOTAL_SQL, postingMovedSql, reversalPostingsMovedSql } from '../ledger/ledger.repository.js';

/** A refund invoice: an invoice row with the purchase it refunds. */
export type RefundRecord = InvoiceRecord & { refundedInvoiceId: string };

/** The refunds of a purchase invoice, oldest first (in the caller's transaction: after its lock on the purchase, they are all there). */
export async function refundsOf(db: Db, invoiceId: string): Promise<RefundRecord[]> {
  const rows = await db.execute<Array<Record<string, unknown>>>(
    `select ${INVOICE_COLUMNS}, refunded_invoice_id from invoice where refunded_invoice_id = ? order by created_at, id`,
    [invoiceId],
  );
  return rows.map((r) => ({ ...invoiceFromRow(r), refundedInvoiceId: r.refunded_invoice_id as string }));
}

/** Writes a refund invoice (SUCCESS or FAILED) linked to the purchase it refunds. */
export async function insertRefundInvoice(db: Db, refund: RefundRecord): Promise<void> {
  await db.execute(
    `insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description,
                          metadata, currency, total_amount, failure_reason, payment_methods, line_items, refunded_invoice_id,
                          created_at, updated_at)
     values (?, ?, ?, null, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?)`,
    [
      refund.id,
      refund.integratorId,
      refund.accountId,
      refund.invoiceType,
      refund.state,
      refund.referenceType,
      refund.referenceId,
      refund.description,
      JSON.stringify(refund.metadata),
      refund.currency,
      refund.totalAmount,
      refund.failureReason,
      JSON.stringify(refund.paymentMethods),
      JSON.stringify(refund.lineItems),
      refund.refundedInvoiceId,
      refund.createdAt,
      refund.updatedAt,
    ],
  );
}

/**
 * Sets a refund's (or an escrow cancel's) parts as they now stand, its state and failure reason
 * (the caller holds the invoice's lock); its new `updated_at`.
 */
export async function setRefundParts(
  db: Db,
  invoiceId: string,
  state: string,
  failureReason: string | null,
  parts: unknown[],
): Promise<Date> {
  const [row] = await db.execute<Array<{ updated_at: Date }>>(
    'update invoice set state = ?, failure_reason = ?, payment_methods = ?::jsonb, updated_at = now() where id = ? returning updated_at',
    [state, failureReason, JSON.stringify(parts), invoiceId],
  );
  return new Date(row.updated_at);
}

/** The escrow invoice of an escrow (what its cancel refunded); undefined when absent. */
export async function escrowInvoiceIdOf(db: Db, escrowId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    `select id from invoice where escrow_id = ? and invoice_type like 'user_purchase_escrow%' order by created_at limit 1`,
    [escrowId],
  );
  return row?.id;
}

/** Whether an account was merged into another (its money may not land there any more). */
export async function accountWasMerged(db: Db, accountId: string): Promise<boolean> {
  const [row] = await db.execute<Array<{ merged: boolean }>>(`select ${mergedAccountSql('?')} as merged`, [accountId]);
  return row?.merged === true;
}

/**
 * Payment methods that had back more than they paid: per purchase invoice and method, the
 * refunds' parts that went through against the purchase's charges (`ledger verify`).
 */
export function overRefundedMethods(
  db: Db,
  limit: number,
): Promise<Array<Found<{ invoice_id: string; payment_method_id: string; paid: string; back: string }>>> {
  return db.execute(
    `with back as (select r.refunded_invoice_id as invoice_id, m ->> 'payment_method_id' as payment_method_id,
                          sum((m ->> 'amount')::bigint) as back
                     from invoice r, jsonb_array_elements(r.payment_methods) m
                    where r.refunded_invoice_id is not null and ${refundPartSucceededSql('r')}
                    group by 1, 2),
          paid as (${purchaseChargesSql('select invoice_id from back')})
     select b.invoice_id, b.payment_method_id, coalesce(p.paid, 0) as paid, b.back, ${PROBLEM_TOTAL_SQL}
       from back b left join paid p on p.invoice_id = b.invoice_id and p.payment_method_id = b.payment_method_id
      where b.back > coalesce(p.paid, 0)
      order by 1, 2 limit ?`,
    [limit],
  );
}

/**
 * Refund invoices whose `refund` posting moved other than the parts of it that were posted —
 * those that went through or are processing, and those reversed since (`ledger verify`).
 */
export function refundAmountMismatches(db: Db, limit: number): Promise<Array<Found<{ id: string; succeeded: string; moved: string }>>> {
  return db.execute(
    `with moved as (${postingMovedSql('invoice', 'refund')}),
          succeeded as (select r.id, coalesce(sum((m ->> 'amount')::bigint)
                                                filter (where ${refundPartSucceededSql('r')} or ${REFUND_PART_REVERSED_SQL}), 0) as succeeded
                          from invoice r, jsonb_array_elements(r.payment_methods) m
                         where r.refunded_invoice_id is not null group by 1)
     select s.id, s.succeeded, coalesce(m.moved, 0) as moved, ${PROBLEM_TOTAL_SQL}
       from succeeded s left join moved m on m.owner_id = s.id
      where s.succeeded <> coalesce(m.moved, 0)
      order by 1 limit ?`,
    [limit],
  );
}

/**
 * Reversed card parts (of refunds and escrow cancels) against the reversing postings
 * (`refund:<invoice id>:<payment method id>:reversed`): each reversed part has one moving its
 * amount back, and each such posting stands for a reversed part (`ledger verify`).
 */
export function refundReversalMismatches(
  db: Db,
  limit: number,
): Promise<Array<Found<{ invoice_id: string; payment_method_id: string; reversed: string; moved: string }>>> {
  return db.execute(
    `with parts as (select i.id as invoice_id, m ->> 'payment_method_id' as payment_method_id, sum((m ->> 'amount')::bigint) as reversed
                      from invoice i, jsonb_array_elements(i.payment_methods) m
                     where (i.refunded_invoice_id is not null or i.invoice_type like 'user_purchase_refund_escrow%')
                       and ${REFUND_PART_REVERSED_SQL}
                     group by 1, 2),
          postings as (${reversalPostingsMovedSql()})
     select coalesce(a.invoice_id, b.invoice_id) as invoice_id, coalesce(a.payment_method_id, b.payment_method_id) as payment_method_id,
            coalesce(a.reversed, 0) as reversed, coalesce(b.moved, 0) as moved, ${PROBLEM_TOTAL_SQL}
       from parts a full join postings b on b.invoice_id = a.invoice_id and b.payment_method_id = a.payment_method_id
      where coalesce(a.reversed, 0) <> coalesce(b.moved, 0)
      order by 1, 2 limit ?`,
    [limit],
  );
}

/**
 * Line items that had back more than they cost: per purchase invoice and line, the refunds'
 * parts (a refund line's `parts`) whose payment method's part went through (`ledger verify`).
 */
export function overRefundedLines(
  db: Db,
  limit: number,
): Promise<Array<Found<{ invoice_id: string; line_item_id: string; paid: string; back: string }>>> {
  return db.execute(
    `with back as (select r.refunded_invoice_id as invoice_id, l ->> 'line_item_id' as line_item_id, sum((p ->> 'amount')::bigint) as back
                     from invoice r, jsonb_array_elements(r.line_items) l, jsonb_array_elements(coalesce(l -> 'parts', '[]'::jsonb)) p
                    where r.refunded_invoice_id is not null
                      and exists (select 1 from jsonb_array_elements(r.payment_methods) m
                                   where m ->> 'payment_method_id' = p ->> 'payment_method_id' and ${refundPartSucceededSql('r')})
                    group by 1, 2),
          paid as (${purchaseLineCostsSql('select invoice_id from back')})
     select b.invoice_id, b.line_item_id, coalesce(p.paid, 0) as paid, b.back, ${PROBLEM_TOTAL_SQL}
       from back b left join paid p on p.invoice_id = b.invoice_id and p.line_item_id = b.line_item_id
      where b.back > coalesce(p.paid, 0)
      order by 1, 2 limit ?`,
    [limit],
  );
}

/**
 * Fragment for an export: the integrator's refund invoices (of one buyer, of one refunded
 * purchase, in some states, created in [from, to): each optional), oldest first, as invoices'
 * `invoiceExportSql` rows (`refunded_invoice_id` the purchase).
 */
export function refundExportSql(
  integratorId: string,
  f: { accountId?: string; invoiceId?: string; states?: string[]; from: string | null; to: string | null },
): { sql: string; params: unknown[] } {
  return invoiceExportSql(integratorId, {
    accountId: f.accountId,
    states: f.states,
    from: f.from,
    to: f.to,
    refundsOnly: true,
    refundedInvoiceId: f.invoiceId,
  });
}
