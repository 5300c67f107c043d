import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A revoked user session (`sid`, the refresh-token family): user password tokens carrying it are
 * refused by every web process. Remembered as long as such a token could live.
 */
export const RevokedSession = defineEntity({
  name: 'RevokedSession',
  tableName: 'revoked_session',
  indexes: [{ name: 'revoked_session_revoked_at_idx', properties: ['revokedAt'] }],
  properties: {
    sid: p.string().primary().length(36),
    accountId: p.string().length(36),
    revokedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IRevokedSession = InferEntity<typeof RevokedSession>;
