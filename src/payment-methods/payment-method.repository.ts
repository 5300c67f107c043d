/**
 * The payment_method table. MikroORM for creating and changing methods (registration adds
 * them in its unit of work); hand-written SQL for the list, which takes each wallet's ledger
 * balance and the integrator's name into one statement through those modules' fragments.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Db } from '../db/sql.js';
import { newId } from '../ids.js';
import type { IAccount } from '../accounts/account.entity.js';
import { joinIntegratorSql } from '../integrators/integrator.repository.js';
import { joinWalletAccountSql, walletMethodIdSql } from '../ledger/ledger.repository.js';
import { transactionBlockedSql } from '../accounts/account-block.repository.js';
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
  provider: 'wallet' | 'pobo' | 'card' | 'paypal';
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

/**
 * The account's PayPal method with this fingerprint, added (from `method`, with `details`) when
 * it has none: the id, and whether it was added now. One transaction, serialised per account
 * (an advisory lock), so two adds of one address at once make one method.
 */
export function addPaypalMethodOnce(
  db: Db,
  account: { id: string; integratorId: string },
  method: { pspHashCode: string; displayString: string; details: Record<string, unknown> },
): Promise<{ id: string; added: boolean }> {
  return db.transaction(async (tx) => {
    await tx.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`payment_method:paypal:${account.id}`]);
    const [existing] = await tx.execute<Array<{ id: string }>>(
      `select id from payment_method where account_id = ? and provider = 'paypal' and psp_hash_code = ? order by created_at, id limit 1`,
      [account.id, method.pspHashCode],
    );
    if (existing) return { id: existing.id, added: false };
    const id = newId('pm');
    await tx.execute(
      `insert into payment_method (id, account_id, integrator_id, provider, method_class, wallet_kind, processing_currency, display_string,
                                   pm_state, psp_reference, psp_hash_code, details, created_at, updated_at)
       values (?, ?, ?, 'paypal', 'paypal', null, 'USD', ?, 'active', null, ?, ?::jsonb, now(), now())`,
      [id, account.id, account.integratorId, method.displayString, method.pspHashCode, JSON.stringify(method.details)],
    );
    return { id, added: true };
  });
}

/**
 * The provider customer an account's cards of a processor belong to (Stripe: `cus_…`), kept in
 * each such card's details (`customer_id`); null before its first card.
 */
export async function cardCustomerOf(db: Db, accountId: string, processor: string): Promise<string | null> {
  const [row] = await db.execute<Array<{ customer_id: string }>>(
    `select details ->> 'customer_id' as customer_id from payment_method
      where account_id = ? and provider = 'card' and details ->> 'processor' = ? and details ->> 'customer_id' is not null
      order by created_at limit 1`,
    [accountId, processor],
  );
  return row?.customer_id ?? null;
}

/** A payout destination: an active PayPal method of the account, its address and what its sandbox payouts do. */
export interface PayoutDestination {
  id: string;
  email: string;
  sandboxOutcome: 'succeeds' | 'payout_fails' | 'payout_unclaimed';
}

/** The account's active PayPal method with this id; undefined when it is another account's, or not PayPal. */
export async function payoutDestination(db: Db, accountId: string, paymentMethodId: string): Promise<PayoutDestination | undefined> {
  const [row] = await db.execute<Array<{ id: string; details: { email: string; sandbox_outcome?: string } }>>(
    `select id, details from payment_method where id = ? and account_id = ? and provider = 'paypal' and pm_state = 'active'`,
    [paymentMethodId, accountId],
  );
  if (!row) return undefined;
  return {
    id: row.id,
    email: row.details.email,
    sandboxOutcome:
      row.details.sandbox_outcome === 'payout_fails' || row.details.sandbox_outcome === 'payout_unclaimed'
        ? row.details.sandbox_outcome
        : 'succeeds',
  };
}

/**
 * The account's own USD (fiat) wallet method with this id and its ledger account; undefined when
 * it is another account's, not a wallet, or a wallet of another currency.
 */
export async function fiatWalletOf(
  db: Db,
  accountId: string,
  paymentMethodId: string,
): Promise<{ id: string; ledgerAccountId: string } | undefined> {
  const [row] = await db.execute<Array<{ id: string; ledger_account_id: string }>>(
    `select pm.id, la.id as ledger_account_id
       from payment_method pm ${joinWalletAccountSql('la', 'pm.id', 'inner')}
      where pm.id = ? and pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = 'USD'
        and pm.wallet_kind is null and pm.pm_state = 'active'`,
    [paymentMethodId, accountId],
  );
  return row && { id: row.id, ledgerAccountId: row.ledger_account_id };
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

/** An active method of the integrator: whose it is, its provider and its currency. */
export async function activeMethod(
  db: Db,
  integratorId: string,
  id: string,
): Promise<{ accountId: string; provider: string; currency: string } | undefined> {
  const [row] = await db.execute<Array<{ account_id: string; provider: string; processing_currency: string }>>(
    `select account_id, provider, processing_currency from payment_method where id = ? and integrator_id = ? and pm_state = 'active'`,
    [id, integratorId],
  );
  return row && { accountId: row.account_id, provider: row.provider, currency: row.processing_currency };
}

/**
 * Fragment: the methods whose ids a query yields, as charging sees them (`id`, `provider`,
 * `details`, `wallet`: its ledger account, `owner_blocked`, `balance`: the wallet's).
 */
export function chargeMethodsSql(idsQuery: string): string {
  return `select pm.id, pm.provider, pm.details, la.id as wallet, ${transactionBlockedSql('pm.account_id')} as owner_blocked, la.balance
            from payment_method pm ${joinWalletAccountSql('la', 'pm.id')}
           where pm.id in (${idsQuery})`;
}

/** Fragment: whether method `<alias>` (a payment_method row) is a card added through Stripe (its details say so). */
export function isStripeCardSql(alias: string): string {
  return `(${alias}.provider = 'card' and ${alias}.details ->> 'processor' = 'stripe')`;
}

/** Fragment: `left join payment_method <alias> on <alias>.id = <expr>` (a wallet ledger account's method). */
export function joinPaymentMethodSql(alias: string, idExpression: string): string {
  return `left join payment_method ${alias} on ${alias}.id = ${idExpression}`;
}

/** The ledger account of the account's wallet in a currency of a kind (`standard`, `convertible`), if any. */
export async function walletAccountOf(
  db: Db,
  accountId: string,
  currency: string,
  kind: 'standard' | 'convertible',
): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    `select la.id from payment_method pm ${joinWalletAccountSql('la', 'pm.id', 'inner')}
      where pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = ? and pm.wallet_kind = ?`,
    [accountId, currency, kind],
  );
  return row?.id;
}

/** The ledger account of the convertible wallet (same account, same currency) beside a wallet's ledger account, if any. */
export async function convertibleWalletBeside(db: Db, walletAccountId: string): Promise<string | undefined> {
  const [row] = await db.execute<Array<{ id: string }>>(
    `select conv.id from payment_method dpm
       join payment_method cpm on cpm.account_id = dpm.account_id and cpm.provider = 'wallet'
                              and cpm.processing_currency = dpm.processing_currency and cpm.wallet_kind = 'convertible'
       ${joinWalletAccountSql('conv', 'cpm.id')}
      where dpm.id = ${walletMethodIdSql('?')} and conv.id is not null`,
    [walletAccountId],
  );
  return row?.id;
}

/** The methods with these ids, as charging sees them. */
export function chargeMethods<T>(db: Db, ids: string[]): Promise<T[]> {
  return db.execute<T[]>(chargeMethodsSql('select unnest(?::varchar[])'), [ids]);
}

/** Fragment: the account's active methods among the ids an SQL array expression holds (`id`, `provider`, `processing_currency`). */
export function activeMethodsAmongSql(accountExpression: string, idsExpression: string): string {
  return `select id, provider, processing_currency from payment_method
           where account_id = ${accountExpression} and pm_state = 'active' and id = any (${idsExpression})`;
}

/** A wallet method of an account with its ledger account and balance. */
export interface WalletRow {
  account_id: string;
  processing_currency: string;
  wallet_kind: 'standard' | 'convertible' | null;
  /** Its ledger account. */
  id: string;
  balance: string;
}

/** The wallets of these accounts with their ledger balances, in ledger account order; their ledger rows locked when `lock`. */
export function walletsOfAccounts(db: Db, accountIds: string[], lock: boolean): Promise<WalletRow[]> {
  return db.execute<WalletRow[]>(
    `select pm.account_id, pm.processing_currency, pm.wallet_kind, la.id, la.balance
       from payment_method pm ${joinWalletAccountSql('la', 'pm.id', 'inner')}
      where pm.account_id = any (?::varchar[]) and pm.provider = 'wallet'
      order by la.id${lock ? ' for update of la' : ''}`,
    [accountIds],
  );
}

/** Fragment: the sandbox cards that are disputed after a charge (card 4000000000000259): `id`, `account_id`. */
export function disputingSandboxCardsSql(): string {
  return `select pm.id, pm.account_id from payment_method pm
           where pm.provider = 'card' and pm.details ->> 'sandbox_outcome' = 'disputed'`;
}
