import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ACTOR_KINDS } from './audit.rules.js';

/**
 * One operator action (docs/security.md#audit-trail): written in the transaction of the change
 * it records, never updated but by its sealing (`seq`, `prevHash`, `hash`, `sealedAt`, once),
 * never deleted — triggers refuse anything else.
 */
export const AuditRecord = defineEntity({
  name: 'AuditRecord',
  tableName: 'audit_record',
  uniques: [{ name: 'audit_record_seq_once', properties: ['integratorId', 'seq'] }],
  indexes: [
    // An integrator's records by time (GET /v2/audit, newest first; `from`/`to`).
    { name: 'audit_record_integrator_at_idx', properties: ['integratorId', 'at', 'id'] },
    { name: 'audit_record_target_idx', properties: ['integratorId', 'targetId'] },
    // What the sealing worker has left to seal, in order.
    {
      name: 'audit_record_unsealed_idx',
      expression: 'create index audit_record_unsealed_idx on audit_record (integrator_id, at, id) where seq is null',
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    at: p.datetime().defaultRaw('now()'),
    actorKind: p.enum([...ACTOR_KINDS]).columnType('varchar(16)'),
    actorId: p.string().length(255),
    actorName: p.string().length(255),
    action: p.string().length(64),
    targetType: p.string().length(32),
    targetId: p.string().length(255),
    reason: p.string().length(1000).nullable(),
    before: p.json<Record<string, unknown>>().nullable(),
    after: p.json<Record<string, unknown>>().nullable(),
    requestId: p.string().length(128).nullable(),
    seq: p.bigint('number').nullable(),
    prevHash: p.string().length(64).nullable(),
    hash: p.string().length(64).nullable(),
    sealedAt: p.datetime().nullable(),
  },
});
export type IAuditRecord = InferEntity<typeof AuditRecord>;

/** Each integrator's audit chain head: the last sealed record's `seq` and `hash`; it only moves forward. */
export const AuditChain = defineEntity({
  name: 'AuditChain',
  tableName: 'audit_chain',
  properties: {
    integratorId: p.string().primary().length(36),
    seq: p.bigint('number').default(0),
    hash: p.string().length(64).nullable(),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IAuditChain = InferEntity<typeof AuditChain>;
