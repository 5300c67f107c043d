/**
 * PayPal payout items as the payouts module reads them (pure): what a `PAYMENT.PAYOUTS-ITEM.*`
 * event's item says about an attempt, which of two sights of one item is the later (webhooks
 * arrive in any order), and whether a stored item matches the payout Holdfast recorded as sent
 * (`ledger verify`).
 */
import type { PayoutStatus } from './payout.rules.js';

/** What one sight of a payout item reports: enough to name the payout's attempt and its outcome. */
export interface PaypalItemReport {
  itemId: string;
  /** PayPal's `transaction_status` (SUCCESS, FAILED, UNCLAIMED, RETURNED…), upper case. */
  status: string;
  /** `<payout id>-<attempt>`: the item's `sender_item_id`, else its batch's `sender_batch_id`. */
  senderBatchId: string | null;
  batchId: string | null;
  failureCode: string | null;
  failureReason: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);

/** The status an item event's type names, for a resource without `transaction_status` (`…SUCCEEDED` → SUCCESS). */
function statusOfEventType(eventType: string): string | null {
  const last = eventType.split('.').pop()?.toUpperCase() ?? '';
  if (!last) return null;
  if (last === 'SUCCEEDED') return 'SUCCESS';
  if (last === 'HELD') return 'ONHOLD';
  // Only an unclaimed item can be cancelled, and its money goes back to the sender: for the
  // payout that is a return (a payout left PROCESSING would hold the money for ever).
  if (last === 'CANCELED') return 'RETURNED';
  return last;
}

/** A machine code from PayPal's error name (`RECEIVER_ACCOUNT_LOCKED` → `receiver_account_locked`), or null. */
function failureCode(name: string | null): string | null {
  const snake = (name ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return snake ? snake.slice(0, 64) : null;
}

/**
 * The report of an item event's `resource` (a payout item), or the name of the field that is
 * missing: an item without its `payout_item_id` or a status (neither `transaction_status` nor
 * one the event type names) cannot be applied.
 */
export function paypalItemReport(
  resource: unknown,
  eventType: string,
): { ok: true; report: PaypalItemReport } | { ok: false; field: string } {
  if (!resource || typeof resource !== 'object' || Array.isArray(resource)) return { ok: false, field: 'resource' };
  const item = resource as Record<string, unknown>;
  const itemId = text(item.payout_item_id);
  if (!itemId) return { ok: false, field: 'resource.payout_item_id' };
  const status = (text(item.transaction_status) ?? statusOfEventType(eventType))?.toUpperCase();
  if (!status) return { ok: false, field: 'resource.transaction_status' };
  const inner = item.payout_item && typeof item.payout_item === 'object' ? (item.payout_item as Record<string, unknown>) : {};
  const errors = item.errors && typeof item.errors === 'object' ? (item.errors as Record<string, unknown>) : {};
  return {
    ok: true,
    report: {
      itemId,
      status,
      senderBatchId: text(inner.sender_item_id) ?? text(item.sender_batch_id),
      batchId: text(item.payout_batch_id),
      failureCode: failureCode(text(errors.name)),
      failureReason: text(errors.message)?.slice(0, 200) ?? null,
    },
  };
}

/**
 * How far along its life an item status is: waiting (PENDING, ONHOLD, NEW) 0, UNCLAIMED 1 (it
 * may still be paid or returned), settled (SUCCESS, FAILED, BLOCKED, DENIED, RETURNED) 2, undone
 * after settling (REFUNDED, REVERSED) 3.
 */
function stage(status: string): number {
  switch (status.toUpperCase()) {
    case 'UNCLAIMED':
      return 1;
    case 'SUCCESS':
    case 'FAILED':
    case 'BLOCKED':
    case 'DENIED':
    case 'RETURNED':
      return 2;
    case 'REFUNDED':
    case 'REVERSED':
      return 3;
    default:
      return 0;
  }
}

/**
 * Whether a sight of an item (its status `seen`) replaces the stored one (`stored`, undefined
 * when none is): only when it is not behind it. Webhooks come in any order and the execution's
 * own read may be older than a webhook already applied, so a later stage wins, an equal one
 * refreshes, an earlier one is dropped — and of two settled statuses the first stored stays, as
 * the first settling outcome of an attempt is the one the payout took.
 */
export function itemSightReplaces(stored: string | undefined, seen: string): boolean {
  if (stored === undefined) return true;
  const before = stage(stored);
  const now = stage(seen);
  if (now !== before) return now > before;
  return before !== 2 || stored.toUpperCase() === seen.toUpperCase();
}

/** The item status a payout in `status` must have at PayPal (SUCCESS and RETURNED are settled by it), else undefined. */
export function expectedItemStatus(status: PayoutStatus): 'SUCCESS' | 'RETURNED' | undefined {
  if (status === 'SUCCESS') return 'SUCCESS';
  if (status === 'RETURNED') return 'RETURNED';
  return undefined;
}

/** A payout Holdfast recorded as sent to PayPal, and the stored item its provider item id names (if any), for `ledger verify`. */
export interface SentPayout {
  id: string;
  status: PayoutStatus;
  amount: number;
  currency: string;
  attempt: number;
  providerItemId: string;
  item?: { holdfastRef: string; status: string | null; amount: number | undefined; currency: string | null };
}

/**
 * What is wrong between a payout sent to PayPal and its stored item, as one line, or undefined
 * when they match: the item must be stored, stand behind the payout's attempt, carry its amount
 * and currency, and, for a SUCCESS or RETURNED payout, be SUCCESS or RETURNED at PayPal.
 */
export function sentPayoutMismatch(p: SentPayout): string | undefined {
  const what = `payout ${p.id} (${p.status}, ${p.currency} ${p.amount})`;
  if (!p.item) return `${what} names PayPal item ${p.providerItemId}, which is not stored`;
  const ref = `payout:${p.id}:${p.attempt}`;
  if (p.item.holdfastRef !== ref) return `${what}: PayPal item ${p.providerItemId} stands behind ${p.item.holdfastRef}, not ${ref}`;
  if (p.item.amount !== p.amount || p.item.currency !== p.currency)
    return `${what}: PayPal item ${p.providerItemId} is for ${p.item.currency ?? '?'} ${p.item.amount ?? '?'}`;
  const expected = expectedItemStatus(p.status);
  if (expected && p.item.status !== expected)
    return `${what}: PayPal item ${p.providerItemId} is ${p.item.status ?? 'without a status'}, not ${expected}`;
  return undefined;
}
