/**
 * PayPal's webhook signature, checked by PayPal itself: the delivery's transmission headers,
 * the endpoint's webhook id and the event go to `POST /v1/notifications/verify-webhook-signature`,
 * which answers `verification_status` SUCCESS or FAILURE. The call (OAuth, base URL) is the
 * PayPal client's; this file builds what it sends and reads what it answers.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { paypalTransmission, verifySignatureRequest } from './provider-event.rules.js';

/** Whether a PayPal delivery (its headers and raw body) is PayPal's, for the configured webhook. */
export type VerifyPaypalWebhook = (headers: IncomingHttpHeaders, rawBody: string) => Promise<boolean>;

/**
 * Sends a verify-webhook-signature request (its JSON body as text) with PayPal's OAuth token and
 * resolves with PayPal's answer; rejects when PayPal cannot be reached or answers an error.
 */
export type SendVerifyWebhookSignature = (body: string) => Promise<{ verification_status?: unknown }>;

/** The verifier of the webhook `webhookId` (PAYPAL_WEBHOOK_ID), asking PayPal through `send`. */
export function paypalWebhookVerifier(webhookId: string, send: SendVerifyWebhookSignature): VerifyPaypalWebhook {
  return async (headers, rawBody) => {
    const found = paypalTransmission(headers);
    if (!found.ok) return false;
    const answer = await send(verifySignatureRequest(found.transmission, webhookId, rawBody));
    return answer?.verification_status === 'SUCCESS';
  };
}
