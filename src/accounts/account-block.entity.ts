import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { CAPABILITIES, REASONS } from './account-block.rules.js';

/** A block on one capability of an account; removed blocks stay as history. */
export const AccountBlock = defineEntity({
  name: 'AccountBlock',
  tableName: 'account_block',
  indexes: [
    { name: 'account_block_account_idx', properties: ['accountId'] },
    // At most one active block per capability: blocking twice is a no-op.
    {
      name: 'account_block_one_active',
      expression: `create unique index account_block_one_active on account_block (account_id, capability) where status = 'active'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    accountId: p.string().length(36),
    integratorId: p.string().length(36),
    capability: p.enum([...CAPABILITIES]).columnType('varchar(16)'),
    issuer: p.enum(['publisher', 'svc'] as const).columnType('varchar(16)'),
    reason: p.enum([...REASONS]).columnType('varchar(32)'),
    note: p.string().length(500).nullable(),
    status: p.enum(['active', 'removed'] as const).columnType('varchar(16)'),
    createdBy: p.string().length(36).nullable(),
    removedBy: p.string().length(36).nullable(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    removedAt: p.datetime().nullable(),
  },
});
export type IAccountBlock = InferEntity<typeof AccountBlock>;

/** A tag on an account; merges tag both accounts in the `account-merge` namespace. */
export const AccountTag = defineEntity({
  name: 'AccountTag',
  tableName: 'account_tag',
  indexes: [{ name: 'account_tag_account_idx', properties: ['accountId'] }],
  properties: {
    id: p.string().primary().length(36),
    accountId: p.string().length(36),
    integratorId: p.string().length(36),
    resourceId: p.string().length(36),
    resourceType: p.string().length(32),
    namespace: p.string().length(64),
    tag: p.string().length(64),
    status: p.string().length(16),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IAccountTag = InferEntity<typeof AccountTag>;
