/**
 * Dispute rules (pure): a dispute's states and which move each allows, the evidence it takes,
 * how much of a charge can be disputed, the postings of its life, and its view and events.
 */
import type { EntryInput } from '../ledger/ledger.rules.js';

/** A posting as the ledger's `post` takes it. */
export interface Posting {
  integratorId: string;
  reference: string;
  description: string;
  entries: EntryInput[];
}

export const DISPUTE_REASONS = [
  'fraudulent',
  'product_not_received',
  'duplicate',
  'subscription_canceled',
  'unrecognized',
  'general',
] as const;
export type DisputeReason = (typeof DISPUTE_REASONS)[number];

export const DISPUTE_STATUSES = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** An open dispute: the processor has not decided it. */
export const OPEN_DISPUTE_STATUSES: readonly DisputeStatus[] = ['NEEDS_RESPONSE', 'UNDER_REVIEW'];

/**
 * Where the disputed money is: not moved (an inquiry, or a Stripe dispute before its funds are
 * withdrawn), withdrawn (in `dispute_holding`), back in the integrator's wallet, or lost.
 */
export type DisputeFunds = 'none' | 'withdrawn' | 'reinstated' | 'lost';

/**
 * What an operator should look at on a dispute: the processor reported more than the charge
 * still had in Holdfast (`CAPPED`: refunded, an escrow cancel gave it back, or nothing paid), or
 * Holdfast has no paid card charge of a purchase behind the notice (`NOT_A_PAID_CHARGE`: its
 * invoice is not a SUCCESS purchase paid by that card) — both set when it opens; either way the
 * notice is recorded as it came (`reported_amount`) and no more than `amount` moves. Later, the
 * processor reported a second dispute of the same charge (`SECOND_PROVIDER_DISPUTE`: Holdfast
 * keeps one per charge; the second moves nothing, its object is stored and `ledger verify`
 * names it).
 */
export const DISPUTE_FLAGS = ['CAPPED', 'NOT_A_PAID_CHARGE', 'SECOND_PROVIDER_DISPUTE'] as const;
export type DisputeFlag = (typeof DISPUTE_FLAGS)[number];

/** The flags of a dispute as it opens: whether a paid card charge stands behind it, and whether its amount was capped. */
export function openingFlags(o: { paidCharge: boolean; capped: boolean }): DisputeFlag[] {
  const flags: DisputeFlag[] = [];
  if (o.capped) flags.push('CAPPED');
  if (!o.paidCharge) flags.push('NOT_A_PAID_CHARGE');
  return flags;
}

/** Who reports the dispute: the sandbox card rail, or Stripe's webhooks. */
export type DisputeProvider = 'sandbox' | 'stripe';

/** The evidence fields, those Stripe also takes as text. */
export const EVIDENCE_FIELDS = [
  'product_description',
  'uncategorized_text',
  'access_activity_log',
  'refund_policy_disclosure',
  'cancellation_rebuttal',
  'customer_email_address',
  'service_date',
] as const;
export type EvidenceField = (typeof EVIDENCE_FIELDS)[number];
export type Evidence = Partial<Record<EvidenceField, string>>;

/** At most this many characters in one evidence field, and in all of them together (Stripe's limits). */
export const EVIDENCE_FIELD_MAX = 20_000;
export const EVIDENCE_TOTAL_MAX = 150_000;

/** A sandbox card 4000000000000259 charge is disputed this long after it was made (on the integrator's test clock). */
export const SANDBOX_DISPUTE_DELAY_SECONDS = 24 * 3600;

/** How long a sandbox dispute waits for evidence before it is LOST (on the integrator's test clock). */
export const SANDBOX_EVIDENCE_WINDOW_SECONDS = 7 * 24 * 3600;

/** The invoice types a dispute can belong to: the purchases (standard, authorized, token purchase, an escrow's invoice). */
export function isDisputablePurchase(invoiceType: string): boolean {
  return /^(user_purchase(_virtual)?|user_purchase_escrow(_virtual)?|token_purchase)$/.test(invoiceType);
}

/** A dispute as stored. */
export interface DisputeRecord {
  id: string;
  integratorId: string;
  invoiceId: string;
  paymentMethodId: string;
  accountId: string;
  /** What is disputed (minor units): what the processor reported, within what the charge still had. */
  amount: number;
  /** What the processor reported; more than `amount` when part of the charge had been refunded already. */
  reportedAmount: number;
  currency: string;
  reason: DisputeReason;
  status: DisputeStatus;
  evidenceDueBy: Date;
  evidence: Evidence;
  evidenceSubmittedAt: Date | null;
  fee: number;
  funds: DisputeFunds;
  unrecovered: Record<string, number>;
  provider: DisputeProvider;
  providerDisputeId: string | null;
  /** What an operator should look at (`DISPUTE_FLAGS`); empty for most. */
  flags: DisputeFlag[];
  /** A Stripe inquiry (`warning_*`) not escalated to a chargeback: no money is taken unless it escalates. */
  inquiry: boolean;
  createdAt: Date;
  updatedAt: Date;
  closedAt: Date | null;
}

/** How traced value reached where it is: the purchase itself, an escrow, a conversion, a payout. */
export type TracedVia = 'purchase' | 'escrow' | 'conversion' | 'payout';

/** Where traced value is: still in a wallet (held), paid out, waiting in an escrow or in a payout. */
export type TracedState = 'in_wallet' | 'paid_out' | 'escrowed' | 'payout_waiting';

/** Where part of the disputed value went (the trace), and what is held, was released or clawed back of it. */
export interface DisputeHold {
  id: string;
  disputeId: string;
  integratorId: string;
  accountId: string;
  /** The wallet's ledger account; '' for value waiting in an escrow paid by card. */
  walletId: string;
  currency: string;
  amount: number;
  held: number;
  released: number;
  clawedBack: number;
  via: TracedVia;
  referenceId: string;
  state: TracedState;
}

/** A traced value as the API shows it. */
export function tracedView(h: DisputeHold) {
  return {
    account_id: h.accountId,
    wallet_id: h.walletId,
    currency: h.currency,
    amount: h.amount,
    held: h.held,
    released: h.released,
    clawed_back: h.clawedBack,
    via: h.via,
    reference_id: h.referenceId,
    state: h.state,
  };
}

/** What the trace found that LOST could not claw back, per currency: value that left (paid out) or was never held. */
export function unrecoveredOf(holds: readonly DisputeHold[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const h of holds) {
    const rest = h.amount - h.clawedBack;
    if (rest > 0) out[h.currency] = (out[h.currency] ?? 0) + rest;
  }
  return out;
}

/**
 * The evidence fields at fault: each over `EVIDENCE_FIELD_MAX` (`TOO_LONG`). Seven fields at
 * that limit make 140,000 characters, within Stripe's 150,000 for all of them together
 * (`EVIDENCE_TOTAL_MAX`): the one limit keeps both.
 */
export function evidenceProblems(sent: Evidence): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  for (const field of EVIDENCE_FIELDS) {
    const text = sent[field];
    if (text !== undefined && text.length > EVIDENCE_FIELD_MAX) problems[field] = ['TOO_LONG'];
  }
  return problems;
}

/** The evidence after a save: the fields sent replace those saved (an empty string clears one). */
export function mergedEvidence(saved: Evidence, sent: Evidence): Evidence {
  const out: Evidence = { ...saved };
  for (const field of EVIDENCE_FIELDS) {
    const text = sent[field];
    if (text === undefined) continue;
    if (text === '') delete out[field];
    else out[field] = text;
  }
  return out;
}

/** Evidence can be saved (and submitted) only while the dispute needs a response. */
export function canTakeEvidence(status: DisputeStatus): boolean {
  return status === 'NEEDS_RESPONSE';
}

/** What a close does: decide an open dispute, answer one already decided the same way, or refuse the other outcome. */
export function closeDecision(status: DisputeStatus, outcome: 'WON' | 'LOST'): 'close' | 'answer' | 'refuse' {
  if (OPEN_DISPUTE_STATUSES.includes(status)) return 'close';
  return status === outcome ? 'answer' : 'refuse';
}

/**
 * How much of a charge a processor's notice disputes: what it reported, within what the charge
 * still has (what was refunded is no longer the processor's to take). `capped`: it reported more.
 */
export function disputedAmount(reported: number, left: number): { amount: number; capped: boolean } {
  const amount = Math.max(Math.min(reported, left), 0);
  return { amount, capped: amount < reported };
}

/** The ledger accounts a dispute's postings use. */
export interface DisputeAccounts {
  /** The integrator's default wallet in the dispute's currency. */
  wallet: string;
  holding: string;
  fees: string;
  losses: string;
}

/** The processor took the money: the amount to holding and the fee to fees, both from the integrator's wallet (which may go below zero). */
export function openPosting(d: Pick<DisputeRecord, 'id' | 'integratorId' | 'amount' | 'fee' | 'currency'>, a: DisputeAccounts): Posting {
  const entries: EntryInput[] = [{ account: a.wallet, currency: d.currency, amount: -(d.amount + d.fee) }];
  if (d.amount > 0) entries.push({ account: a.holding, currency: d.currency, amount: d.amount });
  if (d.fee > 0) entries.push({ account: a.fees, currency: d.currency, amount: d.fee });
  return { integratorId: d.integratorId, reference: `dispute:${d.id}:open`, description: `dispute ${d.id} opened`, entries };
}

/** WON: the amount comes back from holding to the integrator's wallet (the fee stays). */
export function wonPosting(d: Pick<DisputeRecord, 'id' | 'integratorId' | 'amount' | 'currency'>, a: DisputeAccounts): Posting {
  return {
    integratorId: d.integratorId,
    reference: `dispute:${d.id}:won`,
    description: `dispute ${d.id} won`,
    entries: [
      { account: a.holding, currency: d.currency, amount: -d.amount },
      { account: a.wallet, currency: d.currency, amount: d.amount },
    ],
  };
}

/** LOST: the amount leaves holding for losses. */
export function lostPosting(d: Pick<DisputeRecord, 'id' | 'integratorId' | 'amount' | 'currency'>, a: DisputeAccounts): Posting {
  return {
    integratorId: d.integratorId,
    reference: `dispute:${d.id}:lost`,
    description: `dispute ${d.id} lost`,
    entries: [
      { account: a.holding, currency: d.currency, amount: -d.amount },
      { account: a.losses, currency: d.currency, amount: d.amount },
    ],
  };
}

/** The funds after a close: withdrawn money comes back (WON) or is lost (LOST); none withdrawn stays none. */
export function fundsAfterClose(funds: DisputeFunds, outcome: 'WON' | 'LOST'): DisputeFunds {
  if (funds !== 'withdrawn') return funds;
  return outcome === 'WON' ? 'reinstated' : 'lost';
}

/** A dispute as the API shows it. */
export function disputeView(d: DisputeRecord, holds: readonly DisputeHold[] = []) {
  return {
    dispute_id: d.id,
    invoice_id: d.invoiceId,
    payment_method_id: d.paymentMethodId,
    account_id: d.accountId,
    amount: d.amount,
    reported_amount: d.reportedAmount,
    currency: d.currency,
    reason: d.reason,
    status: d.status,
    evidence_due_by: d.evidenceDueBy.toISOString(),
    evidence: d.evidence,
    evidence_submitted: d.evidenceSubmittedAt ? d.evidenceSubmittedAt.toISOString() : null,
    fee: d.fee,
    funds: d.funds,
    traced: holds.map(tracedView),
    unrecovered: d.unrecovered,
    provider: d.provider,
    provider_dispute_id: d.providerDisputeId,
    inquiry: d.inquiry,
    flags: d.flags,
    created: d.createdAt.toISOString(),
    updated: d.updatedAt.toISOString(),
    closed: d.closedAt ? d.closedAt.toISOString() : null,
  };
}
export type DisputeView = ReturnType<typeof disputeView>;
