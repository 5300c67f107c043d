/** Block permissions (pure): who may issue and remove which block. */
import type { FieldErrors } from '../errors.js';
import type { Capability, Issuer, Reason } from '../accounts/account-block.rules.js';

/** What a caller is allowed: the operator (`svc`) is a client flag; a publisher may hold the can-unblock licence. */
export interface BlockCaller {
  isOperator: boolean;
  canUnblock: boolean;
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
