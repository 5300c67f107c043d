/**
 * Payment methods of an account: its wallets (one per currency it can hold) and POBO links.
 * Listing, cards and balances come with the ledger.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.js';
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
