import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The HMAC key that signs access tokens; kept in PostgreSQL so every web process shares it. */
export const SigningKey = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_key',
  properties: {
    id: p.string().primary().length(36),
    secret: p.string().length(128),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type ISigningKey = InferEntity<typeof SigningKey>;
