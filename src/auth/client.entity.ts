import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Integrator } from './integrator.entity.js';

/** An OAuth client (client credentials) of one integrator; the secret is stored only as a hash. */
export const Client = defineEntity({
  name: 'Client',
  tableName: 'client',
  indexes: [{ name: 'client_integrator_idx', properties: ['integrator'] }],
  properties: {
    id: p.string().primary().length(36),
    integrator: () => p.manyToOne(Integrator),
    secretHash: p.string().length(64),
    scopes: p.array().columnType('text[]').defaultRaw(`'{}'`),
    isOperator: p.boolean().default(false),
    canUnblock: p.boolean().default(false),
    tosSigning: p.boolean().default(false),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IClient = InferEntity<typeof Client>;
