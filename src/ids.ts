import { randomFillSync } from 'node:crypto';

/** Id prefixes: prefixed, sortable, at most 36 characters. */
export type IdPrefix =
  | 'acct'
  | 'eml'
  | 'pm'
  | 'int'
  | 'cli'
  | 'evt'
  | 'key'
  | 'req'
  | 'led'
  | 'pst'
  | 'esc'
  | 'inv'
  | 'li'
  | 'cmd'
  | 'blk'
  | 'tag'
  | 'rft'
  | 'rtf'
  | 'whe'
  | 'whd'
  | 'kyc'
  | 'po'
  | 'tex'
  | 'pev'
  | 'dsp'
  | 'dhl'
  | 'cu'
  | 'aud';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
// Random bytes are drawn from a pooled buffer: one getrandom call per 409 ids, not per id.
const pool = Buffer.alloc(4096);
let offset = pool.length;

function randomBytes10(): Buffer {
  if (offset + 10 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  offset += 10;
  return pool.subarray(offset - 10, offset);
}

let lastTime = -1;
const lastRandom = Buffer.alloc(10);

/**
 * A ULID: 48-bit millisecond time then 80 random bits, in Crockford base32 (26 characters).
 * Monotonic within a process: ids made in the same millisecond count up from the first one's
 * random part, so they sort in the order they were made.
 */
export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    now = lastTime;
    for (let i = 9; i >= 0; i--) {
      lastRandom[i] = (lastRandom[i] + 1) & 0xff;
      if (lastRandom[i] !== 0) break;
    }
  } else {
    lastTime = now;
    randomBytes10().copy(lastRandom);
  }
  let out = '';
  let time = now;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[time % 32] + out;
    time = Math.floor(time / 32);
  }
  // 80 bits → 16 characters of 5 bits.
  let acc = 0;
  let bits = 0;
  for (const byte of lastRandom) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** A new id such as `acct_01JD…` (prefix + ULID, ≤ 31 characters). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
