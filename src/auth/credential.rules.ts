/** Credential lifecycle rules (pure): signing-key windows, revoked tokens, rotated client secrets. */
import { ACCESS_TOKEN_TTL_SECONDS, USER_TOKEN_TTL_SECONDS } from './auth.rules.js';

/** The longest an access token of either kind lives. */
export const MAX_TOKEN_TTL_SECONDS = Math.max(ACCESS_TOKEN_TTL_SECONDS, USER_TOKEN_TTL_SECONDS);

/**
 * Slack on top of a token's life before what could still verify it is forgotten: clock
 * differences between hosts, and a process that learns of a new signing key only at its next
 * periodic reload (`TOKEN_STATE_RELOAD_MS`) and signs with the old one until then.
 */
export const TOKEN_CLOCK_MARGIN_SECONDS = 300;

/**
 * How long a signing key goes on verifying after a newer one replaced it, and how long a revoked
 * session is remembered: no token it could concern is still alive after that.
 */
export const TOKEN_MEMORY_SECONDS = MAX_TOKEN_TTL_SECONDS + TOKEN_CLOCK_MARGIN_SECONDS;

/**
 * How far a token's `iat` may lie ahead of this host's clock, and how much longer than the
 * longest lifetime Holdfast issues a token may say it lives (`exp - iat`; rounding of `exp`).
 */
export const TOKEN_CLOCK_SKEW_SECONDS = 60;

/**
 * What is wrong with a verified token's times, or null: a token without `iat`, one that says it
 * lives longer than Holdfast issues tokens for (`exp - iat`), or one issued in the future. So a
 * token forged with a leaked key never outlives that key's verification window.
 */
export function tokenTimesProblem(iat: unknown, exp: number, nowSeconds: number): 'no-iat' | 'too-long' | 'future' | null {
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return 'no-iat';
  if (exp - iat > MAX_TOKEN_TTL_SECONDS + TOKEN_CLOCK_SKEW_SECONDS) return 'too-long';
  if (iat > nowSeconds + TOKEN_CLOCK_SKEW_SECONDS) return 'future';
  return null;
}

/** Every web process reloads keys and revocations from PostgreSQL this often, whatever Redis says. */
export const TOKEN_STATE_RELOAD_MS = 10_000;

/** After `holdfast client rotate-secret`, the old secret still authenticates this long (by default). */
export const SECRET_ROTATION_GRACE_HOURS = 24;
/** The longest grace `--grace-hours` accepts (a week). */
export const MAX_SECRET_ROTATION_GRACE_HOURS = 168;

/**
 * Whether a user password token was issued before the account's latest login block (so it
 * never works again, even once the block is lifted). `issuedAtMs` is the token's `iat` in
 * milliseconds; no token can be issued while the block is active, so "at or before" is exact.
 */
export function issuedBeforeLoginBlock(issuedAtMs: number, lastLoginBlockAt: Date | null): boolean {
  return lastLoginBlockAt !== null && issuedAtMs <= lastLoginBlockAt.getTime();
}

/** `--grace-hours`: a whole number of hours from 0 (the old secret stops at once) to a week. */
export function parseGraceHours(raw: string | undefined): { ok: true; hours: number } | { ok: false } {
  if (raw === undefined) return { ok: true, hours: SECRET_ROTATION_GRACE_HOURS };
  if (!/^\d{1,3}$/.test(raw) || Number(raw) > MAX_SECRET_ROTATION_GRACE_HOURS) return { ok: false };
  return { ok: true, hours: Number(raw) };
}

/** Whether a rotated-out secret still authenticates at `now`. */
export function previousSecretValid(expiresAt: Date | null | undefined, now: Date): boolean {
  return expiresAt != null && expiresAt.getTime() > now.getTime();
}
