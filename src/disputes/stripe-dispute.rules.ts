/**
 * Stripe's disputes, pure: what a `charge.dispute.*` event tells about its dispute (the notice),
 * and what a notice changes on the dispute Holdfast keeps. Stripe promises no order and may send
 * an event twice, so each notice is read as facts that only accumulate — the money was
 * withdrawn, it was reinstated, the processor decided — and the dispute moves forward to what
 * all the facts seen so far imply, never back: the same facts again change nothing, and any
 * order of the same facts ends in the same place.
 */
import { DISPUTE_REASONS, OPEN_DISPUTE_STATUSES, type DisputeFunds, type DisputeReason, type DisputeStatus } from './dispute.rules.js';

/** What a `charge.dispute.*` event says about its dispute. */
export interface StripeDisputeNotice {
  /** Stripe's dispute id (`dp_…`). */
  disputeId: string;
  /** The disputed PaymentIntent (`pi_…`), when the dispute names one. */
  paymentIntentId: string | null;
  /** The disputed Charge (`ch_…`). */
  chargeId: string | null;
  /** Minor units, as Stripe reports it. */
  amount: number;
  reason: DisputeReason;
  /** Holdfast's status for Stripe's (null: none that moves Holdfast's, such as an appeal's). */
  status: DisputeStatus | null;
  /** When the evidence is due (`evidence_details.due_by`), if Stripe gave it. */
  dueBy: Date | null;
  /** Stripe has taken the money: a `funds_withdrawn` event, or a withdrawal among the dispute's balance transactions. */
  withdrawn: boolean;
  /** Stripe has given it back: a `funds_reinstated` event, or a reinstatement among its balance transactions. */
  reinstated: boolean;
  /** An inquiry (a `warning_*` status): no money moves unless Stripe withdraws it. */
  inquiry: boolean;
}

/** The event types this reads: the dispute's life on a charge. */
export const STRIPE_DISPUTE_EVENTS = [
  'charge.dispute.created',
  'charge.dispute.updated',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
] as const;

/** Holdfast's reason for Stripe's: the six Holdfast names are Stripe's own; any other is `general`. */
export function stripeDisputeReason(reason: unknown): DisputeReason {
  return typeof reason === 'string' && (DISPUTE_REASONS as readonly string[]).includes(reason) ? (reason as DisputeReason) : 'general';
}

/**
 * Holdfast's status for Stripe's: waiting for a response (`needs_response`, an inquiry's
 * `warning_needs_response`), under review (`under_review`, `warning_under_review`), won
 * (`won`; an inquiry closed without a chargeback, `warning_closed`; a dispute `prevented`), lost
 * (`lost`). An appeal's statuses and any status Stripe adds later move nothing (null).
 */
export function stripeDisputeStatus(status: unknown): DisputeStatus | null {
  switch (status) {
    case 'needs_response':
    case 'warning_needs_response':
      return 'NEEDS_RESPONSE';
    case 'under_review':
    case 'warning_under_review':
      return 'UNDER_REVIEW';
    case 'won':
    case 'warning_closed':
    case 'prevented':
      return 'WON';
    case 'lost':
      return 'LOST';
    default:
      return null;
  }
}

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** An expandable field's id: the string itself, or the expanded object's `id`. */
const idOf = (value: unknown): string | null => {
  if (typeof value === 'string' && value) return value;
  const id = record(value)?.id;
  return typeof id === 'string' && id ? id : null;
};

/**
 * The notice an event carries, or the field at fault when its `data.object` is no dispute
 * Holdfast can read (an `id`, an integer `amount`, and the charge or PaymentIntent it disputes).
 */
export function stripeDisputeNotice(
  type: string,
  payload: Record<string, unknown>,
): { ok: true; notice: StripeDisputeNotice } | { ok: false; field: string } {
  const dispute = record(record(payload.data)?.object);
  if (dispute?.object !== 'dispute') return { ok: false, field: 'data.object' };
  if (typeof dispute.id !== 'string' || !dispute.id) return { ok: false, field: 'data.object.id' };
  const amount = dispute.amount;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) return { ok: false, field: 'data.object.amount' };
  const paymentIntentId = idOf(dispute.payment_intent);
  const chargeId = idOf(dispute.charge);
  if (!paymentIntentId && !chargeId) return { ok: false, field: 'data.object.charge' };
  const moves = Array.isArray(dispute.balance_transactions) ? dispute.balance_transactions.map((t) => Number(record(t)?.amount ?? 0)) : [];
  const dueBy = record(dispute.evidence_details)?.due_by;
  const stripeStatus = typeof dispute.status === 'string' ? dispute.status : '';
  return {
    ok: true,
    notice: {
      disputeId: dispute.id,
      paymentIntentId,
      chargeId,
      amount,
      reason: stripeDisputeReason(dispute.reason),
      status: stripeDisputeStatus(stripeStatus),
      dueBy: typeof dueBy === 'number' && Number.isFinite(dueBy) ? new Date(dueBy * 1000) : null,
      withdrawn: type === 'charge.dispute.funds_withdrawn' || type === 'charge.dispute.funds_reinstated' || moves.some((m) => m < 0),
      reinstated: type === 'charge.dispute.funds_reinstated' || moves.some((m) => m > 0),
      inquiry: stripeStatus.startsWith('warning_'),
    },
  };
}

/** What a `dispute.notice` command is told: the charge, the dispute Stripe names, and what the event says. */
export interface DisputeNoticeInput {
  integrator_id: string;
  invoice_id: string;
  payment_method_id: string;
  provider_dispute_id: string;
  status: DisputeStatus | null;
  /** ISO 8601, or null. */
  due_by: string | null;
  withdrawn: boolean;
  reinstated: boolean;
  /** The `dispute.open` submitted with it (the charge had no dispute yet), which it waits for. */
  opened_by: string | null;
}

/** The postings a change of funds makes, in order (`dispute:<id>:<phase>`). */
export type FundsPhase = 'open' | 'won' | 'lost';

/** What a notice does to a dispute: where its money goes (and the postings on the way), its status, its deadline, and a decision to submit. */
export interface NoticeChange {
  funds: DisputeFunds;
  phases: FundsPhase[];
  /** The new open status (UNDER_REVIEW after NEEDS_RESPONSE), or null: unchanged. */
  status: DisputeStatus | null;
  /** The evidence deadline Stripe gave, for a dispute still open; null: unchanged. */
  dueBy: Date | null;
  /** The processor decided: `dispute.close` is submitted with this outcome (null: nothing to decide). */
  close: 'WON' | 'LOST' | null;
}

const PHASES: Record<DisputeFunds, Partial<Record<DisputeFunds, FundsPhase[]>>> = {
  none: { withdrawn: ['open'], reinstated: ['open', 'won'], lost: ['open', 'lost'] },
  withdrawn: { reinstated: ['won'], lost: ['lost'] },
  reinstated: {},
  lost: {},
};

/**
 * What a notice changes on a dispute as it is now (its status, where its money is, its amount
 * and fee). Funds move forward only: none → withdrawn when Stripe took the money (the opening:
 * amount and fee); → reinstated when Stripe gave it back, or took it from a dispute already WON
 * (a won dispute's money comes back); → lost when Stripe took it from a dispute already LOST.
 * Reinstated and lost are final. The decision itself (WON, LOST on an open dispute) is
 * `dispute.close`'s, which moves withdrawn money as the sandbox's close does. A dispute of
 * nothing (amount and fee 0) moves nothing; one of amount 0 moves its fee only.
 */
export function noticeChange(
  d: { status: DisputeStatus; funds: DisputeFunds; amount: number; fee: number; evidenceDueBy: Date },
  n: Pick<StripeDisputeNotice, 'status' | 'dueBy' | 'withdrawn' | 'reinstated'>,
): NoticeChange {
  const open = OPEN_DISPUTE_STATUSES.includes(d.status);
  let funds = d.funds;
  if (d.amount + d.fee > 0 && (d.funds === 'none' || d.funds === 'withdrawn')) {
    const withdrawn = d.funds === 'withdrawn' || n.withdrawn || n.reinstated;
    if (withdrawn) funds = 'withdrawn';
    // The amount, not the fee, comes back or is lost: a dispute of 0 keeps its fee withdrawn.
    if (withdrawn && d.amount > 0) {
      if (n.reinstated || d.status === 'WON') funds = 'reinstated';
      else if (d.status === 'LOST') funds = 'lost';
    }
  }
  const phases = PHASES[d.funds][funds] ?? [];
  const status = open && n.status === 'UNDER_REVIEW' && d.status === 'NEEDS_RESPONSE' ? 'UNDER_REVIEW' : null;
  const close = open && (n.status === 'WON' || n.status === 'LOST') ? n.status : null;
  const dueBy = open && n.dueBy && n.dueBy.getTime() !== d.evidenceDueBy.getTime() ? n.dueBy : null;
  return { funds, phases, status, dueBy, close };
}

/** Whether a notice changes anything of a dispute. */
export function noticeChanges(c: NoticeChange, funds: DisputeFunds): boolean {
  return c.funds !== funds || c.status !== null || c.dueBy !== null || c.close !== null;
}

/** Seconds from `now` to a due date (at least 0): how `dispute.open` is told the deadline. */
export function secondsUntil(dueBy: Date | null, now: Date, fallbackSeconds: number): number {
  if (!dueBy) return fallbackSeconds;
  return Math.max(Math.round((dueBy.getTime() - now.getTime()) / 1000), 0);
}
