import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** One published version of the terms of service; the highest version is current. */
export const TosVersion = defineEntity({
  name: 'TosVersion',
  tableName: 'tos_version',
  properties: {
    version: p.integer().primary().autoincrement(),
    content: p.text(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type ITosVersion = InferEntity<typeof TosVersion>;

/** An account's signature of one ToS version. */
export const TosSignature = defineEntity({
  name: 'TosSignature',
  tableName: 'tos_signature',
  properties: {
    accountId: p.string().primary().length(36),
    version: p.integer().primary(),
    signedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type ITosSignature = InferEntity<typeof TosSignature>;
