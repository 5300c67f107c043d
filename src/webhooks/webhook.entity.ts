import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** An integrator's webhook endpoint: where events are delivered, signed with its secret. */
export const WebhookEndpoint = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoint',
  indexes: [
    {
      name: 'webhook_endpoint_integrator_idx',
      expression: `create index webhook_endpoint_integrator_idx on webhook_endpoint (integrator_id) where status <> 'deleted'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    url: p.string().length(2048),
    events: p.array().columnType('text[]'),
    description: p.string().length(500).nullable(),
    secret: p.string().length(100),
    /** The secret before a rotation, still signing until `previousSecretExpiresAt`. */
    previousSecret: p.string().length(100).nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    status: p.enum(['enabled', 'disabled', 'deleted'] as const).columnType('varchar(16)'),
    disabledReason: p.string().length(200).nullable(),
    failingSince: p.datetime().nullable(),
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
export type IWebhookEndpoint = InferEntity<typeof WebhookEndpoint>;

/** One event for one endpoint: `pending` until acknowledged (`delivered`) or given up (`dead`); the row, not the job, is the truth. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  uniques: [{ name: 'webhook_delivery_event_id_endpoint_id_key', properties: ['eventId', 'endpointId'] }],
  indexes: [
    {
      name: 'webhook_delivery_pending_idx',
      expression: `create index webhook_delivery_pending_idx on webhook_delivery (next_attempt_at) where state = 'pending'`,
    },
    { name: 'webhook_delivery_endpoint_idx', properties: ['endpointId', 'createdAt'] },
    // An endpoint's failed deliveries (given up, or retrying), newest first (the console's webhooks page).
    {
      name: 'webhook_delivery_failed_idx',
      expression: `create index webhook_delivery_failed_idx on webhook_delivery (endpoint_id, created_at) where state = 'dead' or (state = 'pending' and attempts > 0)`,
    },
    // Finished deliveries past the retention, oldest first (the history purge).
    {
      name: 'webhook_delivery_finished_idx',
      expression: `create index webhook_delivery_finished_idx on webhook_delivery (finished_at) where state <> 'pending'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    eventId: p.string().length(36),
    endpointId: p.string().length(36),
    integratorId: p.string().length(36),
    state: p.enum(['pending', 'delivered', 'dead'] as const).columnType('varchar(16)'),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw('now()'),
    jobId: p.string().length(120),
    lastStatus: p.integer().nullable(),
    lastError: p.string().length(500).nullable(),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    finishedAt: p.datetime().nullable(),
  },
});
export type IWebhookDelivery = InferEntity<typeof WebhookDelivery>;

/** One HTTP attempt of a delivery, kept for the endpoint's history. */
export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  indexes: [
    {
      name: 'webhook_attempt_endpoint_idx',
      expression: 'create index webhook_attempt_endpoint_idx on webhook_attempt (endpoint_id, attempted_at desc)',
    },
    { name: 'webhook_attempt_delivery_idx', properties: ['deliveryId', 'attemptedAt'] },
    // Attempts past the retention, oldest first (the history purge).
    { name: 'webhook_attempt_attempted_idx', properties: ['attemptedAt'] },
  ],
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    deliveryId: p.string().length(36),
    endpointId: p.string().length(36),
    eventId: p.string().length(36),
    attemptedAt: p.datetime().defaultRaw('now()'),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer(),
    ok: p.boolean(),
    error: p.string().length(500).nullable(),
  },
});
export type IWebhookAttempt = InferEntity<typeof WebhookAttempt>;
