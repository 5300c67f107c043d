import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A Stripe-looking id: the object's prefix and 24 random alphanumerics (`pi_3Q…`). */
export function stripeId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return `${prefix}_${out}`;
}

/** A stable card fingerprint: the same number always gives the same 16 characters, as Stripe's does. */
export function fingerprint(cardNumber: string): string {
  const digest = createHash('sha256').update(`stripe-fake:${cardNumber}`).digest();
  let out = '';
  for (let i = 0; i < 16; i++) out += ALPHABET[digest[i] % ALPHABET.length];
  return out;
}
