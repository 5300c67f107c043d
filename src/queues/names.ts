/** Every BullMQ queue Holdfast runs; each has exactly one processor in workers/. */
export enum QueueName {
  /** Commands, every kind of `COMMAND_KINDS` (src/commands/command.registry.ts), each run by its module's runner. */
  Commands = 'commands',
  /** Housekeeping on a schedule: stalled commands, lost webhook deliveries; expired idempotency keys, old commands and webhook history. */
  Maintenance = 'maintenance',
  /** Webhook deliveries: one job per (event, endpoint); its failed set is the dead-letter list. */
  Webhooks = 'webhooks',
}

/** The payload of a webhook delivery job: the delivery row holds the rest. */
export interface WebhookJob {
  deliveryId: string;
  /** The W3C traceparent its attempts join (the event's, through the relay), when tracing is on. */
  traceparent?: string;
}

/** A command to run: the command row holds the rest. */
export interface CommandRef {
  commandId: string;
  /** The command's kind (`escrow.pay`…, a CommandKind), so the processor finds its runner without a query. */
  kind: string;
  /** The W3C traceparent its run joins (the request's that made it), when tracing is on. */
  traceparent?: string;
}

/**
 * The payload of a command job: one command (job id = command id, name `commands`), or the
 * commands enqueued together in one turn of a web process's event loop (name `batch`,
 * `commands`), which the worker runs at once — one fetch and one completion in Redis for all of them.
 */
export type CommandJob = CommandRef | { commands: CommandRef[] };

/** Commands per job, at most, when several are enqueued in one turn (`COMMAND_JOB_BATCH`). */
export const DEFAULT_COMMAND_JOB_BATCH = 32;

/** The commands a command job carries. */
export function commandsOf(job: CommandJob): CommandRef[] {
  return 'commands' in job ? job.commands : [job];
}

/** Job names per queue. */
export enum MaintenanceJob {
  PurgeIdempotencyKeys = 'purge-idempotency-keys',
  SweepCommands = 'sweep-commands',
  SweepDeliveries = 'sweep-deliveries',
  PurgeWebhookHistory = 'purge-webhook-history',
  PurgeCommands = 'purge-commands',
  SandboxDisputeClock = 'sandbox-dispute-clock',
  SealAudit = 'seal-audit',
}
