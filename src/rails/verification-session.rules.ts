/**
 * What Holdfast keeps of a Stripe Identity VerificationSession (pure): its id, status, error and
 * the check it names — not its `url` or `client_secret` (which let anyone complete it), nor
 * `verified_outputs` or `provided_details` (the person's data stays with Stripe).
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
