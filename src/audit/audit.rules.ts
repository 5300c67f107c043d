/**
 * The audit trail's rules, pure: who an actor is, what a record may hold (never personal data),
 * how a sealed record's hash is made, and how a chain of sealed records is checked.
 */
import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// A CommonJS module whose one export is the function (its types describe an ES default export).
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/** Where an operator acted from: the console (later), the `holdfast` CLI, or an integrator's server (an OAuth client). */
export const ACTOR_KINDS = ['console', 'cli', 'client'] as const;
export type ActorKind = (typeof ACTOR_KINDS)[number];

/**
 * Who made a decision. The CLI's actor is the operating-system user (or `--actor NAME`); an API
 * client's is the client (its id: clients have no other name); a console user's is the user.
 */
export interface Actor {
  kind: ActorKind;
  id: string;
  name: string;
}

/**
 * What the caller of an operator action passes down to where the change is written: the actor,
 * the reason the operator gave and the request it came from. A command carries it (its `audit`
 * column) from the request to its runner.
 */
export interface AuditContext {
  actor: Actor;
  reason?: string | null;
  requestId?: string | null;
}

/** The actions recorded (docs/security.md#audit-trail lists who makes each). */
export const AUDIT_ACTIONS = [
  'payout.approve',
  'payout.reject',
  'payout.rail_outcome',
  'kyc.decide',
  'kyc.reopen',
  'kyc.erase',
  'integrator.fund',
  'block.apply',
  'block.lift',
  'refund.request',
  'dispute.evidence',
  'client.rotate_secret',
  'client.revoke',
  'webhook.resend',
  'webhook.replay',
  'account.merge',
  'console.user.add',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an action is about. */
export interface AuditTarget {
  type: 'payout' | 'account' | 'integrator' | 'invoice' | 'dispute' | 'client' | 'event' | 'webhook_endpoint' | 'console_user';
  id: string;
}

/** One record to write. */
export interface AuditEntry {
  integratorId: string;
  context: AuditContext;
  action: AuditAction;
  target: AuditTarget;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** The longest reason kept (characters). */
export const AUDIT_REASON_MAX = 1000;

/** The CLI's actor: `--actor NAME` when given, else the operating-system user. */
export function cliActor(given: string | undefined, osUser: string): Actor {
  const name = (given ?? '').trim() || osUser;
  return { kind: 'cli', id: name, name };
}

/** An API client's actor: the client of the bearer token. */
export function clientActor(clientId: string): Actor {
  return { kind: 'client', id: clientId, name: clientId };
}

/**
 * Keys that would carry personal data (a KYC submission's fields, contact details, card
 * numbers, evidence texts): refused anywhere in a record's `before` and `after`. A KYC decision
 * records the state, never the identity.
 */
const PERSONAL_KEYS = new Set([
  'first_name',
  'last_name',
  'full_name',
  'email',
  'phone',
  'birth_date',
  'date_of_birth',
  'dob',
  'address',
  'street',
  'postal_code',
  'city',
  'document_number',
  'id_number',
  'tax_id',
  'ssn',
  'nationality',
  'card_number',
  'cvc',
  'iban',
  'personal_data',
  'customer_name',
  'customer_email_address',
  'billing_address',
  'shipping_address',
]);

/** The paths (`after.email`, `before.x.phone`) of keys in a record's snapshots that would hold personal data; empty when none. */
export function personalDataPaths(entry: Pick<AuditEntry, 'before' | 'after'>): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`);
    } else if (value && typeof value === 'object')
      for (const [key, v] of Object.entries(value)) {
        if (PERSONAL_KEYS.has(key.toLowerCase())) found.push(`${path}.${key}`);
        walk(v, `${path}.${key}`);
      }
  };
  walk(entry.before, 'before');
  walk(entry.after, 'after');
  return found;
}

/** A reason as kept: trimmed, null when empty; undefined when it is longer than `AUDIT_REASON_MAX`. */
export function normalReason(reason: string | null | undefined): string | null | undefined {
  const trimmed = (reason ?? '').trim();
  if (!trimmed) return null;
  return trimmed.length > AUDIT_REASON_MAX ? undefined : trimmed;
}

/** A stored record as it is hashed and shown. */
export interface AuditView {
  audit_id: string;
  at: string;
  integrator_id: string;
  actor: Actor;
  action: string;
  target: { type: string; id: string };
  reason: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  request_id: string | null;
  seq: number | null;
  sealed_at: string | null;
}

/**
 * A sealed record's hash: SHA-256 (hex) over the previous record's hash (empty for the first),
 * a line feed, and the record's canonical JSON (RFC 8785: sorted keys, one spelling per value)
 * with its sequence number — so an edit of any field, a renumbering or a removal changes it.
 */
export function sealHash(record: Omit<AuditView, 'sealed_at'>, prevHash: string | null): string {
  const { sealed_at: _s, ...content } = record as AuditView;
  return createHash('sha256')
    .update(`${prevHash ?? ''}\n${canonicalize(content)}`)
    .digest('hex');
}

/** A sealed record as the chain check reads it. */
export interface SealedRecord {
  view: AuditView;
  prevHash: string | null;
  hash: string;
}

/** Where a chain breaks: the record (or the place) and what is wrong. */
export interface ChainBreak {
  integratorId: string;
  seq: number;
  auditId: string | null;
  problem: string;
}

/**
 * Checks one integrator's sealed records, in `seq` order, continuing from `previous` (the last
 * record checked before this batch: its seq and hash; seq 0 and null to start). The first
 * break, or the last seq and hash to continue from.
 */
export function checkChain(
  integratorId: string,
  records: SealedRecord[],
  previous: { seq: number; hash: string | null },
): { break: ChainBreak } | { seq: number; hash: string | null } {
  let { seq, hash } = previous;
  for (const r of records) {
    const at = r.view.seq ?? 0;
    const broke = (problem: string) => ({ break: { integratorId, seq: at, auditId: r.view.audit_id, problem } });
    if (at !== seq + 1) {
      return {
        break: {
          integratorId,
          seq: seq + 1,
          auditId: r.view.audit_id,
          problem: `sealed record${at - seq - 1 === 1 ? '' : 's'} ${seq + 1}${at - seq - 1 > 1 ? `–${at - 1}` : ''} missing before ${r.view.audit_id} (seq ${at}): removed`,
        },
      };
    }
    if (r.prevHash !== hash) return broke(`its prev_hash is not the hash of record ${seq}: the chain was cut or re-sealed`);
    if (sealHash(r.view, r.prevHash) !== r.hash) return broke('its content does not match its hash: edited');
    seq = at;
    hash = r.hash;
  }
  return { seq, hash };
}

/** The chain head check, after the last record: the head must name the last sealed record. */
export function checkHead(
  integratorId: string,
  last: { seq: number; hash: string | null },
  head: { seq: number; hash: string | null } | undefined,
): ChainBreak | undefined {
  const headSeq = head?.seq ?? 0;
  if (headSeq > last.seq) {
    return {
      integratorId,
      seq: last.seq + 1,
      auditId: null,
      problem: `sealed record${headSeq - last.seq === 1 ? '' : 's'} ${last.seq + 1}${headSeq - last.seq > 1 ? `–${headSeq}` : ''} missing at the end of the chain (its head is at ${headSeq}): removed`,
    };
  }
  if (headSeq < last.seq || (head?.hash ?? null) !== last.hash) {
    return { integratorId, seq: last.seq, auditId: null, problem: `the chain head (seq ${headSeq}) does not name the last sealed record` };
  }
  return undefined;
}
