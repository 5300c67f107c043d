/** Every BullMQ queue Holdfast runs; each has exactly one processor in workers/. */
export enum QueueName {
  /** Escrow commands: pay, commit, cancel. */
  Escrow = 'escrow',
  /** Housekeeping on a schedule: stalled commands, expired idempotency keys. */
  Maintenance = 'maintenance',
}

/** The payload of every command job: the command row holds the rest. */
export interface CommandJob {
  commandId: string;
}

/** Job names per queue. */
export enum MaintenanceJob {
  PurgeIdempotencyKeys = 'purge-idempotency-keys',
  SweepCommands = 'sweep-commands',
}
