/**
 * `POST /hooks/stripe` and `POST /hooks/paypal`: the providers' webhooks in. Mounted before the
 * JSON body parser and outside the OpenAPI validation (the app mounts them so): each provider
 * signs the raw bytes, so the body reaches the verifier as received, up to 1 MiB (PayPal's, whose
 * every delivery costs a verification call, up to 64 KiB). An endpoint whose verification is not
 * configured is not mounted (404).
 */
import express, { type Request, Router } from 'express';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import type { VerifyPaypalWebhook } from './paypal-webhook.js';
import { type PaypalVerifyGuard, type ReceivedEvent, receivePaypalWebhook, receiveStripeWebhook } from './provider-event.service.js';

const BODY_LIMIT = '1mb';
/** PayPal's events are a few KiB: a bigger body is refused (413) before anything else, PayPal never asked. */
const PAYPAL_BODY_LIMIT = '64kb';

/** What the hooks need: the command bus, and each provider's verification (an endpoint without one is not mounted). */
export interface ProviderHookOptions {
  bus: Pick<CommandBus, 'enqueue'>;
  /** Stripe's signing secret of the endpoint (STRIPE_WEBHOOK_SECRET); unset: no /hooks/stripe. */
  stripeWebhookSecret?: string;
  /** PayPal's verification for the configured webhook (PAYPAL_WEBHOOK_ID); unset: no /hooks/paypal. */
  verifyPaypalWebhook?: VerifyPaypalWebhook;
  /** The checks and the budget before each PayPal verification. */
  paypalGuard?: (req: Request) => PaypalVerifyGuard;
}

/** The raw body as received (empty when there was none). */
function rawBody(req: Request): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/** Answers at once: the event is stored and its command enqueued; a worker acts on it. */
function answer(req: Request, received: ReceivedEvent) {
  const { id, provider, provider_event_id, type, duplicate } = received;
  req.log.info({ provider_event: id, provider, provider_event_id, type, duplicate }, 'provider event received');
  return success(received);
}

/** The router of `POST /hooks/stripe` and `POST /hooks/paypal`, each with its raw-body parser. */
export function providerHookRoutes(opts: ProviderHookOptions): Router {
  const router = Router();
  // Any content type: the signature covers the bytes whatever the provider labels them.
  const raw = express.raw({ type: () => true, limit: BODY_LIMIT });
  const secret = opts.stripeWebhookSecret;
  if (secret) {
    router.post('/hooks/stripe', raw, async (req, res) => {
      const received = await receiveStripeWebhook(req.em, opts.bus, secret, rawBody(req), req.headers['stripe-signature']);
      res.status(200).json(answer(req, received));
    });
  }
  const verify = opts.verifyPaypalWebhook;
  if (verify) {
    const paypalRaw = express.raw({ type: () => true, limit: PAYPAL_BODY_LIMIT });
    router.post('/hooks/paypal', paypalRaw, async (req, res) => {
      const received = await receivePaypalWebhook(req.em, opts.bus, verify, req.headers, rawBody(req), opts.paypalGuard?.(req));
      res.status(200).json(answer(req, received));
    });
  }
  return router;
}
