import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A single-use sign-in nonce of a hosted user session (`/ui/appauth/<nonce>`), stored as its SHA-256 hash. */
export const UserSessionNonce = defineEntity({
  name: 'UserSessionNonce',
  tableName: 'user_session_nonce',
  indexes: [{ name: 'user_session_nonce_expiry_idx', properties: ['expiresAt'] }],
  properties: {
    nonceHash: p.string().primary().columnType('char(64)'),
    accountId: p.string().length(36),
    integratorId: p.string().length(36),
    clientId: p.string().length(36),
    /** The scopes of the token that opened the session; null (rows older than the column): the client's. */
    scopes: p.array().columnType('text[]').nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IUserSessionNonce = InferEntity<typeof UserSessionNonce>;

/** A refresh token of a user password token, stored as its SHA-256 hash; a family is revoked together on reuse. */
export const RefreshToken = defineEntity({
  name: 'RefreshToken',
  tableName: 'refresh_token',
  indexes: [{ name: 'refresh_token_family_idx', properties: ['familyId'] }],
  properties: {
    id: p.string().primary().length(36),
    tokenHash: p.string().columnType('char(64)').unique('refresh_token_token_hash_key'),
    familyId: p.string().length(36),
    accountId: p.string().length(36),
    integratorId: p.string().length(36),
    clientId: p.string().length(36),
    /** The scopes of the token that opened the family's session; null (rows older than the column): the client's. */
    scopes: p.array().columnType('text[]').nullable(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IRefreshToken = InferEntity<typeof RefreshToken>;
