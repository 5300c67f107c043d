import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A publisher that runs its economy on Holdfast; every tenant-owned row points at one. */
export const Integrator = defineEntity({
  name: 'Integrator',
  tableName: 'integrator',
  properties: {
    id: p.string().primary().length(36),
    name: p.string().length(100).unique('integrator_name_key'),
    tokenCurrency: p.string().length(3).nullable(),
    tokensPerUsd: p.bigint('number').nullable(),
    /** Payouts up to this amount (minor units) are approved without the operator; 0: none is. */
    payoutAutoApproveMax: p.bigint('number').default(0),
    /** At most this many open payouts (FUNDS-IN-ESCROW, PROCESSING or FAILED) per account. */
    payoutOpenLimit: p.integer().default(3),
    /** The fee of a token conversion, in basis points of its fiat amount (rounded up). */
    conversionFeeBps: p.integer().default(0),
    /** What a dispute of a card charge costs the integrator (minor units of the disputed currency). */
    disputeFee: p.bigint('number').default(1500),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IIntegrator = InferEntity<typeof Integrator>;
