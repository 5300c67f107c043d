import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/** A way an account pays or is paid: a wallet per currency, a POBO link, or a card. */
export const PaymentMethod = defineEntity({
  name: 'PaymentMethod',
  tableName: 'payment_method',
  indexes: [
    { name: 'payment_method_account_idx', properties: ['account'] },
    // One wallet per currency and kind per account.
    {
      name: 'payment_method_wallet_unique',
      expression: `create unique index payment_method_wallet_unique on payment_method (account_id, processing_currency, coalesce(wallet_kind, '')) where provider = 'wallet'`,
    },
    // The sandbox cards whose charges are disputed (the sandbox processor's clock looks them up every few seconds).
    {
      name: 'payment_method_disputing_idx',
      expression: `create index payment_method_disputing_idx on payment_method (id) where provider = 'card' and details ->> 'sandbox_outcome' = 'disputed'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    account: () => p.manyToOne(Account),
    integratorId: p.string().length(36),
    provider: p.enum(['wallet', 'pobo', 'card', 'paypal'] as const).columnType('varchar(16)'),
    methodClass: p.string().length(32),
    /** For token-currency wallets: `standard` (bought) or `convertible` (received). */
    walletKind: p
      .enum(['standard', 'convertible'] as const)
      .columnType('varchar(16)')
      .nullable(),
    processingCurrency: p.string().length(3),
    displayString: p.string().length(200),
    pmState: p.string().length(16).default('active'),
    pspReference: p.string().length(64).nullable(),
    pspHashCode: p.string().length(64).nullable(),
    details: p.json<Record<string, unknown>>().default('{}'),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IPaymentMethod = InferEntity<typeof PaymentMethod>;
