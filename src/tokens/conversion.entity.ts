import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { EXCHANGE_STATUSES } from './conversion.rules.js';

/** An exchange of convertible tokens for USD: its quote, its status and, once a payout took its money, that payout. */
export const TokenExchange = defineEntity({
  name: 'TokenExchange',
  tableName: 'token_exchange',
  indexes: [{ name: 'token_exchange_account_idx', properties: ['accountId'] }],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    accountId: p.string().length(36),
    status: p.enum([...EXCHANGE_STATUSES]).columnType('varchar(16)'),
    tokenAmount: p.bigint('number'),
    tokenCurrency: p.string().length(3),
    fiatAmount: p.bigint('number'),
    fiatCurrency: p.string().length(3),
    feeAmount: p.bigint('number'),
    expiresAt: p.datetime(),
    payoutId: p.string().length(36).nullable(),
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
export type ITokenExchange = InferEntity<typeof TokenExchange>;
