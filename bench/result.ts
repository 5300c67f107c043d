/**
 * What a benchmark writes when `BENCH_RESULT_FILE` names a file: the contract between each
 * bench and `bench:compare`. The two commits a comparison runs each write it with their own
 * bench code, so it carries a format number; a change that breaks readers bumps it (and
 * bench/compare.rules.ts says which formats it reads).
 */

/** The format written here; `bench:compare` refuses others. */
export const RESULT_FORMAT = 1;

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

export interface OperationResult {
  /** Stable across commits: bench:compare pairs operations by it. */
  id: string;
  /** What it is, for people. */
  name: string;
  /** Of the throughput, e.g. `lifecycles/s`. */
  unit: string;
  /** Operations per second over the measurement; null where the bench fixes the rate (a paced run). */
  throughput: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Null where the machine has no /proc. */
  cpuMsPerOp: CpuPerOp | null;
  /** The same-run baseline (another program on the same machine, measured in the same run), where the bench has one. */
  baseline?: { name: string; unit: string; throughput: number };
  /** throughput / baseline.throughput. */
  ratio?: number;
  /**
   * A reference measured beside the operations, not Holdfast's code (the reads bench's limit
   * read): bench:compare shows its figures, for how the machine moved, and judges none of them.
   */
  reference?: boolean;
}

export interface BenchResult {
  format: typeof RESULT_FORMAT;
  /** `escrow`, `reads`, `webhooks`, `scale`. */
  bench: string;
  /** CPU model and count, Node version. */
  machine: string;
  /** The sizes the run used (after BENCH_QUICK and the knobs). */
  settings: Record<string, number | string | boolean>;
  /** The bench's own targets (its exit code). */
  targetsMet: boolean;
  operations: OperationResult[];
}
