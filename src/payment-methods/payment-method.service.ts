/**
 * Payment methods of an account: its wallets (one per currency it can hold, with a ledger
 * account each), POBO links, cards (added through the card processor it is given) and PayPal payout
 * destinations (payout-only).
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { db as pooled, emDb } from '../db/sql.js';
import type { Principal } from '../integrators/principal.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { walletIdOf } from '../ledger/ledger.rules.js';
import { paypalSandboxOutcome } from '../rails/sandbox-payout.rules.js';
import { normalisePaypalEmail } from './payment-method.rules.js';
import type { CardInput, CardProcessor } from '../rails/card-processor.port.js';
import type { IAccount } from '../accounts/account.entity.js';
import type { IIntegrator } from '../integrators/integrator.entity.js';
import { openWalletAccount } from '../ledger/ledger.service.js';
import {
  activeMethod,
  addPaymentMethod,
  addPaypalMethodOnce,
  cardCustomerOf,
  findPoboMethods,
  listMethods,
  methodById,
  spendableBalance as walletsBalance,
  walletsOfAccounts,
  type PaymentMethodRecord,
} from './payment-method.repository.js';

const PLATFORM_LABEL: Record<string, string> = {
  steam: 'Steam',
  oculus: 'Oculus',
  apple: 'Apple',
  google: 'Google',
  microsoft: 'Microsoft',
  nintendo: 'Nintendo',
  sony: 'Sony',
};

function wallet(em: EntityManager, account: IAccount, currency: string, kind: 'standard' | 'convertible' | null, label: string) {
  return addPaymentMethod(em, account, {
    integratorId: account.integrator.id,
    provider: 'wallet',
    methodClass: 'wallet',
    walletKind: kind,
    processingCurrency: currency,
    displayString: label,
    pspReference: null,
    pspHashCode: null,
    details: {},
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
  addPaymentMethod(em, account, {
    integratorId: account.integrator.id,
    provider: 'pobo',
    methodClass: 'pobo',
    walletKind: null,
    processingCurrency: 'USD',
    displayString: `${PLATFORM_LABEL[platform] ?? platform} account ${userId}`.slice(0, 200),
    pspReference: `${platform}:${userId}`.slice(0, 64),
    pspHashCode: null,
    details: { platform, user_id: userId, billing },
  });
}

/** Replaces the billing name and address on the account's POBO methods. */
export async function updatePoboBilling(em: EntityManager, accountId: string, billing: Record<string, string>): Promise<void> {
  const methods = await findPoboMethods(em, accountId);
  for (const method of methods) method.details = { ...method.details, billing };
}

function providerData(row: PaymentMethodRecord): Record<string, unknown> {
  switch (row.provider) {
    case 'wallet':
      return {
        wallet_id: row.wallet_id ?? walletIdOf(row.id),
        wallet_balance: String(row.balance ?? 0),
        wallet_type: row.wallet_kind ?? 'fiat',
      };
    case 'card':
      return { brand: row.details.brand, last4: row.details.last4, exp_month: row.details.exp_month, exp_year: row.details.exp_year };
    case 'pobo':
      return { platform: row.details.platform, user_id: row.details.user_id };
    case 'paypal':
      return { email: row.details.email };
  }
}

/** A payment method as the API shows it (`listPaymentMethods`). */
function methodView(row: PaymentMethodRecord) {
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
  return walletsBalance(emDb(em), accountId, currency);
}

/** The account's payment methods, oldest first, wallets with their ledger balances. */
export async function listPaymentMethods(em: EntityManager, principal: Principal, accountId: string) {
  await requireAccount(em, principal, accountId);
  return (await listMethods(emDb(em), accountId)).map(methodView);
}

export interface AddCardInput {
  type: 'card';
  /** A sandbox card's number and expiry, or a Stripe PaymentMethod id (which of them the processor decides). */
  card: CardInput;
  full_name?: string;
}

/**
 * Adds a card through the card processor: a sandbox card from its test number, or a Stripe
 * PaymentMethod attached to the account's one Stripe Customer (made on its first card). Keeps
 * brand, last four, expiry and a fingerprint — never the number or CVC.
 */
export async function addCard(em: EntityManager, cards: CardProcessor, principal: Principal, accountId: string, input: AddCardInput) {
  const account = await requireAccount(em, principal, accountId);
  const customerId = cards.name === 'sandbox' ? null : await cardCustomerOf(emDb(em), account.id, cards.name);
  const added = await cards.addCard(input.card, { integratorId: principal.integratorId, accountId: account.id, customerId });
  if (!added.ok)
    throw AppError.invalid(
      Object.fromEntries(Object.entries(added.fields).map(([f, c]) => [f, [c]])),
      added.message ?? 'The card is not acceptable.',
    );
  const { brand, last4, exp_month, exp_year } = added.card;
  const method = addPaymentMethod(em, account, {
    integratorId: principal.integratorId,
    provider: 'card',
    methodClass: 'card',
    walletKind: null,
    processingCurrency: 'USD',
    displayString: `${brand[0].toUpperCase()}${brand.slice(1)} •••• ${last4}`,
    pspReference: added.card.pspReference,
    pspHashCode: added.card.fingerprint,
    details: {
      brand,
      last4,
      exp_month,
      exp_year,
      ...added.card.details,
      ...(input.full_name ? { holder_name: input.full_name } : {}),
    },
  });
  await em.flush();
  return methodView((await methodById(emDb(em), method.id))!);
}

export interface AddPaypalInput {
  type: 'paypal';
  paypal: { email: string };
}

/** The fingerprint of a PayPal address (`psp_hash_code`): the same per integrator, never the value. */
function fingerprintOf(integratorId: string, value: string): string {
  return createHash('sha256').update(`${integratorId}:${value}`).digest('hex').slice(0, 32);
}

/**
 * Adds a PayPal payout destination (payout-only: purchases refuse it), its address lower-cased.
 * The same address added again to the account answers the method it already has.
 */
export async function addPaypal(em: EntityManager, principal: Principal, accountId: string, input: AddPaypalInput) {
  const account = await requireAccount(em, principal, accountId);
  const email = normalisePaypalEmail(input.paypal.email);
  const { id } = await addPaypalMethodOnce(
    pooled(em),
    { id: account.id, integratorId: principal.integratorId },
    {
      pspHashCode: fingerprintOf(principal.integratorId, email),
      displayString: `PayPal ${email}`.slice(0, 200),
      details: { email, sandbox_outcome: paypalSandboxOutcome(email) },
    },
  );
  return methodView((await methodById(pooled(em), id))!);
}

/** Adds the payment method the body describes (`addPaymentMethod`): a card (through the card processor) or a PayPal payout destination. */
export function addMethod(
  em: EntityManager,
  cards: CardProcessor,
  principal: Principal,
  accountId: string,
  input: AddCardInput | AddPaypalInput,
) {
  return input.type === 'paypal' ? addPaypal(em, principal, accountId, input) : addCard(em, cards, principal, accountId, input);
}

/** An active payment method of the caller's integrator (whose it is, its provider, its currency), if any. */
export function findActiveMethod(em: EntityManager, principal: Principal, paymentMethodId: string) {
  return activeMethod(emDb(em), principal.integratorId, paymentMethodId);
}

/** The account's wallets (the caller checked the account): each one's ledger account (its wallet id), currency, type and balance. */
export async function accountWallets(em: EntityManager, accountId: string) {
  return (await walletsOfAccounts(emDb(em), [accountId], false)).map((w) => ({
    walletId: w.id,
    currency: w.processing_currency,
    walletType: w.wallet_kind ?? ('fiat' as const),
    balance: Number(w.balance),
    held: Number(w.held),
  }));
}
