/**
 * Payout rules (pure): the states of a payout and which move each allows, automatic approval,
 * the sandbox provider's verdict, the checks of a request and the payout's view.
 */

export const PAYOUT_STATUSES = ['FUNDS-IN-ESCROW', 'SUCCESS', 'FAILED', 'USER-REVERSED', 'SUPPORT-REVERSED'] as const;
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** Open payouts hold their money (payout holding): they count against the integrator's limit. */
export const OPEN_STATUSES: readonly PayoutStatus[] = ['FUNDS-IN-ESCROW', 'FAILED'];

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

/** Whether a payout in `status` may be reversed (its money goes back to the wallet). */
export function canReverse(status: PayoutStatus): boolean {
  return OPEN_STATUSES.includes(status);
}

/** Payouts at or under the integrator's `payout_auto_approve_max` need no operator (0: every payout does). */
export function autoApproved(amount: number, autoApproveMax: number): boolean {
  return amount <= autoApproveMax;
}

/** The sandbox provider's verdict on an execution, from the destination's sandbox outcome. */
export function sandboxExecution(outcome: string): { ok: true } | { ok: false; code: string; reason: string } {
  if (outcome === 'payout_fails') {
    return { ok: false, code: 'destination_rejected', reason: 'The payout provider refused the destination account.' };
  }
  return { ok: true };
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
