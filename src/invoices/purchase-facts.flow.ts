/**
 * What a purchase names, read in one statement across the modules that own it — the buyer and
 * its blocks (accounts), its payment methods (payment-methods), the wallets it pays (ledger) —
 * from the fragments their repositories export: one round trip for a whole turn's purchases.
 */
import { buyerJsonSql } from '../accounts/account.repository.js';
import { transactionBlockedSql } from '../accounts/account-block.repository.js';
import type { Db } from '../db/sql.js';
import { walletAccountsAmongSql } from '../ledger/ledger.repository.js';
import { activeMethodsAmongSql, joinPaymentMethodSql } from '../payment-methods/payment-method.repository.js';

/** What a purchase names, as found: its buyer, its payment methods among those named, the named wallets. */
export interface PurchaseFacts {
  /** Null when the caller has no such account. */
  buyer: { blocked: boolean } | null;
  methods: Array<{ id: string; provider: string; processing_currency: string }>;
  wallets: Array<{ id: string; kind: string; account_id: string | null; owner_blocked: boolean }>;
}

/** What to look up for a purchase. */
export interface FactsQuery {
  account_id: string;
  integrator_id: string;
  currency: string;
  methods: string[];
  wallets: string[];
}

const FACTS_SQL = `select q.n,
            ${buyerJsonSql('q.account_id', 'q.integrator_id')} as buyer,
            coalesce((select json_agg(json_build_object('id', m.id, 'provider', m.provider, 'processing_currency', m.processing_currency))
                        from (${activeMethodsAmongSql('q.account_id', 'array(select jsonb_array_elements_text(q.methods))')}) m), '[]') as methods,
            coalesce((select json_agg(json_build_object('id', w.id, 'kind', w.kind, 'account_id', pm.account_id, 'owner_blocked', ${transactionBlockedSql('pm.account_id')}))
                        from (${walletAccountsAmongSql('q.integrator_id', 'q.currency', 'array(select jsonb_array_elements_text(q.wallets))')}) w
                        ${joinPaymentMethodSql('pm', 'w.payment_method_id')}), '[]') as wallets
       from jsonb_to_recordset(?::jsonb) as q (n int, account_id text, integrator_id text, currency text, methods jsonb, wallets jsonb)`;

/**
 * Everything purchases name, in one statement (the buyer and whether a block stops it buying;
 * its payment methods among those named; the named wallets of the purchase's currency, with
 * their owners and whether a block stops them selling). Answers in query order.
 */
export async function purchaseFactsOf(db: Db, queries: FactsQuery[]): Promise<PurchaseFacts[]> {
  const rows = await db.execute<Array<PurchaseFacts & { n: number }>>(FACTS_SQL, [JSON.stringify(queries.map((q, n) => ({ n, ...q })))]);
  const byN = new Map(rows.map((r) => [r.n, r]));
  return queries.map((_, n) => byN.get(n)!);
}
