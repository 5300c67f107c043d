import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An event written in the same transaction as the change it reports; a relay delivers it. */
export const OutboxEvent = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox',
  indexes: [
    { name: 'outbox_pending_idx', expression: 'create index outbox_pending_idx on outbox (created_at) where relayed_at is null' },
    // Relayed events past the retention, oldest first (the history purge).
    { name: 'outbox_relayed_idx', expression: 'create index outbox_relayed_idx on outbox (relayed_at) where relayed_at is not null' },
    { name: 'outbox_integrator_created_idx', properties: ['integratorId', 'createdAt', 'id'] },
    {
      name: 'outbox_integrator_account_idx',
      expression: `create index outbox_integrator_account_idx on outbox (integrator_id, (message ->> 'account_id'), created_at, id)`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    eventName: p.string().length(64),
    message: p.json<Record<string, unknown>>(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    relayedAt: p.datetime().nullable(),
    /** The W3C traceparent of the work that wrote it (tracing on): its deliveries join that trace. */
    traceparent: p.string().length(55).nullable(),
  },
});
export type IOutboxEvent = InferEntity<typeof OutboxEvent>;
