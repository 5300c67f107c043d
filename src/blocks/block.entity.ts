import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** A block on one capability of an account (spec §2.7); removed blocks stay as history. */
export const AccountBlock = defineEntity({
  name: 'AccountBlock',
  tableName: 'account_block',
  properties: {
    id: p.string().primary().length(36),
    accountId: p.string().length(36),
    integratorId: p.string().length(36),
    capability: p.enum(['login', 'payouts', 'transactions'] as const),
    issuer: p.enum(['publisher', 'svc'] as const),
    reason: p.string().length(32),
    note: p.string().length(500).nullable(),
    status: p.enum(['active', 'removed'] as const),
    createdBy: p.string().length(36).nullable(),
    removedBy: p.string().length(36).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
    removedAt: p.datetime().nullable(),
  },
});
export type IAccountBlock = InferEntity<typeof AccountBlock>;

/** A tag on an account (spec §2.6); merges tag both accounts in the `account-merge` namespace. */
export const AccountTag = defineEntity({
  name: 'AccountTag',
  tableName: 'account_tag',
  properties: {
    id: p.string().primary().length(36),
    accountId: p.string().length(36),
    integratorId: p.string().length(36),
    resourceId: p.string().length(36),
    resourceType: p.string().length(32),
    namespace: p.string().length(64),
    tag: p.string().length(64),
    status: p.string().length(16),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
});
export type IAccountTag = InferEntity<typeof AccountTag>;
