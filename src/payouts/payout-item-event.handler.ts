/**
 * PayPal's `PAYMENT.PAYOUTS-ITEM.*` events, as the provider-event inbox hands them over (in the
 * event's command transaction): the item the event carries names the payout's attempt
 * (`sender_item_id` `<payout id>-<attempt>`); its snapshot is stored behind that attempt and its
 * status is submitted as the attempt's outcome (`payout.settle`, run next by the worker), which
 * moves the payout once whatever the order and number of the events.
 */
import type { Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { payoutAttemptRef, paypalItemObject } from '../rails/paypal-provider-object.rules.js';
import type { PaypalPayoutItem } from '../rails/paypal.client.js';
import { savePaypalAttemptObjects } from './payout-snapshot.service.js';
import { lockPayout, payoutByProviderItem } from './payout.repository.js';
import { parseSenderBatchId, senderBatchId } from './payout.rules.js';
import { submitPayoutOutcome } from './payout.service.js';
import { paypalItemReport } from './paypal-item.rules.js';

/** The event as the inbox stores it (the provider-events module's record, restated: this module does not import that one). */
interface ItemEvent {
  type: string;
  payload: Record<string, unknown>;
}

/** The handler's answer, structurally the inbox's `HandlerAnswer`. */
type Answer = 'applied' | 'ignored' | { outcome: 'applied'; next: Array<{ commandId: string; kind: 'payout.settle' }> };

/**
 * Applies one payout item event: `ignored` when it names no payout of ours, else the item stored
 * (`payout:<id>:<attempt>`) and, for a status that settles or keeps a payout, the attempt's
 * `payout.settle` command submitted and named for the worker. A resource that is not a payout
 * item is refused (400, the event ends `failed`).
 */
export async function payoutItemEventHandler(db: Db, event: ItemEvent): Promise<Answer> {
  const resource = event.payload.resource;
  const parsed = paypalItemReport(resource, event.type);
  if (!parsed.ok)
    throw AppError.invalid({ [parsed.field]: ['REQUIRED'] }, `The event's resource is not a PayPal payout item (${parsed.field}).`);
  const report = parsed.report;
  const named = report.senderBatchId ? parseSenderBatchId(report.senderBatchId) : undefined;
  const known = named ? undefined : await payoutByProviderItem(db, report.itemId);
  const payoutId = named?.payoutId ?? known?.id;
  // Ordered with the execution's second transaction and the other events of this payout.
  const payout = payoutId ? await lockPayout(db, payoutId) : undefined;
  if (!payout) return 'ignored';
  const attempt = named?.attempt ?? payout.attempt;
  if (attempt < 1 || attempt > payout.attempt) return 'ignored';
  const item = paypalItemObject(resource as PaypalPayoutItem, payout.integratorId, payoutAttemptRef(payout.id, attempt));
  await savePaypalAttemptObjects(db, [item]);
  const settle = await submitPayoutOutcome(db, {
    status: report.status,
    senderBatchId: senderBatchId(payout.id, attempt),
    providerItemId: report.itemId,
    providerBatchId: report.batchId,
    failureCode: report.failureCode,
    failureReason: report.failureReason,
    snapshot: item.snapshot,
  });
  return settle ? { outcome: 'applied', next: [{ commandId: settle.commandId, kind: settle.kind }] } : 'applied';
}
