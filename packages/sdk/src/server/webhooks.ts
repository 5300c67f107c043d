/**
 * Verifying Holdfast's webhook deliveries (Standard Webhooks): `webhook-signature` holds one or
 * more space-separated `v1,<base64 HMAC-SHA256>` of `{webhook-id}.{webhook-timestamp}.{body}`,
 * keyed with the base64 after `whsec_` of the endpoint's secret (two during the 24 hours after a
 * rotation: either verifies).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';

/** Request headers as Node (`req.headers`), the Fetch API (`Headers`) or a plain object gives them. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The endpoint's secret (`whsec_…`), or several (an old and a new one around a rotation). */
  secret: string | string[];
  headers: HeaderSource;
  /** The body exactly as received (bytes or text), before any JSON parsing. */
  body: string | Uint8Array;
  /** How far `webhook-timestamp` may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in milliseconds (default `Date.now()`). */
  now?: number;
}

/** A delivery's body: `{id, event_name, message, created, integrator}`. */
export interface WebhookDelivery {
  id: string;
  event_name: string;
  message: unknown;
  created: string;
  integrator: string;
  [key: string]: unknown;
}

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const plain = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(plain).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : plain[key];
  return Array.isArray(value) ? value.join(' ') : value;
}

/** The signature a secret gives: `v1,<base64>`. Also what a test sends to its own receiver. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const hmac = createHmac('sha256', key).update(`${id}.${timestamp}.`);
  hmac.update(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  return `v1,${hmac.digest('base64')}`;
}

/**
 * Checks a delivery and answers its parsed body; throws a `WebhookVerificationError` when a
 * header is missing, the timestamp is outside the tolerance, or no signature matches any secret
 * (compared in constant time).
 */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookDelivery {
  const id = header(options.headers, 'webhook-id');
  const timestamp = header(options.headers, 'webhook-timestamp');
  const signatures = header(options.headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp) || !Number.isSafeInteger(seconds)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs((options.now ?? Date.now()) / 1000 - seconds) > tolerance)
    throw new WebhookVerificationError(`webhook-timestamp is more than ${tolerance} s from now`);
  const given = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3), 'base64'));
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  const valid = secrets.some((secret) => {
    const expected = Buffer.from(signWebhook(secret, id, seconds, options.body).slice(3), 'base64');
    return given.some((g) => g.length === expected.length && timingSafeEqual(g, expected));
  });
  if (!valid) throw new WebhookVerificationError('no webhook-signature matches the secret');
  const text = typeof options.body === 'string' ? options.body : new TextDecoder().decode(options.body);
  try {
    return JSON.parse(text) as WebhookDelivery;
  } catch {
    throw new WebhookVerificationError('the body is not JSON');
  }
}

/** Like `verifyWebhook`, answering true or false. */
export function isValidWebhook(options: VerifyWebhookOptions): boolean {
  try {
    verifyWebhook(options);
    return true;
  } catch {
    return false;
  }
}
