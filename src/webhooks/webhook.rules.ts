/** Webhook rules (pure): event names, target URLs, signatures, the retry schedule, disabling. */
import { createHmac } from 'node:crypto';
import { isIP } from 'node:net';

/** Every event Holdfast emits (docs/contract.md lists them). */
export const EVENT_NAMES = [
  'register-account-completed',
  'account-block-unblock-webhook',
  'escrow-transaction-update',
  'invoice-completed',
  'refund-completed',
  'kyc-webhook',
  'payout-complete',
  'token-exchange-completed',
  'dispute-opened',
  'dispute-updated',
  'dispute-closed',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * The address ranges a webhook may never reach unless private targets are allowed, each named
 * (what `privateRange` answers), most specific first. Besides the private, loopback,
 * link-local, shared, multicast and reserved ranges, every IPv6 range that embeds an IPv4
 * address a translator or tunnel may forward to (IPv4-compatible, -mapped and -translated,
 * NAT64, 6to4, Teredo) and the deprecated site-local range: each can lead to an address of the
 * operator's network. The documentation ranges route nowhere public, so they are refused too.
 */
const PRIVATE_RANGES: ReadonlyArray<readonly [name: string, network: string, prefix: number]> = [
  ['this network', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['shared address space', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['IETF protocol assignments', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['6to4 relay anycast', '192.88.99.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
  ['loopback', '::1', 128],
  ['unspecified', '::', 128],
  ['IPv4-compatible', '::', 96],
  ['IPv4-mapped', '::ffff:0:0', 96],
  ['IPv4-translated', '::ffff:0:0:0', 96],
  ['NAT64', '64:ff9b::', 96],
  ['NAT64 local-use', '64:ff9b:1::', 48],
  ['discard-only', '100::', 64],
  ['Teredo', '2001::', 32],
  ['documentation', '2001:db8::', 32],
  ['6to4', '2002::', 16],
  ['unique local', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['site-local', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

/** An IP address as its bits (32 for IPv4, 128 for IPv6), or null when it is not one. */
function addressBits(address: string): { bits: bigint; width: 32 | 128 } | null {
  const plain = address.replace(/%.*$/, '');
  const family = isIP(plain);
  if (family === 4) return { bits: plain.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n), width: 32 };
  if (family !== 6) return null;
  let text = plain.toLowerCase();
  // A trailing dotted quad is the last two groups.
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v4 = addressBits(quad[2])!.bits;
    text = `${quad[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return { bits: all.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n), width: 128 };
}

const RANGES = PRIVATE_RANGES.map(([name, network, prefix]) => {
  const { bits, width } = addressBits(network)!;
  const shift = BigInt(width - prefix);
  return { name, width, shift, base: bits >> shift };
});

/**
 * The name of the refused range an address falls in (`loopback`, `NAT64`, `6to4`…), `not an
 * IP address` for anything else, or null for a public address.
 */
export function privateRange(address: string): string | null {
  const parsed = addressBits(address);
  if (!parsed) return 'not an IP address';
  const found = RANGES.find((r) => r.width === parsed.width && parsed.bits >> r.shift === r.base);
  return found?.name ?? null;
}

/** Loopback, private, link-local, shared, multicast, unspecified, or an IPv6 range that leads to IPv4: not a public internet address. */
export function isPrivateAddress(address: string): boolean {
  return privateRange(address) !== null;
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

/** What a delivery's body says about an event. */
export interface DeliveredEvent {
  id: string;
  event_name: string;
  message: unknown;
  created: string;
  integrator: string;
}

/** The object a delivery's body is the JSON of (the events API shows it as `payload`). */
export function deliveryPayload(event: DeliveredEvent): DeliveredEvent {
  return {
    id: event.id,
    event_name: event.event_name,
    message: event.message,
    created: event.created,
    integrator: event.integrator,
  };
}

/** The JSON body of a delivery: the same bytes are signed and sent. */
export function deliveryBody(event: DeliveredEvent): string {
  return JSON.stringify(deliveryPayload(event));
}

/**
 * An event as the events API shows it: its id, type (the delivery's `event_name`), creation
 * time, the account its message names (every event Holdfast emits names one as `account_id`;
 * null otherwise) and `payload`, the body its deliveries carry.
 */
export function eventView(event: DeliveredEvent) {
  const message = event.message as Record<string, unknown> | null;
  const accountId = message && typeof message.account_id === 'string' ? message.account_id : null;
  return { id: event.id, type: event.event_name, created: event.created, account_id: accountId, payload: deliveryPayload(event) };
}

/** How many days back `GET /v2/events` lists events. */
export const EVENT_LIST_DAYS = 30;

/** The oldest creation time `GET /v2/events` lists, at `now`. */
export function eventListSince(now: Date): Date {
  return new Date(now.getTime() - EVENT_LIST_DAYS * 24 * 3_600_000);
}
