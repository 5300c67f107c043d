/**
 * The payout rail port: how a payout's money leaves Holdfast for its destination. The payouts
 * module calls `send` from its `payout.execute` command, once per attempt, after it has recorded
 * the payout as PROCESSING (from then on it can no longer be reversed); a call that throws is
 * made again later with the same input. Adapters: `sandbox` (decides at once from the receiver)
 * and `paypal` (PayPal Payouts: answers PROCESSING, the outcome arrives by webhook and is applied
 * by the `payout.settle` command). Which one runs is chosen where the services are assembled.
 */

/** What one attempt at paying a payout out asks of the rail. */
export interface PayoutSendInput {
  /** The payout's id (`po_…`, the API's `payout_status_id`). */
  payoutId: string;
  /**
   * Which attempt this is: 1 for the payout's first execution, the next number for each new
   * execution after a FAILED one. A call made again for the same attempt (after a timeout, a
   * 5xx, a crash) carries the same number.
   */
  attempt: number;
  /**
   * `<payoutId>-<attempt>`: PayPal's `sender_batch_id` (use it as the item's `sender_item_id`
   * too, so that webhooks name it). PayPal refuses a repeated one for 30 days, which is what
   * makes a call made again safe: the adapter answers such a repeat with the attempt's batch as
   * PayPal has it (PROCESSING or its outcome), never as a FAILED attempt, and never pays twice.
   */
  senderBatchId: string;
  /**
   * Whether this attempt may already be with the rail: false for its first call, true when it is
   * made again (after a timeout, a 5xx, a crash). A refusal of a call made again may mean "this
   * was sent already" in whatever form the provider says it: the adapter then looks the attempt
   * up and never answers FAILED unless the provider shows the attempt's item failed.
   */
  resend: boolean;
  /** The amount, a positive integer in minor units (cents of USD). */
  amount: number;
  /** The ISO 4217 code, upper case (`USD`). */
  currency: string;
  /** The receiver: the PayPal email address of the payout's destination payment method (lower case). */
  receiver: string;
  /** A short note for the receiver, shown by the provider with the payment. */
  note: string;
}

/** The rail's view of an attempt, as `send` answers it. */
export type PayoutRailStatus = 'PROCESSING' | 'SUCCESS' | 'FAILED';

/** What `send` answers. */
export interface PayoutSendResult {
  /**
   * PROCESSING: the provider accepted the attempt; its outcome arrives later (a real rail's
   * answer). SUCCESS: paid. FAILED: the provider refused this attempt for good and sent nothing
   * (the payout is held; an operator may approve it again, a new attempt).
   */
  status: PayoutRailStatus;
  /** The provider's id of the batch (PayPal's `payout_batch_id`), when it gave one. */
  providerBatchId?: string;
  /** The provider's id of the payout item (PayPal's `payout_item_id`), when known. */
  providerItemId?: string;
  /** FAILED: a short machine code (lower snake case, at most 64 characters), the payout's `failure_code`. */
  failureCode?: string;
  /** FAILED: one sentence for people (at most 200 characters), the payout's `failure_reason`. */
  failureReason?: string;
  /** The provider's object as it answered (JSON, no credentials), stored with the payout. */
  snapshot?: Record<string, unknown>;
}

/** A payout rail adapter. */
export interface PayoutRail {
  /** The adapter's name, as `PAYOUT_RAIL` spells it (`sandbox`, `paypal`). */
  readonly name: string;
  /**
   * Sends one attempt. Throws `RailUnavailableError` when the provider cannot be reached or
   * answers a timeout, a 5xx or a 429 (whether it took the attempt is then unknown: the command
   * retries later with backoff, with the same `senderBatchId`). Answers FAILED only when the
   * provider refused the attempt for good.
   */
  send(input: PayoutSendInput): Promise<PayoutSendResult>;
}

export { RailUnavailableError } from './rail-unavailable.error.js';
