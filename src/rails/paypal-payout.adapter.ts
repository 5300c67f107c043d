/**
 * The payout rail on PayPal Payouts (`PAYOUT_RAIL=paypal`): each attempt is a batch of one EMAIL
 * item whose `sender_batch_id` (and `sender_item_id`) is the port's `<payout id>-<attempt>`.
 * PayPal pays a `sender_batch_id` at most once in 30 days, so an attempt sent again after a
 * timeout or a crash cannot pay twice: the call carries the attempt as `PayPal-Request-Id` (PayPal
 * answers a repeat with its first answer), PayPal refuses a repeated `sender_batch_id` linking the
 * original batch, and the adapter answers that batch as PayPal has it. A refusal of a call made
 * again is never taken for a failure. The outcome of an accepted attempt arrives
 * later by webhook (`PAYMENT.PAYOUTS-ITEM.*`).
 */
import { PaypalApiError } from './paypal-api.error.js';
import { toPaypalAmount, UnsupportedAmountError } from './paypal-amount.rules.js';
import type { PaypalClient, PaypalPayoutBatch, PaypalPayoutItem } from './paypal.client.js';
import type { PayoutRail, PayoutSendInput, PayoutSendResult } from './payout-rail.port.js';
import { RailUnavailableError } from './rail-unavailable.error.js';

const FAILED_ITEM = new Set(['FAILED', 'BLOCKED', 'DENIED', 'REFUNDED', 'REVERSED']);

/** A machine code from PayPal's error name (`RECEIVER_ACCOUNT_LOCKED` → `receiver_account_locked`). */
function code(name: string | undefined, fallback: string): string {
  const snake = (name ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (snake || fallback).slice(0, 64);
}

/** What an attempt is, from its item as PayPal shows it (RETURNED and UNCLAIMED settle later, by webhook). */
export function itemResult(batch: PaypalPayoutBatch, item: PaypalPayoutItem | undefined): PayoutSendResult {
  const ids = { providerBatchId: batch.batch_header.payout_batch_id, providerItemId: item?.payout_item_id };
  const status = item?.transaction_status ?? (batch.batch_header.batch_status === 'DENIED' ? 'DENIED' : 'PENDING');
  if (status === 'SUCCESS') return { status: 'SUCCESS', ...ids, snapshot: batch };
  if (FAILED_ITEM.has(status)) {
    return {
      status: 'FAILED',
      ...ids,
      failureCode: code(item?.errors?.name, `paypal_${status.toLowerCase()}`),
      failureReason: (item?.errors?.message ?? `PayPal answered the payout item ${status}.`).slice(0, 200),
      snapshot: batch,
    };
  }
  return { status: 'PROCESSING', ...ids, snapshot: batch };
}

/** The PayPal Payouts adapter of the payout rail port. */
export class PaypalPayoutAdapter implements PayoutRail {
  readonly name = 'paypal';

  constructor(
    private readonly client: PaypalClient,
    private readonly emailSubject = 'You have a payout',
  ) {}

  async send(input: PayoutSendInput): Promise<PayoutSendResult> {
    let amount: ReturnType<typeof toPaypalAmount>;
    try {
      amount = toPaypalAmount(input.amount, input.currency);
    } catch (err) {
      if (err instanceof UnsupportedAmountError) return { status: 'FAILED', failureCode: err.code, failureReason: err.message };
      throw err;
    }
    let batchId: string;
    try {
      const created = await this.client.createPayout(
        {
          sender_batch_header: { sender_batch_id: input.senderBatchId, email_subject: this.emailSubject },
          items: [
            {
              recipient_type: 'EMAIL',
              amount,
              receiver: input.receiver,
              ...(input.note ? { note: input.note.slice(0, 4000) } : {}),
              sender_item_id: input.senderBatchId,
            },
          ],
        },
        // PayPal answers a repeat with the first answer: a call made again finds its batch.
        { requestId: input.senderBatchId },
      );
      batchId = created.batch_header.payout_batch_id;
      try {
        return this.resultOf(await this.client.getPayoutBatch(batchId), input.senderBatchId);
      } catch (err) {
        // Accepted: the item's id can wait for its webhook. Throwing would only resend the attempt.
        if (!(err instanceof RailUnavailableError || err instanceof PaypalApiError)) throw err;
        return { status: 'PROCESSING', providerBatchId: batchId, snapshot: created };
      }
    } catch (err) {
      if (!(err instanceof PaypalApiError)) throw err;
      // Our credentials or account, not this payout: wait (retried) rather than fail the payout.
      if ((err.status === 401 || err.status === 403) && !err.mayBeDuplicate)
        throw new RailUnavailableError('payouts', `PayPal refused Holdfast's credentials or account: ${err.message}`, err.status);
      // A refusal that may mean "sent already" — and any refusal of a call made again, whatever
      // its form — is looked up, never failed: the first call may have paid.
      if (err.mayBeDuplicate || input.resend) return this.recover(err, input.senderBatchId);
      // The attempt's first call, refused: PayPal has nothing under its sender_batch_id.
      return { status: 'FAILED', failureCode: code(err.errorName, 'paypal_refused'), failureReason: err.message.slice(0, 200) };
    }
  }

  /**
   * An attempt PayPal may have already: the batch it has for this `sender_batch_id`, as it is now
   * (its item's outcome, or PROCESSING). PayPal links the batch from its refusal of a repeat;
   * Payouts has no lookup by `sender_batch_id`, so a refusal that links none leaves the attempt
   * undecided: RailUnavailableError, the command retries with backoff (the repeat, under the same
   * `PayPal-Request-Id`, then answers the batch), and meanwhile the item's webhook
   * (`PAYMENT.PAYOUTS-ITEM.*`, naming the `sender_batch_id`) settles the payout if PayPal has it.
   */
  private async recover(err: PaypalApiError, senderBatchId: string): Promise<PayoutSendResult> {
    if (!err.existingBatchId)
      throw new RailUnavailableError(
        'payouts',
        `PayPal refused attempt ${senderBatchId}, which it may have already, without linking a batch (${err.errorName} ${err.status}): waiting for its batch or its webhook`,
        err.status,
      );
    try {
      return this.resultOf(await this.client.getPayoutBatch(err.existingBatchId), senderBatchId);
    } catch (readErr) {
      // The batch exists (PayPal said so): not reading it yet is a reason to wait, never to fail the attempt.
      if (readErr instanceof PaypalApiError)
        throw new RailUnavailableError('payouts', `PayPal batch of ${senderBatchId} not readable yet: ${readErr.message}`, readErr.status);
      throw readErr;
    }
  }

  private resultOf(batch: PaypalPayoutBatch, senderBatchId: string): PayoutSendResult {
    const items = batch.items ?? [];
    const item = items.find((i) => i.payout_item?.sender_item_id === senderBatchId) ?? items[0];
    return itemResult(batch, item);
  }
}
