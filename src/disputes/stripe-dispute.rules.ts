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
  /** Stripe's status is an inquiry's (`warning_*`); absent in notices stored before inquiries were told apart: false. */
  inquiry?: boolean;
  /** The `dispute.open` submitted with it (the charge had no dispute yet), which it waits for. */
  opened_by: string | null;
}

/** The postings a change of funds makes, in order (`dispute:<id>:<phase>`). */
export type FundsPhase = 'open' | 'won' | 'lost';

/** What a notice does to a dispute: where its money goes (and the postings on the way), its status, its deadline, and a decision to submit. */
export interface NoticeChange {
  funds: DisputeFunds;
  phases: FundsPhase[];
  /** The new open status (UNDER_REVIEW after NEEDS_RESPONSE; NEEDS_RESPONSE again when an inquiry escalates), or null: unchanged. */
  status: DisputeStatus | null;
  /** The evidence deadline Stripe gave, for a dispute still open; null: unchanged. */
  dueBy: Date | null;
  /** The processor decided: `dispute.close` is submitted with this outcome (null: nothing to decide). */
  close: 'WON' | 'LOST' | null;
  /** An inquiry became a chargeback with this notice (the dispute is no longer `inquiry`). */
  escalated: boolean;
}

const PHASES: Record<DisputeFunds, Partial<Record<DisputeFunds, FundsPhase[]>>> = {
  none: { withdrawn: ['open'], reinstated: ['open', 'won'], lost: ['open', 'lost'] },
  withdrawn: { reinstated: ['won'], lost: ['lost'] },
  reinstated: {},
  lost: {},
};

/**
 * What a notice changes on a dispute as it is now (its status, where its money is, its amount
 * and fee, whether it is still an inquiry). Funds move forward only: none → withdrawn when
 * Stripe took the money (the opening: amount and fee); → reinstated when Stripe gave it back, or
 * took it from a dispute already WON (a won dispute's money comes back); → lost when Stripe took
 * it from a dispute already LOST. Reinstated and lost are final. The decision itself (WON, LOST
 * on an open dispute) is `dispute.close`'s, which moves withdrawn money as the sandbox's close
 * does. A dispute of nothing (amount and fee 0) moves nothing; one of amount 0 moves its fee only.
 *
 * Inquiries: an inquiry (`warning_*`) withdraws nothing, and `warning_closed` decides it WON with
 * nothing moved. Stripe escalates an inquiry on the same dispute object (`needs_response`, then
 * `funds_withdrawn`): the first chargeback notice on an open inquiry escalates it — from then on
 * it is a chargeback, and the one step back the rules allow is its own: an inquiry whose evidence
 * was submitted (UNDER_REVIEW) needs a response again when the chargeback does. An inquiry's
 * notice arriving after the escalation is stale: its status and deadline change nothing.
 */
export function noticeChange(
  d: { status: DisputeStatus; funds: DisputeFunds; amount: number; fee: number; evidenceDueBy: Date; inquiry?: boolean },
  n: Pick<StripeDisputeNotice, 'status' | 'dueBy' | 'withdrawn' | 'reinstated'> & { inquiry?: boolean },
): NoticeChange {
  const open = OPEN_DISPUTE_STATUSES.includes(d.status);
  const chargebackNotice = !n.inquiry && (n.status !== null || n.withdrawn || n.reinstated);
  const escalated = !!d.inquiry && open && chargebackNotice;
  // An inquiry's word on a chargeback is stale (it came late): only the money facts count.
  const stale = !d.inquiry && !!n.inquiry;
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
  const said = stale ? null : n.status;
  const status =
    open && said === 'UNDER_REVIEW' && d.status === 'NEEDS_RESPONSE'
      ? 'UNDER_REVIEW'
      : escalated && said === 'NEEDS_RESPONSE' && d.status === 'UNDER_REVIEW'
        ? 'NEEDS_RESPONSE'
        : null;
  const close = open && (said === 'WON' || said === 'LOST') ? said : null;
  const dueBy = open && !stale && n.dueBy && n.dueBy.getTime() !== d.evidenceDueBy.getTime() ? n.dueBy : null;
  return { funds, phases, status, dueBy, close, escalated };
}

/** Whether a notice changes anything of a dispute. */
export function noticeChanges(c: NoticeChange, funds: DisputeFunds): boolean {
  return c.funds !== funds || c.status !== null || c.dueBy !== null || c.close !== null || c.escalated;
}

/**
 * How far along Stripe's life a dispute object is, to keep the furthest one seen (events come in
 * any order): its status (an inquiry's, then a chargeback's, then a decision), then how many
 * balance transactions it carries (a withdrawal, then its reinstatement). A sight ranked at
 * least as far as the one stored replaces it; a status Stripe adds later ranks with the open ones.
 */
export function stripeDisputeRank(snapshot: Record<string, unknown>): number {
  const STATUS_RANK: Record<string, number> = {
    warning_needs_response: 1,
    warning_under_review: 2,
    needs_response: 3,
    under_review: 4,
    warning_closed: 5,
    won: 5,
    lost: 5,
    prevented: 5,
  };
  const status = STATUS_RANK[String(snapshot.status)] ?? 3;
  const moves = Array.isArray(snapshot.balance_transactions) ? Math.min(snapshot.balance_transactions.length, 9) : 0;
  return status * 10 + moves;
}

/** A dispute as `ledger verify` compares it with Stripe's last word. */
export interface DisputeAgainstStripe {
  id: string;
  providerDisputeId: string | null;
  reportedAmount: number;
  currency: string;
  status: DisputeStatus;
  funds: DisputeFunds;
}

/** A stored Stripe object as the check reads it (the rails repository's record, in part). */
export interface StoredStripeObject {
  objectId: string;
  objectType: string;
  snapshot: Record<string, unknown>;
}

/**
 * The problems of a Stripe dispute against the Stripe objects stored behind its charge's dispute
 * ref (`stored`, `dispute` objects) and the charge's PaymentIntent (`intent`): its Stripe dispute
 * stored, no other Stripe dispute on the charge, Stripe's amount its `reported_amount`, the same
 * currency, the same charge, Stripe's decision (or its being open) its status, and Stripe's
 * withdrawal and reinstatement where its money is. Pure; an empty list when they agree.
 */
export function stripeDisputeMismatches(d: DisputeAgainstStripe, stored: StoredStripeObject[], intent?: StoredStripeObject): string[] {
  const what = `dispute ${d.id} (Stripe ${d.providerDisputeId ?? 'none'})`;
  const disputes = stored.filter((o) => o.objectType === 'dispute');
  const others = disputes.filter((o) => o.objectId !== d.providerDisputeId).map((o) => o.objectId);
  const problems: string[] = [];
  if (others.length) problems.push(`${what}: Stripe reports another dispute of its charge, ${others.join(', ')}`);
  const own = disputes.find((o) => o.objectId === d.providerDisputeId);
  if (!own) return [...problems, `${what} has no stored Stripe dispute`];
  const s = own.snapshot;
  if (Number(s.amount) !== d.reportedAmount) problems.push(`${what}: Stripe reports ${String(s.amount)}, Holdfast ${d.reportedAmount}`);
  if (String(s.currency ?? '').toUpperCase() !== d.currency.toUpperCase())
    problems.push(`${what}: Stripe's currency is ${String(s.currency)}, Holdfast's ${d.currency}`);
  const pi = typeof s.payment_intent === 'string' ? s.payment_intent : null;
  const charge = typeof s.charge === 'string' ? s.charge : null;
  if (intent && ((pi && pi !== intent.objectId) || (!pi && charge && charge !== intent.snapshot.latest_charge)))
    problems.push(`${what}: Stripe disputes ${pi ?? charge}, not its charge's PaymentIntent ${intent.objectId}`);
  const stripeStatus = stripeDisputeStatus(s.status);
  const open = OPEN_DISPUTE_STATUSES.includes(d.status);
  if (stripeStatus && (OPEN_DISPUTE_STATUSES.includes(stripeStatus) ? !open : stripeStatus !== d.status))
    problems.push(`${what}: Stripe says ${String(s.status)}, Holdfast's is ${d.status}`);
  const moves = Array.isArray(s.balance_transactions) ? s.balance_transactions.map((t) => Number(record(t)?.amount ?? 0)) : [];
  if (moves.some((m) => m < 0) && d.funds === 'none') problems.push(`${what}: Stripe withdrew its funds, Holdfast moved nothing`);
  if (moves.some((m) => m > 0) && d.funds === 'withdrawn') problems.push(`${what}: Stripe reinstated its funds, Holdfast holds them`);
  return problems;
}

/** Seconds from `now` to a due date (at least 0): how `dispute.open` is told the deadline. */
export function secondsUntil(dueBy: Date | null, now: Date, fallbackSeconds: number): number {
  if (!dueBy) return fallbackSeconds;
  return Math.max(Math.round((dueBy.getTime() - now.getTime()) / 1000), 0);
}
