/**
 * The Stripe Identity adapter of the identity port (`IDENTITY_VERIFIER=stripe`): a submission
 * starts a document VerificationSession that the person completes on Stripe's hosted page; its
 * outcome arrives later by Stripe's webhook (`identity.verification_session.*`, applied by the
 * kyc module). Stripe sees the documents; Holdfast sends none and stores none. Nor does it pass
 * the personal data it collected: Stripe's `provided_details` takes only an email and a phone,
 * which the KYC form does not ask for, and the document check needs nothing else.
 */
import type Stripe from 'stripe';
import { AppError } from '../errors.js';
import type { IdentityCheckRequest, IdentityCheckStart, IdentityVerifier } from './identity-verifier.port.js';
import { stripeClient, stripeUnavailable, type StripeClientOptions } from './stripe-client.js';
import { verificationSessionSnapshot } from './verification-session.rules.js';

/**
 * The Idempotency-Key of a submission's session: the check and the submission's number on it.
 * A retried submission (its first try not taken) has the same number, so Stripe answers the
 * session it already made; a later submission (after the user abandoned theirs, or an
 * operator's reopen) has the next one, so a new session.
 */
export function verificationSessionKey(request: Pick<IdentityCheckRequest, 'kycId' | 'submission'>): string {
  return `holdfast-kyc-${request.kycId}-submission-${request.submission}`;
}

/** The Stripe Identity verifier. */
export class StripeIdentityVerifier implements IdentityVerifier {
  readonly name = 'stripe';
  private readonly stripe: Stripe;

  constructor(options: StripeClientOptions) {
    // The person waits on the hosted page for this call: a short timeout, then they may retry.
    this.stripe = stripeClient({ timeoutMs: 10_000, ...options });
  }

  /** Creates the submission's VerificationSession (the same one again for a retried submission); answers its id and hosted URL. */
  async start(request: IdentityCheckRequest): Promise<IdentityCheckStart> {
    let session: Stripe.Identity.VerificationSession;
    try {
      session = await this.stripe.identity.verificationSessions.create(
        {
          type: 'document',
          metadata: { kyc_id: request.kycId, account_id: request.accountId },
          return_url: request.returnUrl,
        },
        { idempotencyKey: verificationSessionKey(request) },
      );
    } catch (err) {
      if (stripeUnavailable(err))
        throw new AppError('unavailable', 'The identity verification provider is unavailable; nothing was submitted. Try again shortly.', {
          codes: ['PROVIDER_UNAVAILABLE'],
          headers: { 'Retry-After': '30' },
        });
      throw err;
    }
    if (!session.url) throw new Error(`Stripe Identity session ${session.id} has no url (status ${session.status})`);
    return {
      kind: 'session',
      sessionId: session.id,
      verificationUrl: session.url,
      snapshot: {
        provider: 'stripe',
        objectType: 'identity.verification_session',
        data: verificationSessionSnapshot(session as unknown as Record<string, unknown>),
      },
    };
  }
}
