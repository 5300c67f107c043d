/**
 * A buyer-present card charge awaiting its holder's authentication (3-D Secure), pure: what its
 * PaymentIntent, as the provider has it now, says of the pay. Read from the intent itself, never
 * from which webhook arrived, so events in any order or repeated decide alike.
 */

/** What one card charge of a PROCESSING pay comes to: authorized, still awaiting the buyer, or failed (with Holdfast's reason). */
export type AuthenticationVerdict =
  | { state: 'authorized' }
  | { state: 'awaiting'; url: string | null }
  | { state: 'failed'; reason: string };

/** The reason of a pay whose buyer failed or abandoned 3-D Secure. */
export const AUTHENTICATION_FAILED = 'authentication_failed';

const record = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** The verdict of a PaymentIntent snapshot (Stripe's `status`, `next_action`, `last_payment_error`). */
export function authenticationVerdict(intent: Record<string, unknown>): AuthenticationVerdict {
  switch (intent.status) {
    case 'requires_capture':
    case 'succeeded':
      return { state: 'authorized' };
    case 'requires_action':
    case 'requires_confirmation':
    case 'processing': {
      const url = record(record(intent.next_action)?.redirect_to_url)?.url;
      return { state: 'awaiting', url: typeof url === 'string' ? url : null };
    }
    default: {
      // requires_payment_method (authentication failed, or the card declined after it) and canceled.
      const error = record(intent.last_payment_error);
      if (intent.status !== 'canceled' && error?.type === 'card_error')
        return { state: 'failed', reason: error.decline_code === 'insufficient_funds' ? 'insufficient_funds' : 'card_declined' };
      return { state: 'failed', reason: AUTHENTICATION_FAILED };
    }
  }
}
