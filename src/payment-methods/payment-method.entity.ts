import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/** A way an account pays or is paid: a wallet per currency, a POBO link, or a card. */
export const PaymentMethod = defineEntity({
  name: 'PaymentMethod',
  tableName: 'payment_method',
  properties: {
    id: p.string().primary().length(36),
    account: () => p.manyToOne(Account),
    integratorId: p.string().length(36),
    provider: p.enum(['wallet', 'pobo', 'card'] as const),
    methodClass: p.string().length(32),
    /** For token-currency wallets: `standard` (bought) or `convertible` (received). */
    walletKind: p.enum(['standard', 'convertible'] as const).nullable(),
    processingCurrency: p.string().length(3),
    displayString: p.string().length(200),
    pmState: p.string().length(16).default('active'),
    pspReference: p.string().length(64).nullable(),
    pspHashCode: p.string().length(64).nullable(),
    details: p.json<Record<string, unknown>>().default('{}'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type IPaymentMethod = InferEntity<typeof PaymentMethod>;
