/**
 * Payment methods of an account: its wallets (one per currency it can hold, with a ledger
 * account each), POBO links and sandbox cards.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../auth/auth.service.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { walletIdOf } from '../ledger/ledger.rules.js';
import { cardBrand, checkCard } from './payment-method.rules.js';
import type { IAccount } from '../accounts/account.entity.js';
import type { IIntegrator } from '../auth/integrator.entity.js';
import { openWalletAccount } from '../ledger/ledger.service.js';
import { PaymentMethod } from './payment-method.entity.js';

const PLATFORM_LABEL: Record<string, string> = {
  steam: 'Steam', oculus: 'Oculus', apple: 'Apple', google: 'Google', microsoft: 'Microsoft', nintendo: 'Nintendo', sony: 'Sony',
};

function wallet(em: EntityManager, account: IAccount, currency: string, kind: 'standard' | 'convertible' | null, label: string) {
  const now = new Date();
  return em.create(PaymentMethod, {
    id: newId('pm'),
    account,
    integratorId: account.integrator.id,
    provider: 'wallet',
    methodClass: 'wallet',
    walletKind: kind,
    processingCurrency: currency,
    displayString: label,
    pmState: 'active',
    pspReference: null,
    pspHashCode: null,
    details: {},
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * A USD wallet, plus standard and convertible token wallets when the integrator has a token
 * currency, each with its ledger account. Flushes: the ledger accounts reference the methods.
 */
export async function createWallets(em: EntityManager, account: IAccount, integrator: IIntegrator): Promise<void> {
  const wallets = [wallet(em, account, 'USD', null, 'USD wallet')];
  if (integrator.tokenCurrency) {
    wallets.push(
      wallet(em, account, integrator.tokenCurrency, 'standard', `${integrator.tokenCurrency} wallet (standard)`),
      wallet(em, account, integrator.tokenCurrency, 'convertible', `${integrator.tokenCurrency} wallet (convertible)`),
    );
  }
  await em.flush();
  for (const w of wallets) await openWalletAccount(em, { id: w.id, integratorId: w.integratorId, currency: w.processingCurrency });
}

/** A 'pay on behalf of' method for one external platform user id, with the holder's name and address. */
export function addPoboMethod(
  em: EntityManager,
  account: IAccount,
  platform: string,
  userId: string,
  billing: Record<string, string>,
): void {
  const now = new Date();
  em.create(PaymentMethod, {
    id: newId('pm'),
    account,
    integratorId: account.integrator.id,
    provider: 'pobo',
    methodClass: 'pobo',
    walletKind: null,
    processingCurrency: 'USD',
    displayString: `${PLATFORM_LABEL[platform] ?? platform} account ${userId}`.slice(0, 200),
    pmState: 'active',
    pspReference: `${platform}:${userId}`.slice(0, 64),
    pspHashCode: null,
    details: { platform, user_id: userId, billing },
    createdAt: now,
    updatedAt: now,
  });
}

/** Replaces the billing name and address on the account's POBO methods. */
export async function updatePoboBilling(em: EntityManager, accountId: string, billing: Record<string, string>): Promise<void> {
  const methods = await em.find(PaymentMethod, { account: accountId, provider: 'pobo' });
  for (const method of methods) method.details = { ...method.details, billing };
}

interface MethodRow {
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
  details: Record<string, any>;
  created_at: Date;
  updated_at: Date;
  integrator: string;
  wallet_id: string | null;
  balance: string | null;
}

const METHOD_COLUMNS = `select pm.*, i.name as integrator, la.id as wallet_id, la.balance
  from payment_method pm join account a on a.id = pm.account_id join integrator i on i.id = a.integrator_id
  left join ledger_account la on la.payment_method_id = pm.id`;

function providerData(row: MethodRow): Record<string, unknown> {
  switch (row.provider) {
    case 'wallet':
      return { wallet_id: row.wallet_id ?? walletIdOf(row.id), wallet_balance: String(row.balance ?? 0), wallet_type: row.wallet_kind ?? 'fiat' };
    case 'card':
      return { brand: row.details.brand, last4: row.details.last4, exp_month: row.details.exp_month, exp_year: row.details.exp_year };
    case 'pobo':
      return { platform: row.details.platform, user_id: row.details.user_id };
  }
}

/** A payment method as spec §2.10 shows it. */
function methodView(row: MethodRow) {
  return {
    id: row.id,
    payment_method_id: row.id,
    account_id: row.account_id,
    method_class: row.method_class,
    display_string: row.display_string,
    provider: row.provider,
    psp_reference: row.psp_reference ?? '',
    psp_hash_code: row.psp_hash_code ?? '',
    processing_currency: row.processing_currency,
    pm_state: row.pm_state,
    integrator: row.integrator,
    created: new Date(row.created_at).toISOString(),
    updated: new Date(row.updated_at).toISOString(),
    ...(row.provider === 'wallet' ? { wallet_balance: String(row.balance ?? 0) } : {}),
    provider_data: providerData(row),
  };
}

/** What an account can spend in a currency: the balances of all its wallets in it (standard and convertible, for tokens). */
export async function spendableBalance(em: EntityManager, accountId: string, currency: string): Promise<number> {
  const [row] = await em.execute<Array<{ spendable: string }>>(
    `select coalesce(sum(la.balance), 0)::text as spendable
       from payment_method pm join ledger_account la on la.payment_method_id = pm.id
      where pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = ? and pm.pm_state = 'active'`, [accountId, currency]);
  return Number(row.spendable);
}

/** The account's payment methods, oldest first, wallets with their ledger balances. */
export async function listPaymentMethods(em: EntityManager, principal: Principal, accountId: string) {
  await requireAccount(em, principal, accountId);
  const rows = await em.execute<MethodRow[]>(`${METHOD_COLUMNS} where pm.account_id = ? order by pm.created_at, pm.id`, [accountId]);
  return rows.map(methodView);
}

export interface AddCardInput {
  type: 'card';
  card: { number: string; exp_month: number; exp_year: number; cvc: string };
  full_name?: string;
}

/** Adds a sandbox card; keeps brand, last four, expiry and a fingerprint — never the number or CVC. */
export async function addCard(em: EntityManager, principal: Principal, accountId: string, input: AddCardInput) {
  const account = await requireAccount(em, principal, accountId);
  const checked = checkCard(input.card);
  if (!checked.ok) throw AppError.invalid(Object.fromEntries(Object.entries(checked.fields).map(([f, c]) => [f, [c]])), 'The card is not acceptable.');
  const { number, exp_month, exp_year } = input.card;
  const brand = cardBrand(number);
  const last4 = number.slice(-4);
  const fingerprint = createHash('sha256').update(`${principal.integratorId}:${number}`).digest('hex').slice(0, 32);
  const now = new Date();
  const method = em.create(PaymentMethod, {
    id: newId('pm'),
    account,
    integratorId: principal.integratorId,
    provider: 'card',
    methodClass: 'card',
    walletKind: null,
    processingCurrency: 'USD',
    displayString: `${brand[0].toUpperCase()}${brand.slice(1)} •••• ${last4}`,
    pmState: 'active',
    pspReference: null,
    pspHashCode: fingerprint,
    details: { brand, last4, exp_month, exp_year, sandbox_outcome: checked.outcome, ...(input.full_name ? { holder_name: input.full_name } : {}) },
    createdAt: now,
    updatedAt: now,
  });
  await em.flush();
  const [row] = await em.execute<MethodRow[]>(`${METHOD_COLUMNS} where pm.id = ?`, [method.id]);
  return methodView(row);
}
