import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const LEDGER_ACCOUNT_KINDS = [
  'user_wallet',
  'publisher_wallet',
  'escrow_holding',
  'card_clearing',
  'pobo_clearing',
  'token_issuance',
  'sandbox_funding',
  'payout_holding',
  'payout_clearing',
  'dispute_holding',
  'dispute_fees',
  'dispute_losses',
] as const;
export type LedgerAccountKind = (typeof LEDGER_ACCOUNT_KINDS)[number];

/**
 * A ledger account in one currency. `balance` is maintained by a database trigger from the
 * entries and may not go negative unless `allowNegative` (token issuance only).
 */
export const LedgerAccount = defineEntity({
  name: 'LedgerAccount',
  tableName: 'ledger_account',
  // (id, currency) is unique so that an entry's foreign key can name both: an entry's currency is its account's.
  uniques: [{ name: 'ledger_account_id_currency_key', properties: ['id', 'currency'] }],
  indexes: [
    {
      name: 'ledger_account_system_unique',
      expression: `create unique index ledger_account_system_unique on ledger_account (integrator_id, kind, currency) where kind <> 'user_wallet'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    kind: p.enum([...LEDGER_ACCOUNT_KINDS]).columnType('varchar(32)'),
    currency: p.string().length(3),
    /** `debit` for the clearing and sandbox funding accounts (money paid in from outside), `credit` for the rest. */
    normalSide: p.string().length(6).$type<'debit' | 'credit'>(),
    paymentMethodId: p.string().length(36).nullable().unique('ledger_account_payment_method_id_key'),
    allowNegative: p.boolean().default(false),
    balance: p.bigint('number').default(0),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
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
    reference: p.string().length(200).unique('ledger_posting_reference_key'),
    description: p.string().length(200),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type ILedgerPosting = InferEntity<typeof LedgerPosting>;

/** One signed amount in minor units (+ credit, − debit) on one ledger account; append-only. */
export const LedgerEntry = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entry',
  indexes: [
    { name: 'ledger_entry_posting_idx', properties: ['postingId'] },
    { name: 'ledger_entry_account_idx', properties: ['ledgerAccountId'] },
    // An account's entries in the order they were applied (its statement).
    { name: 'ledger_entry_account_applied_idx', properties: ['ledgerAccountId', 'appliedSeq', 'id'] },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    postingId: p.string().length(36),
    ledgerAccountId: p.string().length(36),
    currency: p.string().length(3),
    amount: p.bigint('number'),
    /**
     * The account's balance right after this entry was applied, set by the trigger that applies
     * balances (under the account row's lock); null for entries written before it was recorded.
     */
    balanceAfter: p.bigint('number').nullable(),
    /** When, among all entries, this one was applied (a sequence taken under the account row's lock); null as `balanceAfter`. */
    appliedSeq: p.bigint('number').nullable(),
  },
});
export type ILedgerEntry = InferEntity<typeof LedgerEntry>;
