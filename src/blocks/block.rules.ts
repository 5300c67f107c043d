/** Block rules (pure): who may issue and remove which block, and what a block stops. */
import type { FieldErrors } from '../errors.js';

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

/** What a caller is allowed: the operator (`svc`) is a client flag; a publisher may hold the can-unblock licence. */
export interface BlockCaller {
  isOperator: boolean;
  canUnblock: boolean;
}

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

/** What a publisher client may issue (the block request body); the operator may issue every capability and reason. */
const PUBLISHER_CAPABILITIES: readonly Capability[] = ['login'];
const PUBLISHER_REASONS: readonly Reason[] = ['account_close'];

/** The issuer of a new block, or the fields a publisher may not use (400 naming them). */
export function issueDecision(
  caller: BlockCaller,
  capability: Capability,
  reason: Reason,
): { ok: true; issuer: Issuer } | { ok: false; fields: FieldErrors } {
  if (caller.isOperator) return { ok: true, issuer: 'svc' };
  const fields: FieldErrors = {};
  if (!PUBLISHER_CAPABILITIES.includes(capability)) fields.block_capability = ['OPERATOR_ONLY'];
  if (!PUBLISHER_REASONS.includes(reason)) fields.block_reason = ['OPERATOR_ONLY'];
  return Object.keys(fields).length ? { ok: false, fields } : { ok: true, issuer: 'publisher' };
}

/**
 * The operator may remove any block; a publisher only with the can-unblock licence,
 * and only blocks a publisher issued — never one issued by `svc`.
 */
export function unblockDecision(caller: BlockCaller, block: { issuer: Issuer }): { ok: true } | { ok: false; reason: string } {
  if (caller.isOperator) return { ok: true };
  if (!caller.canUnblock) return { ok: false, reason: 'This client is not licensed to unblock accounts.' };
  if (block.issuer !== 'publisher')
    return { ok: false, reason: 'A block issued by the service operator can only be removed by the operator.' };
  return { ok: true };
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
