/**
 * The `stripe` package's client as the Stripe rails use it: the key and API base of the
 * configuration (STRIPE_SECRET_KEY; STRIPE_API_BASE split into host, port and protocol).
 */
import Stripe from 'stripe';

/** What a client is made with: the configured key and API base, and how long one call may take. */
export interface StripeClientOptions {
  secretKey: string;
  host: string;
  port: number;
  protocol: 'http' | 'https';
  /** Per request; Stripe's own default is 80 s, far too long for a person waiting on a page. */
  timeoutMs?: number;
}

/** A `stripe` client for Holdfast's calls: no retries of its own (the caller retries with the same idempotency key), no telemetry. */
export function stripeClient(options: StripeClientOptions): Stripe {
  return new Stripe(options.secretKey, {
    host: options.host,
    port: options.port,
    protocol: options.protocol,
    timeout: options.timeoutMs ?? 20_000,
    maxNetworkRetries: 0,
    telemetry: false,
    appInfo: { name: 'Holdfast' },
  });
}

/** Whether a failed call is Stripe being unreachable or unwell (no answer, a timeout, a 5xx, a 429): worth trying again later. */
export function stripeUnavailable(err: unknown): boolean {
  if (!(err instanceof Stripe.errors.StripeError)) return false;
  if (err instanceof Stripe.errors.StripeConnectionError) return true;
  const status = err.statusCode ?? 0;
  return status >= 500 || status === 429;
}
