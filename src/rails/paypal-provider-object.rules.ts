/**
 * Which provider objects a PayPal payout leaves, as `provider_object` rows (pure): the batch of
 * an attempt (`payout_batch`, its header) and its item (`payout_item`), each standing behind
 * `payout:<payout id>:<attempt>` (a webhook's item names its attempt in `sender_batch_id`,
 * `<payout id>-<attempt>`, which the payouts module reads).
 */
import type { PaypalBatchHeader, PaypalPayoutItem } from './paypal.client.js';

/** A row of `provider_object` (the repository's ProviderObjectRecord, restated: rules import no repository). */
export interface ProviderObjectRecord {
  provider: 'paypal';
  objectId: string;
  objectType: 'payout_batch' | 'payout_item';
  integratorId: string | null;
  holdfastRef: string;
  snapshot: Record<string, unknown>;
}

/** The Holdfast record of an attempt: `payout:<payout id>:<attempt>`. */
export function payoutAttemptRef(payoutId: string, attempt: number): string {
  return `payout:${payoutId}:${attempt}`;
}

/**
 * The objects of a PayPal answer about an attempt: its batch (from `batch_header`) and, when the
 * answer lists it, its item. `answer` is a `snapshot` the adapter returned, or a batch read later.
 */
export function paypalPayoutObjects(
  answer: { batch_header?: PaypalBatchHeader; items?: PaypalPayoutItem[] } | undefined,
  integratorId: string | null,
  holdfastRef: string,
): ProviderObjectRecord[] {
  const header = answer?.batch_header;
  if (!header?.payout_batch_id) return [];
  const batch: ProviderObjectRecord = {
    provider: 'paypal',
    objectId: header.payout_batch_id,
    objectType: 'payout_batch',
    integratorId,
    holdfastRef,
    snapshot: { ...header },
  };
  const items = (answer?.items ?? []).map((item) => paypalItemObject(item, integratorId, holdfastRef));
  return [batch, ...items];
}

/** A payout item as PayPal showed it (an answer's item, a webhook event's `resource`), without its links. */
export function paypalItemObject(item: PaypalPayoutItem, integratorId: string | null, holdfastRef: string): ProviderObjectRecord {
  const { links: _links, ...snapshot } = item;
  return { provider: 'paypal', objectId: item.payout_item_id, objectType: 'payout_item', integratorId, holdfastRef, snapshot };
}
