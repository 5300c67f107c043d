/**
 * A refusal PayPal answered (a 4xx other than an expired token): its status, its error `name`,
 * `debug_id` and the `issue`s of its details. The message names the call and PayPal's error,
 * never a credential, a token or the request's body.
 */
export class PaypalApiError extends Error {
  constructor(
    readonly status: number,
    /** PayPal's error name (`VALIDATION_ERROR`, `USER_BUSINESS_ERROR`, OAuth's `invalid_client`…). */
    readonly errorName: string,
    message: string,
    readonly debugId: string | undefined,
    readonly issues: string[],
    /** For a repeated `sender_batch_id`: the original batch's `payout_batch_id`, from the link PayPal gives. */
    readonly existingBatchId?: string,
  ) {
    super(message);
    this.name = 'PaypalApiError';
  }

  /** Whether PayPal refused the payout because its `sender_batch_id` was used in the last 30 days. */
  get duplicateBatch(): boolean {
    return (
      this.errorName === 'SENDER_BATCH_ID_ALREADY_USED' ||
      (this.status === 400 && this.issues.some((i) => /sender_batch_id already (exists|used)/i.test(i)))
    );
  }
}
