/**
 * The reads integrators reconcile with: escrows by the integrator's own reference, the escrow
 * of an invoice, an account's balances (wallets and what its escrows hold) and its statement
 * (every ledger entry on its wallets, with the escrow or invoice behind it and the balance
 * right after it). Here because they join escrows with wallets and the ledger, which this
 * module already reads.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { db as pooled } from '../db/sql.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { findInvoice } from '../invoices/invoice.service.js';
import { accountEntries, type StatementQuery } from '../ledger/ledger.service.js';
import { accountWallets } from '../payment-methods/payment-method.service.js';
import { escrowsByReference, escrowsOfIntegrator, heldForAccount, type LookupPage } from './escrow.repository.js';
import { escrowFromRow, escrowView } from './escrow.rules.js';
import { balancesView, displaySigned, phaseInvoiceId, postingSource } from './reconciliation.rules.js';
import { getEscrow } from './escrow.service.js';

/** The integrator's escrows with this `reference_id` (of one status, when named), a page of them and how many there are. */
export async function findEscrowsByReference(
  em: EntityManager,
  principal: Principal,
  referenceId: string,
  status: string | undefined,
  page: LookupPage,
) {
  const { total, rows } = await escrowsByReference(pooled(em), principal.integratorId, referenceId, status, page);
  const integrator = (await integratorProfile(em, principal.integratorId)).name;
  return { total, escrow_transactions: rows.map((r) => escrowView(escrowFromRow(r), integrator)) };
}

/**
 * The escrow an invoice belongs to — its escrow invoice, or the commit or cancel invoice of one
 * — as `getEscrow` shows it. 404 `INVOICE_GET_ERROR` for an invoice the caller cannot see;
 * 404 `ESCROW_GET_ERROR` for one of its invoices that belongs to no escrow (a standard invoice,
 * a token purchase).
 */
export async function escrowOfInvoice(em: EntityManager, principal: Principal, invoiceId: string) {
  const invoice = await findInvoice(em, principal, invoiceId);
  if (!invoice.escrowId) throw AppError.notFound('ESCROW_GET_ERROR', 'The invoice belongs to no escrow.');
  return getEscrow(em, principal, invoice.escrowId);
}

/** The account's balances per currency: spendable, convertible, held in escrow (`getAccountBalances`). */
export async function accountBalances(em: EntityManager, principal: Principal, accountId: string) {
  await requireAccount(em, principal, accountId);
  const [wallets, held] = await Promise.all([accountWallets(em, accountId), heldForAccount(pooled(em), principal.integratorId, accountId)]);
  return { account_id: accountId, balances: balancesView(wallets, held) };
}

/**
 * The account's statement (`getAccountStatement`): each ledger entry on its wallets, in the
 * order balances changed, with what moved it (escrow, invoice, merge), the amount (+ into the
 * wallet) and the wallet's balance right after it (null for entries from before balances were
 * recorded).
 */
export async function accountStatement(em: EntityManager, principal: Principal, accountId: string, query: StatementQuery) {
  await requireAccount(em, principal, accountId);
  const wallets = await accountWallets(em, accountId);
  const byWallet = new Map(wallets.map((w) => [w.walletId, w]));
  const { total, rows } = await accountEntries(
    em,
    wallets.map((w) => w.walletId),
    query,
  );
  const sources = rows.map((r) => postingSource(r.reference));
  const escrowIds = [...new Set(sources.filter((s) => s.source_type === 'escrow').map((s) => s.escrow_id))];
  const escrows = new Map((await escrowsOfIntegrator(pooled(em), principal.integratorId, escrowIds)).map((r) => [r.id, escrowFromRow(r)]));
  return {
    account_id: accountId,
    total,
    entries: rows.map((r, i) => {
      const source = sources[i];
      const escrow = source.source_type === 'escrow' ? escrows.get(source.escrow_id) : undefined;
      const amount = Number(r.amount);
      const balanceAfter = r.balance_after === null ? null : Number(r.balance_after);
      return {
        entry_id: r.id,
        posted: new Date(r.posted_at).toISOString(),
        wallet_id: r.ledger_account_id,
        wallet_type: byWallet.get(r.ledger_account_id)?.walletType ?? 'fiat',
        currency: r.currency,
        amount,
        display_amount: displaySigned(amount, r.currency),
        balance_after: balanceAfter,
        balance_after_display: balanceAfter === null ? '' : displaySigned(balanceAfter, r.currency),
        ...source,
        invoice_id: escrow ? phaseInvoiceId(escrow, source.phase) : source.invoice_id,
        description: r.description,
      };
    }),
  };
}
