import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A remembered mutating request (the Idempotency-Key header), scoped to the calling client. */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  indexes: [{ name: 'idempotency_key_created_idx', properties: ['createdAt'] }],
  properties: {
    clientId: p.string().primary().length(36),
    key: p.string().primary().length(255),
    requestHash: p.string().length(64),
    state: p.enum(['running', 'done'] as const).columnType('varchar(16)'),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    /** The stored body holds ids only: a replay runs the route again on them (answers that carry a secret). */
    reissue: p.boolean().default(false),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IIdempotencyKey = InferEntity<typeof IdempotencyKey>;
