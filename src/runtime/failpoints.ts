/**
 * Failpoints for fault tests: named places where a process can be told to die abruptly
 * (SIGKILL itself), to prove that a crash at that moment loses or doubles nothing. Set with
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

export function armFailpoints(names: string[]): void {
  armed = new Set(names);
}

/** Kills this process on the spot when the failpoint is armed. */
export function failpoint(name: Failpoint): void {
  if (armed.has(name)) process.kill(process.pid, 'SIGKILL');
}
