/** Every BullMQ queue Holdfast runs; each has exactly one processor in workers/. */
export enum QueueName {
  /** Housekeeping on a schedule: expired idempotency keys. */
  Maintenance = 'maintenance',
}

/** Job names per queue. */
export enum MaintenanceJob {
  PurgeIdempotencyKeys = 'purge-idempotency-keys',
}
