import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A remembered mutating request (the Idempotency-Key header), scoped to the calling client. */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_key',
  properties: {
    clientId: p.string().primary().length(36),
    key: p.string().primary().length(255),
    requestHash: p.string().length(64),
    state: p.enum(['running', 'done'] as const),
    responseStatus: p.integer().nullable(),
    responseBody: p.json<unknown>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IIdempotencyKey = InferEntity<typeof IdempotencyKey>;
