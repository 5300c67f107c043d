/**
 * The payment_method table. MikroORM for creating and changing methods (registration adds
 * them in its unit of work); hand-written SQL for the list, which takes each wallet's ledger
 * balance and the integrator's name into one statement through those modules' fragments.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import { newId } from '../ids.js';
import type { IAccount } from '../accounts/account.entity.js';
import { joinIntegratorSql } from '../auth/auth.repository.js';
import { joinWalletAccountSql } from '../ledger/ledger.repository.js';
import { PaymentMethod, type IPaymentMethod } from './payment-method.entity.js';

/** A new method's fields (its id and timestamps are made here). */
export type NewPaymentMethod = Pick<
  IPaymentMethod,
  | 'integratorId'
  | 'provider'
  | 'methodClass'
  | 'walletKind'
  | 'processingCurrency'
  | 'displayString'
  | 'pspReference'
  | 'pspHashCode'
  | 'details'
>;

/** Adds a method to the caller's unit of work (written at its next flush). */
export function addPaymentMethod(em: EntityManager, account: IAccount, method: NewPaymentMethod): IPaymentMethod {
  const now = new Date();
  return em.create(PaymentMethod, { id: newId('pm'), account, ...method, pmState: 'active', createdAt: now, updatedAt: now });
}

/** The account's POBO methods (managed: changes are written at the next flush). */
export function findPoboMethods(em: EntityManager, accountId: string): Promise<IPaymentMethod[]> {
  return em.find(PaymentMethod, { account: accountId, provider: 'pobo' });
}

/** A payment method as the list shows it: its row, its integrator's name and, for a wallet, its ledger account. */
export interface PaymentMethodRecord {
  id: string;
  account_id: string;
  provider: 'wallet' | 'pobo' | 'card';
  method_class: string;
  wallet_kind: 'standard' | 'convertible' | null;
  processing_currency: string;
  display_string: string;
  pm_state: string;
  psp_reference: string | null;
  psp_hash_code: string | null;
  details: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  integrator: string;
  wallet_id: string | null;
  balance: string | null;
}

const METHOD_COLUMNS = `select pm.id, pm.account_id, pm.provider, pm.method_class, pm.wallet_kind, pm.processing_currency, pm.display_string,
       pm.pm_state, pm.psp_reference, pm.psp_hash_code, pm.details, pm.created_at, pm.updated_at,
       i.name as integrator, la.id as wallet_id, la.balance
  from payment_method pm ${joinIntegratorSql('i', 'pm.integrator_id')}
  ${joinWalletAccountSql('la', 'pm.id')}`;

/** The account's methods, oldest first. */
export function listMethods(db: Db, accountId: string): Promise<PaymentMethodRecord[]> {
  return db.execute<PaymentMethodRecord[]>(`${METHOD_COLUMNS} where pm.account_id = ? order by pm.created_at, pm.id`, [accountId]);
}

/** One method. */
export async function methodById(db: Db, id: string): Promise<PaymentMethodRecord | undefined> {
  const [row] = await db.execute<PaymentMethodRecord[]>(`${METHOD_COLUMNS} where pm.id = ?`, [id]);
  return row;
}

/** What an account can spend in a currency: the balances of its active wallets in it. */
export async function spendableBalance(db: Db, accountId: string, currency: string): Promise<number> {
  const [row] = await db.execute<Array<{ spendable: string }>>(
    `select coalesce(sum(la.balance), 0)::text as spendable
       from payment_method pm ${joinWalletAccountSql('la', 'pm.id')}
      where pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = ? and pm.pm_state = 'active'`,
    [accountId, currency],
  );
  return Number(row.spendable);
}

/** An active method of the integrator: whose it is and its currency. */
export async function activeMethod(db: Db, integratorId: string, id: string): Promise<{ accountId: string; currency: string } | undefined> {
  const [row] = await db.execute<Array<{ account_id: string; processing_currency: string }>>(
    `select account_id, processing_currency from payment_method where id = ? and integrator_id = ? and pm_state = 'active'`,
    [id, integratorId],
  );
  return row && { accountId: row.account_id, currency: row.processing_currency };
}
