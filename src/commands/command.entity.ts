import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Money-moving work requested over HTTP and run by a worker; the row is the source of truth. */
export const Command = defineEntity({
  name: 'Command',
  tableName: 'command',
  indexes: [
    // Requests for the same work share one pending command.
    {
      name: 'command_one_pending',
      expression: `create unique index command_one_pending on command (target_id, kind, input_key) where state = 'pending'`,
    },
    { name: 'command_pending_idx', expression: `create index command_pending_idx on command (updated_at) where state = 'pending'` },
    // Finished commands past their retention, oldest first (the purge).
    { name: 'command_done_idx', expression: `create index command_done_idx on command (updated_at) where state = 'done'` },
  ],
  properties: {
    id: p.string().primary().length(36),
    /** Null only for a provider event's command, which no integrator owns. */
    integratorId: p.string().length(36).nullable(),
    kind: p.string().length(40),
    targetId: p.string().length(36),
    state: p.enum(['pending', 'done'] as const).columnType('varchar(16)'),
    input: p.json<Record<string, unknown>>().nullable(),
    /** Who asked for it (the actor, the reason, the request): its runner records the action in the audit trail (src/audit). */
    audit: p.json<Record<string, unknown>>().nullable(),
    inputKey: p.string().length(100).default(''),
    resultStatus: p.integer().nullable(),
    resultBody: p.json<unknown>().nullable(),
    /** Times a worker locked it (invoice pay, merge); escrow commands are read without a lock and leave it 0. */
    attempts: p.integer().default(0),
    /** The W3C traceparent of the request that made it (tracing on): its job, run again or requeued, joins that trace. */
    traceparent: p.string().length(55).nullable(),
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
export type ICommand = InferEntity<typeof Command>;
