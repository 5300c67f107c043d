/**
 * Stripe's `charge.dispute.*` events (`created`, `updated`, `closed`, `funds_withdrawn`,
 * `funds_reinstated`), as the provider-event inbox hands them over, in the event's command
 * transaction. The disputed charge is the stored PaymentIntent the dispute names (or whose
 * latest Charge it names), which stands behind `invoice:<invoice id>:charge:<payment method id>`.
 *
 * A dispute Stripe reports is recorded as it arrives, whatever event comes first: when the
 * charge has no dispute yet, `dispute.open` is submitted from the event's own dispute object
 * (its amount, reason and evidence deadline; the money moved at once when the object says
 * Stripe took it). Every event also submits a `dispute.notice` with what it says
 * (`stripe-dispute.rules.ts`), which moves the dispute forward once it exists: the funds events move the money, `closed` submits the decision
 * (`dispute.close`). Both commands are named in the answer's `next` for the worker. A dispute
 * of a charge Holdfast did not make is `ignored`; an event without a readable dispute is
 * refused (`failed`). An inquiry (`warning_*`) is told apart in both commands: it moves nothing
 * until Stripe escalates it. Each event's dispute object is also kept as Stripe's last word
 * (`provider_object`, behind the charge's dispute ref, the furthest along of those seen), which
 * `ledger verify` compares the dispute with.
 */
import { submitCommand } from '../commands/command.service.js';
import type { CommandKind } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { disputeRef } from '../rails/card-processor.port.js';
import { findProviderObject, paymentIntentOfCharge, saveProviderObjectUnlessBehind } from '../rails/provider-object.repository.js';
import { readClock } from '../sandbox/sandbox.repository.js';
import { disputeByProviderId, disputeOfCharge } from './dispute.repository.js';
import type { OpenDisputeInput } from './dispute.service.js';
import { secondsUntil, stripeDisputeNotice, stripeDisputeRank, type DisputeNoticeInput } from './stripe-dispute.rules.js';

/** What this handler reads of a stored provider event (the provider-events module's record, restated: this module does not import that one). */
export interface StripeDisputeEvent {
  providerEventId: string;
  type: string;
  payload: Record<string, unknown>;
}

/** The handler's answer, structurally the inbox's `HandlerAnswer`. */
type Answer = 'ignored' | { outcome: 'applied'; next: Array<{ commandId: string; kind: CommandKind }> };

/** When Stripe gives no deadline: the sandbox's seven days (Stripe's own are 7 to 21 days). */
const DEFAULT_DUE_SECONDS = 7 * 24 * 3600;

const CHARGE_REF = /^invoice:([^:]+):charge:([^:]+)$/;

/** Applies one `charge.dispute.*` event; see the file's header. */
export async function applyStripeDisputeEvent(db: Db, event: StripeDisputeEvent): Promise<Answer> {
  const parsed = stripeDisputeNotice(event.type, event.payload);
  if (!parsed.ok)
    throw AppError.invalid(
      { [parsed.field]: ['INVALID_VALUE'] },
      `Event ${event.providerEventId} carries no Stripe dispute (${parsed.field}).`,
    );
  const notice = parsed.notice;
  const intent =
    (notice.paymentIntentId ? await findProviderObject(db, 'stripe', notice.paymentIntentId) : undefined) ??
    (notice.chargeId ? await paymentIntentOfCharge(db, 'stripe', notice.chargeId) : undefined);
  const charge = intent?.objectType === 'payment_intent' ? CHARGE_REF.exec(intent.holdfastRef) : null;
  if (!intent?.integratorId || !charge) return 'ignored';
  const [, invoiceId, paymentMethodId] = charge as unknown as [string, string, string];
  const integratorId = intent.integratorId;
  // Stripe's last word on the dispute (the furthest along of the objects seen), for `ledger verify`
  // and operators: behind the charge's dispute ref, which names the charge, not a Holdfast id.
  await saveProviderObjectUnlessBehind(
    db,
    {
      provider: 'stripe',
      objectId: notice.disputeId,
      objectType: 'dispute',
      integratorId,
      holdfastRef: disputeRef(invoiceId, paymentMethodId),
      snapshot: (event.payload.data as { object: Record<string, unknown> }).object,
    },
    stripeDisputeRank,
  );

  const existing = (await disputeByProviderId(db, notice.disputeId)) ?? (await disputeOfCharge(db, invoiceId, paymentMethodId));
  const next: Array<{ commandId: string; kind: CommandKind }> = [];
  let target = existing?.id;
  let openedBy: string | null = null;
  if (!existing) {
    target = newId('dsp');
    const { now } = await readClock(db, integratorId);
    const open: OpenDisputeInput = {
      integrator_id: integratorId,
      invoice_id: invoiceId,
      payment_method_id: paymentMethodId,
      amount: notice.amount,
      reason: notice.reason,
      provider: 'stripe',
      provider_dispute_id: notice.disputeId,
      withdrawn: notice.withdrawn,
      due_in_seconds: secondsUntil(notice.dueBy, now, DEFAULT_DUE_SECONDS),
      inquiry: notice.inquiry,
    };
    openedBy = await submitCommand(db, { integratorId, kind: 'dispute.open', targetId: target, input: { ...open } });
    next.push({ commandId: openedBy, kind: 'dispute.open' });
  }
  // Every event is also a notice: after an opening, it sets Stripe's deadline to the second
  // (the opening counts it from "now") and applies what the event says beyond "opened".
  {
    const input: DisputeNoticeInput = {
      integrator_id: integratorId,
      invoice_id: invoiceId,
      payment_method_id: paymentMethodId,
      provider_dispute_id: notice.disputeId,
      status: notice.status,
      due_by: notice.dueBy ? notice.dueBy.toISOString() : null,
      withdrawn: notice.withdrawn,
      reinstated: notice.reinstated,
      inquiry: notice.inquiry,
      opened_by: openedBy,
    };
    const commandId = await submitCommand(db, {
      integratorId,
      kind: 'dispute.notice',
      targetId: target!,
      input: { ...input },
      inputKey: event.providerEventId,
    });
    next.push({ commandId, kind: 'dispute.notice' });
  }
  return { outcome: 'applied', next };
}
