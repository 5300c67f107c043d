import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A provider object Holdfast relies on (a Stripe PaymentIntent or Refund, a PayPal payout item,
 * an identity session), as the provider last showed it, by its provider id, with the Holdfast
 * record it stands behind (`holdfast_ref`, such as `payout:<id>:<attempt>`).
 */
export const ProviderObject = defineEntity({
  name: 'ProviderObject',
  tableName: 'provider_object',
  indexes: [
    { name: 'provider_object_ref_idx', properties: ['holdfastRef'] },
    // Card holds not yet captured or released, for the sweep that finishes them.
    {
      name: 'provider_object_hold_idx',
      expression: `create index provider_object_hold_idx on provider_object (updated_at) where object_type = 'payment_intent' and (snapshot ->> 'status') = 'requires_capture'`,
    },
    // A card charge's reference stands on one PaymentIntent.
    {
      name: 'provider_object_intent_ref_uq',
      expression: `create unique index provider_object_intent_ref_uq on provider_object (holdfast_ref) where object_type = 'payment_intent'`,
    },
    // A Stripe dispute names its charge: the PaymentIntent whose latest charge it is.
    {
      name: 'provider_object_charge_idx',
      expression: `create index provider_object_charge_idx on provider_object ((snapshot ->> 'latest_charge')) where object_type = 'payment_intent'`,
    },
  ],
  properties: {
    provider: p.enum(['stripe', 'paypal']).columnType('varchar(16)').primary(),
    objectId: p.string().length(255).primary(),
    objectType: p.string().length(64),
    integratorId: p.string().length(36).nullable(),
    holdfastRef: p.string().length(200),
    snapshot: p.json(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
export type IProviderObject = InferEntity<typeof ProviderObject>;
