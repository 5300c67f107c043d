import { ulid } from 'ulid';

/** Id prefixes (DESIGN §4): prefixed, sortable, at most 36 characters. */
export type IdPrefix = 'acct' | 'eml' | 'pm' | 'int' | 'cli' | 'evt' | 'key' | 'req';

/** A new id such as `acct_01JD…` (prefix + ULID, ≤ 31 characters). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
