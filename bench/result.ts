/** The figures a benchmark reports. */

/**
 * CPU time (user + system) per operation, in milliseconds, of each process group: Holdfast
 * (web and workers, however many processes), PostgreSQL (the bench databases' backends and the
 * server's own background processes), Redis (the whole server) and the load generator (the
 * bench's own process).
 */
export interface CpuPerOp {
  holdfast: number;
  postgres: number;
  redis: number;
  loadGenerator: number;
}
