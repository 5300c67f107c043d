/** Scopes and token rules (pure). */

/** Scopes of the reference contract plus those Holdfast adds (`npx holdfast client create --scopes all`). */
export const ALL_SCOPES = [
  'write_registrations',
  'write_accounts',
  'read_accounts',
  'search_accounts',
  'sign_tos',
  'unsign_tos',
  'block_accounts',
  'unblock_accounts',
  'read_payment_methods',
  'write_user_tokens',
  'read_invoices',
  'write_invoices',
  'write_payment_methods',
  'write_tokens',
  'write_webhooks',
  'read_webhooks',
  'write_sandbox',
  'read_kyc',
  'read_process_credits',
  'write_process_credits',
  'read_disputes',
  'write_disputes',
  'read_reports',
  'read_audit',
] as const;
export type Scope = (typeof ALL_SCOPES)[number];

/** Client access tokens live for an hour. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

/** User password tokens live as long as client tokens; their refresh tokens 30 days (rotated at each use). */
export const USER_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;

/** A user-session redirect nonce is single-use and expires in 24 h. */
export const SESSION_NONCE_TTL_SECONDS = 24 * 3600;

/** What a refresh token may still do, from its stored state (RFC 6749 §10.4: a reused one revokes its family). */
export function refreshDecision(
  token: { usedAt: Date | null; revokedAt: Date | null; expiresAt: Date },
  now: Date,
): 'ok' | 'reused' | 'revoked' | 'expired' {
  if (token.revokedAt) return 'revoked';
  if (token.usedAt) return 'reused';
  if (token.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'ok';
}

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** Splits a `scope` parameter on spaces and commas; empty parts are ignored. */
export function parseScopeList(raw: string | undefined): string[] {
  if (!raw) return [];
  return [...new Set(raw.split(/[\s,]+/).filter(Boolean))];
}

/**
 * The scopes a token gets: all the client's when none are asked for, else exactly the ones
 * asked for — every one of which the client must hold (else `invalid_scope` lists the rest).
 */
export function grantScopes(
  clientScopes: string[],
  requested: string[],
): { ok: true; scopes: string[] } | { ok: false; notGranted: string[] } {
  if (requested.length === 0) return { ok: true, scopes: [...clientScopes] };
  const notGranted = requested.filter((s) => !clientScopes.includes(s));
  return notGranted.length ? { ok: false, notGranted } : { ok: true, scopes: requested };
}

/** The scopes of `required` that `held` lacks (an operation needs all of its listed scopes). */
export function missingScopes(held: readonly string[], required: readonly string[]): string[] {
  return required.filter((s) => !held.includes(s));
}

/** `all` or a comma list of known scopes, as given to `holdfast client create --scopes`. */
export function parseScopeOption(raw: string): { ok: true; scopes: Scope[] } | { ok: false; unknown: string[] } {
  if (raw.trim() === 'all') return { ok: true, scopes: [...ALL_SCOPES] };
  const list = parseScopeList(raw);
  const unknown = list.filter((s) => !isScope(s));
  return unknown.length ? { ok: false, unknown } : { ok: true, scopes: list as Scope[] };
}
