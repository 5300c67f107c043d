/** Webhook rules (pure): event names, target URLs, signatures, the retry schedule, disabling. */
import { createHmac } from 'node:crypto';
import { BlockList, isIP } from 'node:net';

/** Every event Holdfast emits (docs/contract.md lists them). */
export const EVENT_NAMES = [
  'register-account-completed',
  'account-block-unblock-webhook',
  'escrow-transaction-update',
  'invoice-completed',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** Loopback, private, link-local, shared, multicast or unspecified: not a public internet address. */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isPrivateAddress(mapped[1]);
  const family = isIP(address);
  if (family === 4) return PRIVATE.check(address, 'ipv4');
  if (family === 6) return PRIVATE.check(address, 'ipv6');
  return true;
}

/**
 * What is wrong with a webhook target, as a field error code, or null. Without private targets
 * allowed: https only, and no IP literal or `localhost` name that is not public (names are
 * checked again, resolved, at every delivery).
 */
export function targetProblem(raw: string, allowPrivate: boolean): 'INVALID_URL' | 'HTTPS_REQUIRED' | 'PRIVATE_TARGET' | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'INVALID_URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'INVALID_URL';
  if (url.username || url.password || url.hash) return 'INVALID_URL';
  if (allowPrivate) return null;
  if (url.protocol !== 'https:') return 'HTTPS_REQUIRED';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'PRIVATE_TARGET';
  if (isIP(host) && isPrivateAddress(host)) return 'PRIVATE_TARGET';
  return null;
}

/**
 * Standard Webhooks signature (`webhook-signature`): `v1,<base64 HMAC-SHA256>` of
 * `{id}.{timestamp}.{body}` keyed with the base64 part of the `whsec_` secret. Several secrets
 * (during a rotation) give several space-separated signatures.
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map(
      (secret) =>
        `v1,${createHmac('sha256', Buffer.from(secret.replace(/^whsec_/, ''), 'base64'))
          .update(`${id}.${timestamp}.${body}`)
          .digest('base64')}`,
    )
    .join(' ');
}

/**
 * The wait before the next attempt after `failures` failed ones: `base` doubling each time,
 * capped at 480× base (4 h for the default 30 s), with ±20% jitter (`random` in [0, 1)).
 * With the defaults, 15 attempts span about a day.
 */
export function retryDelayMs(failures: number, base: number, random: number): number {
  const plain = Math.min(base * 2 ** Math.max(0, failures - 1), base * 480);
  return Math.max(1, Math.round(plain * (0.8 + 0.4 * random)));
}

/** An endpoint that has failed without one success for `disableAfterMs` is disabled. */
export function shouldDisable(failingSince: Date | null, now: Date, disableAfterMs: number): boolean {
  return failingSince !== null && now.getTime() - failingSince.getTime() >= disableAfterMs;
}

/** The JSON body of a delivery: the same bytes are signed and sent. */
export function deliveryBody(event: { id: string; event_name: string; message: unknown; created: string; integrator: string }): string {
  return JSON.stringify({
    id: event.id,
    event_name: event.event_name,
    message: event.message,
    created: event.created,
    integrator: event.integrator,
  });
}
