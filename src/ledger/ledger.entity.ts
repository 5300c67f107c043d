import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const LEDGER_ACCOUNT_KINDS = [
  'user_wallet', 'publisher_wallet', 'escrow_holding', 'card_clearing', 'pobo_clearing', 'token_issuance',
] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/**
 * A ledger account in one currency. `balance` is maintained by a database trigger from the
 * entries and may not go negative unless `allowNegative` (token issuance only).
 */
export const LedgerAccount = defineEntity({
  name: 'LedgerAccount',
  tableName: 'ledger_account',
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    kind: p.enum([...LEDGER_ACCOUNT_KINDS]),
    currency: p.string().length(3),
    /** `debit` for the clearing accounts (money paid in from outside), `credit` for the rest. */
    normalSide: p.enum(['debit', 'credit']),
    paymentMethodId: p.string().length(36).nullable(),
    allowNegative: p.boolean().default(false),
    balance: p.bigint('number').default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ILedgerAccount = InferEntity<typeof LedgerAccount>;

/** A balanced set of entries with a unique idempotency reference; append-only. */
export const LedgerPosting = defineEntity({
  name: 'LedgerPosting',
  tableName: 'ledger_posting',
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    reference: p.string().length(200).unique(),
    description: p.string().length(200),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ILedgerPosting = InferEntity<typeof LedgerPosting>;

/** One signed amount in minor units (+ credit, − debit) on one ledger account; append-only. */
export const LedgerEntry = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entry',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    postingId: p.string().length(36),
    ledgerAccountId: p.string().length(36),
    currency: p.string().length(3),
    amount: p.bigint('number'),
  },
});
export type ILedgerEntry = InferEntity<typeof LedgerEntry>;
