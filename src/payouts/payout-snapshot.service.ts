/**
 * The PayPal objects of a payout's attempt, kept in `provider_object` (rails' repository) as
 * the execution's answer and the item's webhooks show them. Sights of one item arrive in any
 * order (a webhook before the execution's own read commits, an UNCLAIMED redelivered after
 * RETURNED), so an item's stored snapshot is replaced only by one not behind it
 * (`itemSightReplaces`). Callers hold the payout's row lock, which orders the sights of its items.
 */
import type { Db } from '../db/sql.js';
import type { ProviderObjectRecord } from '../rails/paypal-provider-object.rules.js';
import { findProviderObject, saveProviderObject } from '../rails/provider-object.repository.js';
import { itemSightReplaces } from './paypal-item.rules.js';

const statusOf = (snapshot: Record<string, unknown>): string =>
  typeof snapshot.transaction_status === 'string' && snapshot.transaction_status ? snapshot.transaction_status : 'PENDING';

/** Stores the objects of an attempt: a batch as seen now, an item unless what is stored is further along. */
export async function savePaypalAttemptObjects(db: Db, objects: ProviderObjectRecord[]): Promise<void> {
  for (const o of objects) {
    if (o.objectType === 'payout_item') {
      const stored = await findProviderObject(db, 'paypal', o.objectId);
      if (!itemSightReplaces(stored && statusOf(stored.snapshot), statusOf(o.snapshot))) continue;
    }
    await saveProviderObject(db, o);
  }
}
