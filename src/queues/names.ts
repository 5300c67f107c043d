/** Every BullMQ queue Holdfast runs; each has exactly one processor in workers/. */
export enum QueueName {
  /** Commands: escrow pay, commit, cancel; invoice pay; account merge (each kind's runner: src/commands/command.registry.ts). */
  Commands = 'commands',
  /** Housekeeping on a schedule: stalled commands, lost webhook deliveries; expired idempotency keys, old commands and webhook history. */
  Maintenance = 'maintenance',
  /** Webhook deliveries: one job per (event, endpoint); its failed set is the dead-letter list. */
  Webhooks = 'webhooks',
}

/** The payload of a webhook delivery job: the delivery row holds the rest. */
export interface WebhookJob {
  deliveryId: string;
}

/** The payload of every command job: the command row holds the rest. */
export interface CommandJob {
  commandId: string;
  /** The command's kind (`escrow.pay`…, a CommandKind), so the processor finds its runner without a query. */
  kind: string;
}

/** Job names per queue. */
export enum MaintenanceJob {
  PurgeIdempotencyKeys = 'purge-idempotency-keys',
  SweepCommands = 'sweep-commands',
  SweepDeliveries = 'sweep-deliveries',
  PurgeWebhookHistory = 'purge-webhook-history',
  PurgeCommands = 'purge-commands',
}
