import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { OUTCOMES, PROVIDERS } from './provider-event.rules.js';

/** One event a provider sent to its webhook endpoint, stored once per (provider, provider event id). */
export const ProviderEvent = defineEntity({
  name: 'ProviderEvent',
  tableName: 'provider_event',
  uniques: [{ name: 'provider_event_once', properties: ['provider', 'providerEventId'] }],
  indexes: [{ name: 'provider_event_received_idx', properties: ['receivedAt'] }],
  properties: {
    id: p.string().primary().length(36),
    provider: p.enum([...PROVIDERS]).columnType('varchar(16)'),
    providerEventId: p.string().length(255),
    type: p.string().length(255),
    payload: p.json<Record<string, unknown>>(),
    receivedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    commandId: p.string().length(36).nullable(),
    outcome: p
      .enum([...OUTCOMES])
      .columnType('varchar(16)')
      .nullable(),
    outcomeReason: p.string().length(500).nullable(),
    outcomeAt: p.datetime().nullable(),
  },
});
export type IProviderEvent = InferEntity<typeof ProviderEvent>;
