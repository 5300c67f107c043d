/** Every BullMQ queue Holdfast runs; each has exactly one processor in workers/. */
export enum QueueName {
  /** Commands: escrow pay, commit, cancel; invoice pay. */
  Commands = 'commands',
  /** Housekeeping on a schedule: stalled commands, expired idempotency keys. */
  Maintenance = 'maintenance',
}

/** The payload of every command job: the command row holds the rest. */
export interface CommandJob {
  commandId: string;
  /** The command's kind (`escrow.pay`…), so the processor can dispatch without a query. */
  kind: string;
}

/** Job names per queue. */
export enum MaintenanceJob {
  PurgeIdempotencyKeys = 'purge-idempotency-keys',
  SweepCommands = 'sweep-commands',
}
