/**
 * The one error a rail adapter throws when its provider could not be reached or answered a
 * timeout, a 5xx or a 429. It is no AppError on purpose: the command pipeline treats it as a
 * failure worth retrying (the job runs again with backoff, then the sweeper requeues it), so the
 * command waits for the provider instead of ending in a refusal. Its message names the rail and
 * what happened, never a credential or a provider's body.
 */
export class RailUnavailableError extends Error {
  constructor(
    /** The rail whose provider failed (`payouts`, `cards`, `identity`). */
    readonly rail: string,
    message: string,
    /** The provider's HTTP status, when it answered one. */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'RailUnavailableError';
  }
}
