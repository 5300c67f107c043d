/**
 * Failpoints for fault tests: named places where a process can be told to die abruptly
 * (SIGKILL itself), to prove that a crash at that moment loses or doubles nothing — or, for the
 * `THROWING_FAILPOINTS`, to fail there with an error (an export cut mid-stream). Set with
 * HOLDFAST_FAILPOINTS (comma-separated names); refused at boot when APP_ENV=production.
 */
let armed = new Set<string>();

export const FAILPOINTS = [
  'escrow.pay.before-charge',
  'escrow.pay.after-charge',
  'refund.before-post',
  'refund.after-commit',
  'refund.after-provider',
  'payout.execute.before-post',
  'payout.execute.after-send',
  'payout.execute.after-commit',
  'webhooks.relay.after-commit',
  'dispute.before-commit',
  'dispute.after-commit',
] as const;
export type Failpoint = (typeof FAILPOINTS)[number];

/** Failpoints that throw instead of killing the process: `export.after-first-batch`, an export failing once its first rows went out. */
export const THROWING_FAILPOINTS = ['export.after-first-batch'] as const;
export type ThrowingFailpoint = (typeof THROWING_FAILPOINTS)[number];

/** The error a throwing failpoint raises. */
export class FailpointError extends Error {}

/** Throws a FailpointError on the spot when the failpoint is armed. */
export function failpointThrow(name: ThrowingFailpoint): void {
  if (armed.has(name)) throw new FailpointError(`failpoint ${name}`);
}

export function armFailpoints(names: string[]): void {
  armed = new Set(names);
}

/** Kills this process on the spot when the failpoint is armed. */
export function failpoint(name: Failpoint): void {
  if (armed.has(name)) process.kill(process.pid, 'SIGKILL');
}
