import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * An HMAC key that signs access tokens (its id is the tokens' `kid`); kept in PostgreSQL so every
 * web process shares it. The newest signs; an older one still verifies until the tokens it
 * signed have expired (`holdfast keys rotate`).
 */
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
