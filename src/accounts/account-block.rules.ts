/** An account's blocks (pure): the capabilities and reasons, the records the API shows, and what a block stops. */

export const CAPABILITIES = ['login', 'payouts', 'transactions'] as const;
export type Capability = (typeof CAPABILITIES)[number];

export const REASONS = [
  'account_close',
  'compliance',
  'merge_account',
  'gdpr',
  'failed_kyc',
  'kyc_application_cancelled',
  'flagged_for_full_kyc',
] as const;
export type Reason = (typeof REASONS)[number];

export type Issuer = 'publisher' | 'svc';

/** A block record, as the API shows it. */
export interface BlockRecord {
  block_id: string;
  account_id: string;
  capability: Capability;
  issuer: Issuer;
  reason: Reason;
  note: string | null;
  status: 'active';
  created: string;
}

/** The `blocks` object of a profile: active blocks keyed by capability. */
export function blocksByCapability(records: BlockRecord[]): Partial<Record<Capability, BlockRecord>> {
  const out: Partial<Record<Capability, BlockRecord>> = {};
  for (const r of records) out[r.capability] = r;
  return out;
}

/** An account is blocked while it has any active block (profile `is_blocked`, the earlier-generation payload). */
export function isBlocked(records: readonly { capability: Capability }[]): boolean {
  return records.length > 0;
}

/** The capabilities whose block stops an account from buying or selling (`login` includes every other). */
export const TRANSACTION_BLOCKS: readonly Capability[] = ['login', 'transactions'];

/** The 403 payload for a blocked account. */
export function blockedMessage(accountId: string): string {
  return `Account ${accountId} is blocked.`;
}
