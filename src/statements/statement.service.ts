/**
 * An account's balances (wallets, and what its escrows hold) and its statement (every ledger
 * entry on its wallets, with the escrow or invoice behind it and the balance right after it):
 * the reads integrators reconcile their books with.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../integrators/principal.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { escrowsAmong, heldInEscrow } from '../escrow/escrow.service.js';
import { accountEntries, type StatementQuery } from '../ledger/ledger.service.js';
import { accountWallets } from '../payment-methods/payment-method.service.js';
import { balancesView, displaySigned, phaseInvoiceId, postingSource } from './statement.rules.js';

/** The account's balances per currency: spendable, convertible, held in escrow (`getAccountBalances`). */
export async function accountBalances(em: EntityManager, principal: Principal, accountId: string) {
  await requireAccount(em, principal, accountId);
  const [wallets, held] = await Promise.all([accountWallets(em, accountId), heldInEscrow(em, principal.integratorId, accountId)]);
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
  const escrows = new Map((await escrowsAmong(em, principal.integratorId, escrowIds)).map((e) => [e.id, e]));
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
