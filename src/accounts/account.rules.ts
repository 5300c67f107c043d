/** Account rules and views (pure: no I/O). */

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
