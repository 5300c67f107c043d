/**
 * How the PayPal fake settles a payout item: chosen by the receiver's email, the local part
 * before any `+tag` (`fails+7@example.com` fails like `fails@example.com`). Each outcome is a
 * list of item states, each announced by its `PAYMENT.PAYOUTS-ITEM.*` webhook event.
 */

export type ItemStatus = 'PENDING' | 'SUCCESS' | 'FAILED' | 'BLOCKED' | 'DENIED' | 'UNCLAIMED' | 'RETURNED';

export interface Step {
  status: ItemStatus;
  eventType: string;
  summary: string;
  /** The item's `errors.name`, as PayPal gives it for a payment that did not reach the receiver. */
  error?: { name: string; message: string };
}

const unregistered = {
  name: 'RECEIVER_UNREGISTERED',
  message: 'Receiver is unregistered. The receiver needs to sign up with PayPal to receive the payment.',
};

const STEP: Record<Exclude<ItemStatus, 'PENDING'>, Step> = {
  SUCCESS: { status: 'SUCCESS', eventType: 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED', summary: 'A payout item has succeeded' },
  FAILED: {
    status: 'FAILED',
    eventType: 'PAYMENT.PAYOUTS-ITEM.FAILED',
    summary: 'A payout item has failed',
    error: { name: 'RECEIVER_ACCOUNT_LOCKED', message: 'Receiver account is locked or inactive.' },
  },
  BLOCKED: {
    status: 'BLOCKED',
    eventType: 'PAYMENT.PAYOUTS-ITEM.BLOCKED',
    summary: 'A payout item was blocked',
    error: { name: 'REGULATORY_BLOCKED', message: 'This transaction is blocked by regulatory compliance.' },
  },
  DENIED: {
    status: 'DENIED',
    eventType: 'PAYMENT.PAYOUTS-ITEM.DENIED',
    summary: 'A payout item was denied',
    error: { name: 'RISK_DECLINE', message: 'The payment was declined by risk review.' },
  },
  UNCLAIMED: {
    status: 'UNCLAIMED',
    eventType: 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED',
    summary: 'A payout item is unclaimed',
    error: unregistered,
  },
  RETURNED: { status: 'RETURNED', eventType: 'PAYMENT.PAYOUTS-ITEM.RETURNED', summary: 'A payout item was returned', error: unregistered },
};

/** The receiver → outcome table (docs/testing.md lists it); any other receiver is paid. */
export const OUTCOMES: Record<string, Step[]> = {
  fails: [STEP.FAILED],
  blocked: [STEP.BLOCKED],
  denied: [STEP.DENIED],
  unclaimed: [STEP.UNCLAIMED],
  returned: [STEP.UNCLAIMED, STEP.RETURNED],
};

/** The steps a payout to `receiver` goes through after PENDING. */
export function outcomeOf(receiver: string): Step[] {
  const local = receiver.toLowerCase().split('@')[0].split('+')[0];
  return OUTCOMES[local] ?? [STEP.SUCCESS];
}

/** The step that moves an item to `status` (an unclaimed item claimed or returned by a test). */
export function stepTo(status: Exclude<ItemStatus, 'PENDING'>): Step {
  return STEP[status];
}
