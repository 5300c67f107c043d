/**
 * Stripe's events about a Refund (`refund.created`, `refund.updated`, `refund.failed`, and
 * `charge.refund.updated`, which carries the Refund too), as the provider-event inbox hands them
 * over: the snapshot stored behind a refund Holdfast asked for is brought up to date, never
 * back (`refundSightSupersedes`), so a duplicate or an out-of-order event changes nothing. A
 * Refund that failed after Holdfast recorded it done is reversed by the refunds module's handler
 * (src/refunds/refund-event.handler.ts), which runs this one first.
 */
import type { Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { findProviderObject, saveProviderObject } from '../rails/provider-object.repository.js';
import { refundSightSupersedes } from './stripe-refund-snapshot.rules.js';

/** What this handler reads of a stored provider event (the provider-events module's record, declared here to import nothing of it). */
export interface StripeRefundEvent {
  providerEventId: string;
  type: string;
  payload: Record<string, unknown>;
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Applies one Refund event: `applied` when the stored snapshot moved forward, else `ignored` (not ours, or nothing new). */
export async function applyStripeRefundEvent(db: Db, event: StripeRefundEvent): Promise<'applied' | 'ignored'> {
  const refund = record(record(event.payload.data)?.object);
  if (!refund || typeof refund.id !== 'string' || refund.object !== 'refund')
    throw new AppError('invalid_input', `Event ${event.providerEventId} carries no refund.`, { codes: ['INPUT_ERROR'] });
  // Only Refunds Holdfast asked for are stored (behind their refund invoice); another one is not ours.
  const stored = await findProviderObject(db, 'stripe', refund.id);
  if (stored?.objectType !== 'refund') return 'ignored';
  if (!refundSightSupersedes(stored.snapshot.status, refund.status)) return 'ignored';
  await saveProviderObject(db, { ...stored, snapshot: refund });
  return 'applied';
}
