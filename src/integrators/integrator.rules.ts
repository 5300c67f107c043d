/** An integrator's settings and how the command line sets them (pure). */

/** An integrator's payout and conversion settings (`holdfast integrator create|update`). */
export interface IntegratorSettings {
  /** Payouts up to this amount (minor units) are approved without the operator; 0: none is. */
  payoutAutoApproveMax: number;
  /** At most this many open payouts (FUNDS-IN-ESCROW, PROCESSING or FAILED) per account. */
  payoutOpenLimit: number;
  /** A token conversion's fee, in basis points of its fiat amount (rounded up). */
  conversionFeeBps: number;
  /** What a dispute of a card charge costs the integrator (minor units of the disputed currency). */
  disputeFee: number;
}

/** The settings' command-line flags, each with its range. */
export const SETTING_FLAGS = {
  'payout-auto-approve-max': { key: 'payoutAutoApproveMax', min: 0, max: Number.MAX_SAFE_INTEGER },
  'payout-open-limit': { key: 'payoutOpenLimit', min: 1, max: 1000 },
  'conversion-fee-bps': { key: 'conversionFeeBps', min: 0, max: 10000 },
  'dispute-fee': { key: 'disputeFee', min: 0, max: 1_000_000_00 },
} as const;

/** Reads the settings' flags (strings as given); the settings named, or the first flag that is not a whole number in its range. */
export function parseSettingFlags(
  values: Record<string, string | boolean | undefined>,
): { ok: true; settings: Partial<IntegratorSettings> } | { ok: false; message: string } {
  const settings: Partial<IntegratorSettings> = {};
  for (const [flag, { key, min, max }] of Object.entries(SETTING_FLAGS)) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const n = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      return { ok: false, message: `--${flag} must be a whole number from ${min} to ${max}` };
    settings[key] = n;
  }
  return { ok: true, settings };
}
