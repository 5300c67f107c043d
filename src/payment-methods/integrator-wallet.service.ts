/**
 * The integrator's default wallets (the ledger's publisher wallets, one per currency it can
 * hold: USD and its token currency): their balances, and sandbox funding, which credits one from
 * outside so that refunds, paid from these wallets, can be tried on a fresh staging install.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { findIntegrator, integratorSettings, type IntegratorProfile } from '../integrators/integrator.service.js';
import { db as pooled } from '../db/sql.js';
import { fundPublisherWallet, publisherWallets } from '../ledger/ledger.service.js';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';

/** The currencies an integrator's default wallets hold: USD, then its token currency. */
function heldCurrencies(integrator: IntegratorProfile): string[] {
  return integrator.tokenCurrency ? ['USD', integrator.tokenCurrency] : ['USD'];
}

async function requireIntegrator(em: EntityManager, idOrName: string): Promise<IntegratorProfile> {
  const integrator = await findIntegrator(em, idOrName);
  if (!integrator) throw AppError.notFound('INTEGRATOR_NOT_FOUND', `no integrator "${idOrName}" (a name or id)`);
  return integrator;
}

export interface IntegratorWallets {
  integrator: {
    id: string;
    name: string;
    token_currency: string | null;
    payout_auto_approve_max: number;
    payout_open_limit: number;
    conversion_fee_bps: number;
    dispute_fee: number;
  };
  /** Each currency it can hold; `wallet_id` (its ledger account) is null until money first reaches it. */
  wallets: Array<{ currency: string; wallet_id: string | null; balance: number }>;
}

/** The integrator's default wallets and balances (minor units); an unknown integrator is a 404 error. */
export async function integratorWallets(em: EntityManager, idOrName: string): Promise<IntegratorWallets> {
  const integrator = await requireIntegrator(em, idOrName);
  const existing = await publisherWallets(em, integrator.id);
  const currencies = [...new Set([...heldCurrencies(integrator), ...existing.keys()])];
  return {
    integrator: {
      id: integrator.id,
      name: integrator.name,
      token_currency: integrator.tokenCurrency,
      ...(({ payoutAutoApproveMax, payoutOpenLimit, conversionFeeBps, disputeFee }) => ({
        payout_auto_approve_max: payoutAutoApproveMax,
        payout_open_limit: payoutOpenLimit,
        conversion_fee_bps: conversionFeeBps,
        dispute_fee: disputeFee,
      }))(await integratorSettings(pooled(em), integrator.id)),
    },
    wallets: currencies.map((currency) => ({
      currency,
      wallet_id: existing.get(currency)?.id ?? null,
      balance: existing.get(currency)?.balance ?? 0,
    })),
  };
}

export interface Funding {
  integrator_id: string;
  integrator: string;
  currency: string;
  amount: number;
  wallet_id: string;
  balance: number;
  reference: string;
}

/**
 * Staging only (the caller checks APP_ENV): credits the integrator's default wallet in
 * `currency` with `amount` minor units from its sandbox funding account, as one ledger posting
 * with its own reference (`fund:<ULID>`), so calling it twice funds twice. An unknown
 * integrator, a currency it cannot hold or an amount that is not a positive whole number is an
 * AppError naming it. With `audit`, the funding is recorded in the audit trail in the posting's
 * transaction.
 */
export async function fundIntegrator(
  em: EntityManager,
  integratorNameOrId: string,
  currency: string,
  amount: number,
  audit?: AuditContext,
): Promise<Funding> {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw AppError.invalid({ amount: ['INVALID_AMOUNT'] }, 'the amount must be a positive whole number of minor units');
  }
  const integrator = await requireIntegrator(em, integratorNameOrId);
  const held = heldCurrencies(integrator);
  if (!held.includes(currency)) {
    throw AppError.invalid(
      { currency: ['UNSUPPORTED_CURRENCY'] },
      `integrator "${integrator.name}" cannot hold ${currency} (it holds ${held.join(', ')})`,
    );
  }
  const funded = await fundPublisherWallet(
    em,
    { integratorId: integrator.id, currency, amount },
    audit &&
      ((db, posted) =>
        recordAudit(db, {
          integratorId: integrator.id,
          context: audit,
          action: 'integrator.fund',
          target: { type: 'integrator', id: integrator.id },
          after: { currency, amount, wallet_id: posted.walletId, reference: posted.reference },
        }).then(() => undefined)),
  );
  return {
    integrator_id: integrator.id,
    integrator: integrator.name,
    currency,
    amount,
    wallet_id: funded.walletId,
    balance: funded.balance,
    reference: funded.reference,
  };
}
