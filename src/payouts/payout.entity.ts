import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { PAYOUT_STATUSES } from './payout.rules.js';

/** A payout: money leaving an account's fiat wallet for a payout destination (docs/money.md). */
export const Payout = defineEntity({
  name: 'Payout',
  tableName: 'payout',
  indexes: [
    // An account's payouts, newest first (GET /v2/{account_id}/payouts).
    { name: 'payout_account_created_idx', properties: ['accountId', 'createdAt'] },
    // A provider webhook's payout, by the item it names.
    {
      name: 'payout_provider_item_idx',
      expression: 'create index payout_provider_item_idx on payout (provider_item_id) where provider_item_id is not null',
    },
    // The console's payouts queue: what an operator decides, per integrator, oldest first.
    {
      name: 'payout_awaiting_decision_idx',
      expression: `create index payout_awaiting_decision_idx on payout (integrator_id, created_at) where status in ('FUNDS-IN-ESCROW', 'FAILED')`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    accountId: p.string().length(36),
    status: p.enum([...PAYOUT_STATUSES]).columnType('varchar(20)'),
    amount: p.bigint('number'),
    currency: p.string().length(3),
    sourcePaymentMethodId: p.string().length(36),
    destinationPaymentMethodId: p.string().length(36),
    tokenExchangeId: p.string().length(36).nullable(),
    failureCode: p.string().length(64).nullable(),
    failureReason: p.string().length(200).nullable(),
    attempt: p.integer().default(0),
    attemptCommandId: p.string().length(40).nullable(),
    providerBatchId: p.string().length(64).nullable(),
    providerItemId: p.string().length(64).nullable(),
    providerStatus: p.string().length(20).nullable(),
    providerSnapshot: p.json<Record<string, unknown>>().nullable(),
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
export type IPayout = InferEntity<typeof Payout>;
