/**
 * Stripe's events about a PaymentIntent that settle a buyer-present card pay awaiting 3-D Secure
 * (`payment_intent.amount_capturable_updated`, `.succeeded`, `.payment_failed`, `.canceled`), as
 * the provider-event inbox hands them over. The event only says "look again": for an invoice
 * still PROCESSING its `invoice.confirm` command is submitted (in the event's transaction, run
 * next by the worker), which reads the PaymentIntent as Stripe has it now and settles the
 * invoice once. An event about any other intent, or an invoice already decided, changes nothing.
 */
import { submitCommand } from '../commands/command.service.js';
import type { Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { findProviderObject } from '../rails/provider-object.repository.js';
import { readInvoice } from './invoice.repository.js';

/** What this handler reads of a stored provider event (declared here to import nothing of the provider-events module). */
export interface StripeIntentEvent {
  providerEventId: string;
  type: string;
  payload: Record<string, unknown>;
}

type Answer = 'ignored' | { outcome: 'applied'; next: Array<{ commandId: string; kind: 'invoice.confirm' }> };

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Submits the `invoice.confirm` of the PROCESSING invoice whose card charge the event's PaymentIntent is; else `ignored`. */
export async function applyPaymentIntentEvent(db: Db, event: StripeIntentEvent): Promise<Answer> {
  const intent = record(record(event.payload.data)?.object);
  if (!intent || typeof intent.id !== 'string' || intent.object !== 'payment_intent')
    throw new AppError('invalid_input', `Event ${event.providerEventId} carries no payment intent.`, { codes: ['INPUT_ERROR'] });
  // Only intents Holdfast created are stored, behind the charge they stand for: the event's own metadata is not trusted.
  const stored = await findProviderObject(db, 'stripe', intent.id);
  const invoiceId = stored?.objectType === 'payment_intent' ? /^invoice:([^:]+):charge:/.exec(stored.holdfastRef)?.[1] : undefined;
  if (!invoiceId) return 'ignored';
  const invoice = await readInvoice(db, invoiceId);
  if (invoice?.state !== 'PROCESSING' || invoice.escrowId !== null) return 'ignored';
  const commandId = await submitCommand(db, { integratorId: invoice.integratorId, kind: 'invoice.confirm', targetId: invoice.id });
  return { outcome: 'applied', next: [{ commandId, kind: 'invoice.confirm' }] };
}
