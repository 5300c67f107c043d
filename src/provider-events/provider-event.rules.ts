/**
 * Provider events, pure: who may send them, what identifies one in each provider's body, the
 * headers PayPal signs a delivery with and the verify-webhook-signature request made of them,
 * which handler patterns an event type matches, and an event as the CLI and its command show it.
 */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';

/** The providers whose webhooks Holdfast takes in. */
export const PROVIDERS = ['stripe', 'paypal'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** What the worker made of an event: a handler acted on it, none exists (or it did not apply), or its handler refused it. */
export const OUTCOMES = ['applied', 'ignored', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** An event as stored. */
export interface ProviderEventRecord {
  id: string;
  provider: Provider;
  providerEventId: string;
  type: string;
  payload: Record<string, unknown>;
  receivedAt: Date;
  commandId: string | null;
  outcome: Outcome | null;
  outcomeReason: string | null;
  outcomeAt: Date | null;
}

/** The longest provider event id and type stored (the columns' width). */
const TEXT_MAX = 255;
/** The longest failure reason stored. */
export const REASON_MAX = 500;

/** Whether a string names a provider Holdfast takes webhooks from. */
export function isProvider(value: string): value is Provider {
  return (PROVIDERS as readonly string[]).includes(value);
}

/** The fields naming an event in each provider's body: Stripe's `id`/`type`, PayPal's `id`/`event_type`. */
const IDENTITY_FIELDS: Record<Provider, { id: string; type: string }> = {
  stripe: { id: 'id', type: 'type' },
  paypal: { id: 'id', type: 'event_type' },
};

/**
 * The provider's id and type of an event body (already parsed), or the fields that are missing
 * or unusable: each must be a non-empty string of at most 255 characters.
 */
export function eventIdentity(
  provider: Provider,
  body: unknown,
): { ok: true; providerEventId: string; type: string; payload: Record<string, unknown> } | { ok: false; fields: FieldErrors } {
  const fields = fieldErrors();
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    addFieldError(fields, 'body', 'INVALID_VALUE');
    return { ok: false, fields };
  }
  const names = IDENTITY_FIELDS[provider];
  const record = body as Record<string, unknown>;
  for (const name of [names.id, names.type]) {
    const value = record[name];
    if (value === undefined || value === null) addFieldError(fields, name, 'REQUIRED');
    else if (typeof value !== 'string' || value === '' || value.length > TEXT_MAX) addFieldError(fields, name, 'INVALID_VALUE');
  }
  if (Object.keys(fields).length) return { ok: false, fields };
  return { ok: true, providerEventId: record[names.id] as string, type: record[names.type] as string, payload: record };
}

/** The PayPal headers of a webhook delivery, as its verify-webhook-signature request names them. */
export interface PaypalTransmission {
  auth_algo: string;
  cert_url: string;
  transmission_id: string;
  transmission_sig: string;
  transmission_time: string;
}

const PAYPAL_HEADERS: Record<keyof PaypalTransmission, string> = {
  auth_algo: 'paypal-auth-algo',
  cert_url: 'paypal-cert-url',
  transmission_id: 'paypal-transmission-id',
  transmission_sig: 'paypal-transmission-sig',
  transmission_time: 'paypal-transmission-time',
};

/** The transmission headers PayPal signs a delivery with (names lower-cased, as Node gives them), or the ones missing. */
export function paypalTransmission(
  headers: Record<string, string | string[] | undefined>,
): { ok: true; transmission: PaypalTransmission } | { ok: false; fields: FieldErrors } {
  const fields = fieldErrors();
  const transmission = {} as PaypalTransmission;
  for (const [field, header] of Object.entries(PAYPAL_HEADERS) as Array<[keyof PaypalTransmission, string]>) {
    const value = headers[header];
    if (typeof value !== 'string' || value.trim() === '') addFieldError(fields, header.toUpperCase(), 'REQUIRED');
    else transmission[field] = value.trim();
  }
  return Object.keys(fields).length ? { ok: false, fields } : { ok: true, transmission };
}

/** The longest transmission header taken (PayPal's signature is a base64 RSA signature, a few hundred characters). */
const PAYPAL_HEADER_MAX = 2048;

/**
 * What makes a PayPal delivery not worth asking PayPal about (each is a 400 without a call): its
 * headers too long or not of their shape (`auth_algo` such as `SHA256withRSA`, a base64
 * signature, a time), or a `cert_url` that is not PayPal's — https on paypal.com or a subdomain,
 * or the host of the configured API base (`apiBase`, a local stand-in in tests). Empty when none.
 */
export function paypalTransmissionProblems(transmission: PaypalTransmission, apiBase: string | undefined): FieldErrors {
  const fields = fieldErrors();
  for (const [field, header] of Object.entries(PAYPAL_HEADERS) as Array<[keyof PaypalTransmission, string]>)
    if (transmission[field].length > PAYPAL_HEADER_MAX) addFieldError(fields, header.toUpperCase(), 'TOO_LONG');
  if (!/^[A-Za-z0-9]{1,32}with[A-Za-z0-9]{1,32}$/.test(transmission.auth_algo)) addFieldError(fields, 'PAYPAL-AUTH-ALGO', 'INVALID_VALUE');
  if (!/^[A-Za-z0-9+/=_-]+$/.test(transmission.transmission_sig)) addFieldError(fields, 'PAYPAL-TRANSMISSION-SIG', 'INVALID_VALUE');
  if (Number.isNaN(Date.parse(transmission.transmission_time))) addFieldError(fields, 'PAYPAL-TRANSMISSION-TIME', 'INVALID_VALUE');
  if (!paypalCertUrl(transmission.cert_url, apiBase)) addFieldError(fields, 'PAYPAL-CERT-URL', 'INVALID_VALUE');
  return fields;
}

/** Whether a delivery's `cert_url` is PayPal's: https on paypal.com (or a subdomain), or on the configured API base's origin. */
function paypalCertUrl(certUrl: string, apiBase: string | undefined): boolean {
  let url: URL;
  try {
    url = new URL(certUrl);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol === 'https:' && /(^|\.)paypal\.com$/i.test(url.hostname)) return true;
  if (!apiBase) return false;
  try {
    return url.origin === new URL(apiBase).origin;
  } catch {
    return false;
  }
}

/**
 * The body of PayPal's `POST /v1/notifications/verify-webhook-signature`: the transmission
 * headers, the webhook id and the event. The event goes in as the bytes received (`rawBody`, a
 * JSON object), not parsed and written again: PayPal checks the signature over those bytes.
 */
export function verifySignatureRequest(transmission: PaypalTransmission, webhookId: string, rawBody: string): string {
  const head = JSON.stringify({ ...transmission, webhook_id: webhookId });
  return `${head.slice(0, -1)},"webhook_event":${rawBody.trim()}}`;
}

/**
 * The handler patterns an event type matches, most specific first: the type itself, then each
 * shorter dotted prefix with `.*` (`charge.refund.updated` → `charge.refund.*`, `charge.*`).
 */
export function handlerPatterns(type: string): string[] {
  const parts = type.split('.');
  const patterns = [type];
  for (let n = parts.length - 1; n >= 1; n--) patterns.push(`${parts.slice(0, n).join('.')}.*`);
  return patterns;
}

/** A handler's refusal as stored: one line, at most 500 characters. */
export function outcomeReason(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim() || 'refused';
  return line.length > REASON_MAX ? `${line.slice(0, REASON_MAX - 1)}…` : line;
}

/** An event as the CLI and its command's result show it (the payload left out). */
export function providerEventView(event: Omit<ProviderEventRecord, 'payload'>) {
  return {
    id: event.id,
    provider: event.provider,
    provider_event_id: event.providerEventId,
    type: event.type,
    received_at: event.receivedAt.toISOString(),
    command_id: event.commandId,
    outcome: event.outcome,
    outcome_reason: event.outcomeReason,
    outcome_at: event.outcomeAt ? event.outcomeAt.toISOString() : null,
  };
}
