import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Integrator } from '../integrators/integrator.entity.js';

/**
 * An OAuth client (client credentials) of one integrator; the secret is stored only as a hash.
 * After a rotation the previous secret's hash authenticates until `previousSecretExpiresAt`; a
 * revoked client (`revokedAt`) gets no token and every token it holds or minted is refused.
 */
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
    previousSecretHash: p.string().length(64).nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IClient = InferEntity<typeof Client>;
