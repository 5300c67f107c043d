/** Stripe's webhook signature, checked by the `stripe` package itself (`webhooks.constructEvent`). */
import Stripe from 'stripe';
import { AppError } from '../errors.js';

const SIGNATURE_FIELD = 'Stripe-Signature';

/**
 * The event a Stripe delivery carries, once its `Stripe-Signature` header verifies the raw body
 * with the endpoint's signing secret (and its timestamp is within Stripe's 5-minute tolerance).
 * Otherwise a 400 naming the header, or the body when it is signed but not JSON.
 */
export function verifiedStripeEvent(rawBody: Buffer, signature: string | string[] | undefined, secret: string): unknown {
  if (typeof signature !== 'string' || signature.trim() === '')
    throw AppError.invalid({ [SIGNATURE_FIELD]: ['REQUIRED'] }, 'A Stripe webhook needs its Stripe-Signature header.');
  try {
    return Stripe.webhooks.constructEvent(rawBody, signature, secret);
  } catch (err) {
    if (err instanceof SyntaxError) throw AppError.invalid({ body: ['MALFORMED_JSON'] }, 'The body is not valid JSON.');
    // Stripe's message names what failed (no signature for the secret, a timestamp too old); the header itself is never echoed.
    throw AppError.invalid({ [SIGNATURE_FIELD]: ['INVALID_SIGNATURE'] }, 'The Stripe-Signature header does not verify this body.');
  }
}
