/**
 * PayPal's webhook transmission signature, as the fake makes and checks it: SHA256withRSA over
 * `<transmission id>|<transmission time>|<webhook id>|<CRC32 of the raw body, decimal>`, the
 * public key served at `PAYPAL-CERT-URL`. Only PayPal (here: the fake) can say whether a
 * signature is good: receivers ask `POST /v1/notifications/verify-webhook-signature`.
 */
import { generateKeyPairSync, type KeyObject, randomUUID, sign, verify } from 'node:crypto';
import { crc32 } from 'node:zlib';

export type TransmissionHeaders = {
  'paypal-transmission-id': string;
  'paypal-transmission-time': string;
  'paypal-transmission-sig': string;
  'paypal-cert-url': string;
  'paypal-auth-algo': string;
};

export const AUTH_ALGO = 'SHA256withRSA';

export interface Signer {
  publicKeyPem: string;
  /** The transmission headers PayPal sends with `rawBody` for the webhook `webhookId`. */
  headers(rawBody: string, webhookId: string, certUrl: string): TransmissionHeaders;
  /** Whether `sig` is this signer's signature of the transmission. */
  check(t: { transmissionId: string; transmissionTime: string; webhookId: string; rawBody: string; sig: string }): boolean;
}

function payload(transmissionId: string, time: string, webhookId: string, rawBody: string): Buffer {
  return Buffer.from(`${transmissionId}|${time}|${webhookId}|${crc32(Buffer.from(rawBody, 'utf8'))}`, 'utf8');
}

/** A fresh RSA key pair for one fake. */
export function createSigner(): Signer {
  const { privateKey, publicKey }: { privateKey: KeyObject; publicKey: KeyObject } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    headers(rawBody, webhookId, certUrl) {
      const id = randomUUID();
      const time = new Date().toISOString();
      return {
        'paypal-transmission-id': id,
        'paypal-transmission-time': time,
        'paypal-transmission-sig': sign('sha256', payload(id, time, webhookId, rawBody), privateKey).toString('base64'),
        'paypal-cert-url': certUrl,
        'paypal-auth-algo': AUTH_ALGO,
      };
    },
    check({ transmissionId, transmissionTime, webhookId, rawBody, sig }) {
      try {
        return verify('sha256', payload(transmissionId, transmissionTime, webhookId, rawBody), publicKey, Buffer.from(sig, 'base64'));
      } catch {
        return false;
      }
    },
  };
}
