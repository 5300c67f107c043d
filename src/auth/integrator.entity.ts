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
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IIntegrator = InferEntity<typeof Integrator>;
