/** The staging test clock's limits (pure). */

/** One advance moves the clock at most 400 days (the OpenAPI document's `maximum`). */
export const MAX_ADVANCE_SECONDS = 400 * 24 * 3600;

/** An integrator's clock runs at most 10 years ahead of real time. */
export const MAX_OFFSET_SECONDS = 3650 * 24 * 3600;

/** The test clock exists only in staging: production has no routes for it and never writes it. */
export function sandboxClockEnabled(appEnv: string): boolean {
  return appEnv === 'staging';
}
