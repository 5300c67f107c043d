/**
 * A refusal PayPal answered (a 4xx other than an expired token): its status, its error `name`,
 * `debug_id` and the `issue`s of its details. The message names the call and PayPal's error,
 * never a credential, a token or the request's body.
 */
/** PayPal's names of a repeated request (payouts' own, its REST APIs' idempotency and conflict errors). */
const DUPLICATE_NAMES: ReadonlySet<string> = new Set([
  'SENDER_BATCH_ID_ALREADY_USED',
  'DUPLICATE_SENDER_BATCH_ID',
  'DUPLICATE_REQUEST_ID',
  'DUPLICATE_REQUEST',
  'IDEMPOTENCY_CONFLICT',
  'RESOURCE_CONFLICT',
  'DUPLICATE_TRANSACTION',
]);

/** Words of a name or an issue that say the thing exists already. */
const DUPLICATE_WORDS = /duplicate|already|exists|idempoten/i;

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

  /**
   * Whether the refusal may say that the request was made before: PayPal's answer to a repeated
   * `sender_batch_id` (a 400 whose detail names it and links the original batch), a repeated
   * `PayPal-Request-Id`, a 409 conflict, a link to an existing batch, or any name or issue
   * speaking of a duplicate, of something already used or existing, or of idempotency.
   * Wide on purpose: taking such a refusal for a failure could pay a payout twice.
   */
  get mayBeDuplicate(): boolean {
    if (this.existingBatchId !== undefined || this.status === 409) return true;
    if (DUPLICATE_NAMES.has(this.errorName.toUpperCase())) return true;
    return [this.errorName, ...this.issues].some((text) => DUPLICATE_WORDS.test(text));
  }
}
