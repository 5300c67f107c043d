/**
 * Payout rules (pure): the states of a payout and which move each allows, automatic approval,
 * the attempts at the payout rail and how the rail's outcomes settle a payout, and the payout's
 * view and event.
 */

export const PAYOUT_STATUSES = [
  'FUNDS-IN-ESCROW',
  'PROCESSING',
  'SUCCESS',
  'FAILED',
  'RETURNED',
  'USER-REVERSED',
  'SUPPORT-REVERSED',
] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * Open payouts hold their money (payout holding) and count against the integrator's limit:
 * waiting for approval, sent to the rail and not yet settled, or failed (held for the operator).
 */
export const OPEN_STATUSES: readonly PayoutStatus[] = ['FUNDS-IN-ESCROW', 'PROCESSING', 'FAILED'];

/** How an execution was asked for: automatic approval, the operator's approval (or retry), the staging shortcut. */
export type ExecuteMode = 'auto' | 'approve' | 'staging';

/** Who reverses a payout: the user or the integrator (DELETE), or support (`holdfast payouts reject`). */
export type ReverseBy = 'user' | 'support';

/** The status a reversal ends in. */
export function reversedStatus(by: ReverseBy): PayoutStatus {
  return by === 'user' ? 'USER-REVERSED' : 'SUPPORT-REVERSED';
}

/**
 * Whether a payout in `status` may be executed now: approval executes one in FUNDS-IN-ESCROW
 * and retries a FAILED one; the staging shortcut (approve and execute at once) only the first.
 */
export function canExecute(status: PayoutStatus, mode: ExecuteMode): boolean {
  if (mode === 'staging' || mode === 'auto') return status === 'FUNDS-IN-ESCROW';
  return status === 'FUNDS-IN-ESCROW' || status === 'FAILED';
}

/**
 * Whether a payout in `status` may be reversed (its money goes back to the wallet): not once it
 * is PROCESSING, since the rail may pay it whatever Holdfast does then.
 */
export function canReverse(status: PayoutStatus): boolean {
  return status === 'FUNDS-IN-ESCROW' || status === 'FAILED';
}

/** Payouts at or under the integrator's `payout_auto_approve_max` need no operator (0: every payout does). */
export function autoApproved(amount: number, autoApproveMax: number): boolean {
  return amount <= autoApproveMax;
}

/**
 * An attempt's `sender_batch_id` at the rail, `<payout id>-<attempt>`: the same for every call
 * of one attempt (PayPal refuses a repeat, so a call made again cannot pay twice), the next for
 * a new attempt after a FAILED one.
 */
export function senderBatchId(payoutId: string, attempt: number): string {
  return `${payoutId}-${attempt}`;
}

/** The payout id and attempt a `sender_batch_id` names, or undefined when it is not one of ours. */
export function parseSenderBatchId(value: string): { payoutId: string; attempt: number } | undefined {
  const match = /^(po_[0-9A-Za-z]+)-([1-9][0-9]{0,8})$/.exec(value);
  return match ? { payoutId: match[1]!, attempt: Number(match[2]) } : undefined;
}

/** What the rail reports about an attempt (PayPal's payout item statuses that settle or keep a payout). */
export const RAIL_OUTCOMES = ['SUCCEEDED', 'FAILED', 'BLOCKED', 'DENIED', 'RETURNED', 'UNCLAIMED'] as const;
export type RailOutcome = (typeof RAIL_OUTCOMES)[number];

/**
 * The outcome a provider's status names: one of `RAIL_OUTCOMES` (any case), or `SUCCESS`, PayPal's
 * `transaction_status` for what its webhook calls SUCCEEDED; undefined for a status that neither
 * settles nor keeps a payout (PENDING, ONHOLD…: the payout stays as it is).
 */
export function railOutcomeOf(status: string): RailOutcome | undefined {
  const named = status.toUpperCase();
  if (named === 'SUCCESS') return 'SUCCEEDED';
  return (RAIL_OUTCOMES as readonly string[]).includes(named) ? (named as RailOutcome) : undefined;
}

/**
 * The status a PROCESSING payout takes on an outcome: SUCCEEDED pays it (SUCCESS); FAILED,
 * BLOCKED and DENIED leave it held for the operator (FAILED); RETURNED gives the money back
 * (RETURNED); UNCLAIMED keeps it PROCESSING until the rail pays or returns it.
 */
export function outcomeStatus(outcome: RailOutcome): 'SUCCESS' | 'FAILED' | 'RETURNED' | 'PROCESSING' {
  switch (outcome) {
    case 'SUCCEEDED':
      return 'SUCCESS';
    case 'RETURNED':
      return 'RETURNED';
    case 'UNCLAIMED':
      return 'PROCESSING';
    default:
      return 'FAILED';
  }
}

/**
 * Whether an outcome for `attempt` moves the payout: only a PROCESSING payout, and only for the
 * attempt it is on. Every other outcome is a no-op — a duplicate, one of an older attempt (a new
 * attempt after a FAILED one has its own `sender_batch_id`), one arriving after the payout was
 * settled (the first settling outcome of an attempt wins: a SUCCEEDED after RETURNED moves
 * nothing) — so outcomes may arrive in any order, any number of times, and money moves once.
 */
export function outcomeApplies(payout: { status: PayoutStatus; attempt: number }, attempt: number): boolean {
  return payout.status === 'PROCESSING' && payout.attempt === attempt;
}

/** The failure code and reason a FAILED, BLOCKED or DENIED outcome leaves when the rail gave none. */
export function outcomeFailure(outcome: RailOutcome, code?: string | null, reason?: string | null): { code: string; reason: string } {
  return {
    code: (code || `payout_${outcome.toLowerCase()}`).slice(0, 64),
    reason: (reason || `The payout rail reported the payout ${outcome}.`).slice(0, 200),
  };
}

/** A payout as stored. */
export interface PayoutRecord {
  id: string;
  integratorId: string;
  accountId: string;
  status: PayoutStatus;
  amount: number;
  currency: string;
  sourcePaymentMethodId: string;
  destinationPaymentMethodId: string;
  tokenExchangeId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  /** The attempts made at the rail so far: 0 before the first execution. */
  attempt: number;
  /** The `payout.execute` command that owns the current attempt (null before the first). */
  attemptCommandId: string | null;
  /** The rail's ids of the current attempt's batch and item, once it gave them. */
  providerBatchId: string | null;
  providerItemId: string | null;
  /** What the rail last reported of the current attempt (`PROCESSING`, `UNCLAIMED`, `SUCCEEDED`…). */
  providerStatus: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The payout as the API shows it. */
export function payoutView(p: PayoutRecord) {
  return {
    payout_status_id: p.id,
    account_id: p.accountId,
    payout_status: p.status,
    amount: p.amount,
    currency: p.currency,
    source_payment_method_id: p.sourcePaymentMethodId,
    destination_payment_method_id: p.destinationPaymentMethodId,
    token_exchange_id: p.tokenExchangeId,
    failure_code: p.failureCode ?? '',
    failure_reason: p.failureReason ?? '',
    created: p.createdAt.toISOString(),
    updated: p.updatedAt.toISOString(),
  };
}

/** The `payout-complete` event of a payout's state change. */
export function payoutEvent(p: PayoutRecord) {
  return {
    payout_status_id: p.id,
    account_id: p.accountId,
    payout_status: p.status,
    payout_flow: 'STANDARD' as const,
    amount: p.amount,
    currency: p.currency,
    failure_code: p.failureCode ?? '',
    failure_reason: p.failureReason ?? '',
  };
}
