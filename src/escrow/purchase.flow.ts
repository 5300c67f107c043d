/**
 * Writing new purchases: one statement spanning the invoice and escrow modules, composed from
 * their repositories' fragments (this file names no table).
 *
 * `insertPurchases(db, invoices)`
 *   takes: the new OPEN invoices, as one JSON parameter read with `jsonb_to_recordset(...) as
 *   v (column type, ...)` (the invoice module's `NEW_PURCHASE_COLUMNS`).
 *   returns: nothing; it rejects when a row cannot be written.
 *
 * Why one statement: an escrow invoice and its escrow point at each other, and escrow creation
 * is on the hot path; the purchases of a turn of the event loop are written together, and
 * PostgreSQL commits the statement on its own (or inside the caller's transaction, for an
 * authorization that also opens a session). An invoice without an escrow is written alone.
 */
import type { Db } from '../db/sql.js';
import { insertOpenInvoicesSql, NEW_PURCHASE_COLUMNS, newPurchaseRow, type NewPurchaseInvoice } from '../invoices/invoice.repository.js';
import { insertOpenEscrowsSql } from './escrow.repository.js';

const INSERT_SQL = `with v as (select ${NEW_PURCHASE_COLUMNS.map(([name]) => name).join(', ')}
                 from jsonb_to_recordset(?::jsonb) as v (${NEW_PURCHASE_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')})),
     invoices as (${insertOpenInvoicesSql('v')})
     ${insertOpenEscrowsSql('v')}`;

/** Writes OPEN purchase invoices, and the escrow of each escrow invoice, in one statement. */
export async function insertPurchases(db: Db, invoices: NewPurchaseInvoice[]): Promise<void> {
  await db.execute(INSERT_SQL, [JSON.stringify(invoices.map(newPurchaseRow))]);
}
