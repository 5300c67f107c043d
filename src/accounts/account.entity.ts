import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Integrator } from '../integrators/integrator.entity.js';

/**
 * A user account of one integrator. Username and email are unique per integrator without
 * regard to case (enforced by functional unique indexes in the migration).
 */
export const Account = defineEntity({
  name: 'Account',
  tableName: 'account',
  indexes: [
    {
      name: 'account_username_unique',
      expression: 'create unique index account_username_unique on account (integrator_id, lower(username))',
    },
    {
      name: 'account_email_unique',
      expression:
        'create unique index account_email_unique on account (integrator_id, lower(email_address)) where email_address is not null',
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integrator: () => p.manyToOne(Integrator),
    username: p.string().length(64),
    emailId: p.string().length(36).nullable(),
    emailAddress: p.string().length(254).nullable(),
    emailVerified: p.boolean().default(false),
    fullName: p.string().length(200).nullable(),
    streetAddress1: p.string().length(200).nullable().fieldName('street_address_1'),
    streetAddress2: p.string().length(200).nullable().fieldName('street_address_2'),
    streetAddress3: p.string().length(200).nullable().fieldName('street_address_3'),
    city: p.string().length(100).nullable(),
    stateProvince: p.string().length(100).nullable(),
    countryIso: p.string().length(2).nullable(),
    zipPostalCode: p.string().length(20).nullable(),
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
export type IAccount = InferEntity<typeof Account>;

/** An external payment platform user id linked to an account (one per platform per account). */
export const ExternalPlatformLink = defineEntity({
  name: 'ExternalPlatformLink',
  tableName: 'account_external_platform',
  uniques: [{ name: 'account_external_platform_unique', properties: ['integratorId', 'platform', 'userId'] }],
  properties: {
    account: () => p.manyToOne(Account).primary(),
    platform: p.string().length(16).primary(),
    userId: p.string().length(128),
    integratorId: p.string().length(36),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IExternalPlatformLink = InferEntity<typeof ExternalPlatformLink>;
