/**
 * Stripe Identity's VerificationSession in Holdfast's terms (pure): what is kept of a session,
 * and which outcome of the identity port its status and error are.
 */
import { VERIFIER_OUTCOMES, type VerifierOutcome } from './identity-verifier.port.js';

/**
 * What Holdfast keeps of a session: its id, status, error and the check it names — not its
 * `url` or `client_secret` (which let anyone complete it), nor `verified_outputs` or
 * `provided_details` (the person's data stays with Stripe).
 */
const KEPT_FIELDS = [
  'id',
  'object',
  'type',
  'status',
  'created',
  'livemode',
  'last_error',
  'last_verification_report',
  'metadata',
  'redaction',
];

/** The snapshot of a session to store: only the kept fields it has. */
export function verificationSessionSnapshot(session: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(KEPT_FIELDS.filter((field) => field in session).map((field) => [field, session[field]]));
}

/**
 * The `last_error` codes that say the person left their own verification rather than failed
 * it: Stripe leaves such a session in `requires_input`, but nothing is there for an operator
 * to review — it is the person's CANCEL, and they may submit again.
 */
export const ABANDONED_CODES: readonly string[] = ['abandoned', 'consent_declined'];

/**
 * The port's outcome of a session's `status` and `last_error.code`, or null for a status the
 * port does not know: `requires_input` with an abandoning code is `canceled` (the person's own).
 */
export function verificationSessionOutcome(
  status: string,
  errorCode: string | null,
): { outcome: VerifierOutcome; errorCode: string | null } | null {
  if (!(VERIFIER_OUTCOMES as readonly string[]).includes(status)) return null;
  if (status === 'requires_input' && errorCode && ABANDONED_CODES.includes(errorCode)) return { outcome: 'canceled', errorCode };
  return { outcome: status as VerifierOutcome, errorCode };
}
