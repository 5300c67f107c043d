/** Account rules and views (pure: no I/O). */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';

export const PLATFORMS = ['steam', 'oculus', 'apple', 'google', 'microsoft', 'nintendo', 'sony'] as const;
export type Platform = (typeof PLATFORMS)[number];
export type ExternalPlatforms = Partial<Record<Platform, { user_id: string }>>;

/** The name and address fields of registration and update. */
export const DETAIL_FIELDS = [
  'full_name',
  'street_address_1',
  'street_address_2',
  'street_address_3',
  'city',
  'state_province',
  'country_iso',
  'zip_postal_code',
] as const;
export type DetailField = (typeof DETAIL_FIELDS)[number];
export type Details = Partial<Record<DetailField, string>>;

/** Entity property of each detail field. */
export const DETAIL_PROPERTY = {
  full_name: 'fullName',
  street_address_1: 'streetAddress1',
  street_address_2: 'streetAddress2',
  street_address_3: 'streetAddress3',
  city: 'city',
  state_province: 'stateProvince',
  country_iso: 'countryIso',
  zip_postal_code: 'zipPostalCode',
} as const satisfies Record<DetailField, string>;

export interface EmailInput {
  address: string;
  requires_verification?: boolean;
}

/**
 * Whether an address counts as verified: Holdfast sends no email, so an address is verified
 * only when the integrator says it needs no verification (`requires_verification: false`).
 */
export function isEmailVerified(input: EmailInput): boolean {
  return input.requires_verification === false;
}

/** The platforms of an external_platforms object as [platform, user_id] pairs. */
export function platformEntries(platforms: ExternalPlatforms | undefined): Array<[Platform, string]> {
  return PLATFORMS.flatMap((p) => (platforms?.[p] ? [[p, platforms[p]!.user_id] as [Platform, string]] : []));
}

/** The detail fields present in a request body. */
export function pickDetails(body: object): Details {
  const out: Details = {};
  const values = body as Record<string, unknown>;
  for (const field of DETAIL_FIELDS) if (typeof values[field] === 'string') out[field] = values[field] as string;
  return out;
}

/** Older field names registration and update still take, each the alias of a field of the spec. */
export const DETAIL_ALIASES = { country: 'country_iso' } as const satisfies Record<string, DetailField>;

/**
 * A registration or update body in the older shape made into the spec's: each platform id sent
 * as a top-level key (`"steam": {"user_id": …}`, any key of `external_platforms`) moves into
 * `external_platforms`, and `country` becomes `country_iso`. A field sent in both forms is
 * refused (`ALIAS_CONFLICT` on the spec's name: `country_iso`, `external_platforms.steam`).
 * Anything else is left as sent, for the validation to judge.
 */
export function accountBodyInSpecShape(
  body: Record<string, unknown>,
): { ok: true; body: Record<string, unknown> } | { ok: false; fields: FieldErrors } {
  const has = (o: object, key: string) => Object.hasOwn(o, key);
  if (!PLATFORMS.some((p) => has(body, p)) && !Object.keys(DETAIL_ALIASES).some((a) => has(body, a))) return { ok: true, body };
  const fields = fieldErrors();
  const out: Record<string, unknown> = { ...body };
  for (const [alias, field] of Object.entries(DETAIL_ALIASES)) {
    if (!has(body, alias)) continue;
    if (has(body, field)) addFieldError(fields, field, 'ALIAS_CONFLICT');
    else out[field] = body[alias];
    delete out[alias];
  }
  const given = body.external_platforms;
  const usable = given === undefined || (typeof given === 'object' && given !== null && !Array.isArray(given));
  const platforms: Record<string, unknown> = usable && given ? { ...given } : {};
  let moved = false;
  for (const platform of PLATFORMS) {
    if (!has(body, platform)) continue;
    if (has(platforms, platform)) addFieldError(fields, `external_platforms.${platform}`, 'ALIAS_CONFLICT');
    else platforms[platform] = body[platform];
    delete out[platform];
    moved = true;
  }
  // A malformed `external_platforms` (not an object) is left as sent, for the validation to name.
  if (moved && usable) out.external_platforms = platforms;
  if (Object.keys(fields).length) return { ok: false, fields };
  return { ok: true, body: out };
}
