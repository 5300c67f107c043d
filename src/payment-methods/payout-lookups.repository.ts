/** The payment methods a payout moves money between: the account's fiat wallet and its payout destinations. */
import type { Db } from '../db/sql.js';
import { joinWalletAccountSql } from '../ledger/ledger.repository.js';

/** The account's own USD wallet payment method with its ledger account, if `paymentMethodId` is one. */
export async function fiatWalletOf(
  db: Db,
  accountId: string,
  paymentMethodId: string,
): Promise<{ id: string; ledgerAccountId: string } | undefined> {
  const [row] = await db.execute<Array<{ id: string; ledger_account_id: string }>>(
    `select pm.id, la.id as ledger_account_id from payment_method pm ${joinWalletAccountSql('la', 'pm.id', 'inner')}
      where pm.id = ? and pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = 'USD' and pm.wallet_kind is null`,
    [paymentMethodId, accountId],
  );
  return row && { id: row.id, ledgerAccountId: row.ledger_account_id };
}

/** The account's payout destination (a `paypal` method), if `paymentMethodId` is one. */
export async function payoutDestination(
  db: Db,
  accountId: string,
  paymentMethodId: string,
): Promise<{ id: string; email: string; sandboxOutcome: 'succeeds' | 'payout_fails' } | undefined> {
  const [row] = await db.execute<Array<{ id: string; details: { email?: string; sandbox_outcome?: string } }>>(
    `select id, details from payment_method where id = ? and account_id = ? and provider = 'paypal'`,
    [paymentMethodId, accountId],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.details.email ?? '',
    sandboxOutcome: row.details.sandbox_outcome === 'payout_fails' ? 'payout_fails' : 'succeeds',
  };
}
