/**
 * The identity port: how a KYC submission asks a verifier about a person. A verifier either
 * decides at once (the sandbox, from the last name) or starts a hosted session the person
 * completes with the provider (Stripe Identity's VerificationSession), whose outcome arrives
 * later by the provider's webhook and is applied to the check by the kyc module.
 */

/** The personal data the hosted KYC form collects, as the verifier receives it (trimmed, country upper case). */
export interface IdentityPersonalData {
  first_name: string;
  last_name: string;
  /** YYYY-MM-DD. */
  date_of_birth: string;
  address: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
}

/** What a check is started with. */
export interface IdentityCheckRequest {
  /** The check's id: a session-based adapter records it on the provider's session (metadata), so its outcome names the check. */
  kycId: string;
  /**
   * The submission's number on the check (1 for its first): with `kycId` it names the
   * submission, the same for a retry of one that was not taken, so a provider's idempotency
   * key built from both reuses the session a failed try may have made.
   */
  submission: number;
  accountId: string;
  personalData: IdentityPersonalData;
  /** Where the provider's hosted flow sends the person back to when they finish or leave it. */
  returnUrl: string;
}

/** The states a verifier may decide at once. */
export type IdentityVerdict = 'ACCEPT' | 'DENY' | 'MANUAL_REVIEW';

/**
 * A verifier's answer: `decided` — the check takes `state` now; `session` — a session was
 * started at the provider (the check waits in PROCESSING), `sessionId` is the provider's id
 * (Stripe: `vs_…`) and `verificationUrl` where the person completes it (Stripe: the session's `url`).
 */
export type IdentityCheckStart =
  | { kind: 'decided'; state: IdentityVerdict }
  | {
      kind: 'session';
      sessionId: string;
      verificationUrl: string;
      /** The provider's session as Holdfast keeps it (provider_object), when the adapter has one: never its URL or secrets. */
      snapshot?: { provider: 'stripe'; objectType: string; data: Record<string, unknown> };
    };

/**
 * What a provider later reports about a session (Stripe Identity's VerificationSession
 * `status`): `verified`, `requires_input` (with `last_error` when a check failed), `canceled`
 * (the person or the platform abandoned it), `processing`.
 */
export const VERIFIER_OUTCOMES = ['verified', 'requires_input', 'canceled', 'processing'] as const;
export type VerifierOutcome = (typeof VERIFIER_OUTCOMES)[number];

/** A verifier of identities: one adapter per provider, chosen by `IDENTITY_VERIFIER`. */
export interface IdentityVerifier {
  /** The adapter's name, as `IDENTITY_VERIFIER` spells it. */
  readonly name: string;
  /** Starts the check of a submission. A provider failure throws; the submission is then not taken. */
  start(request: IdentityCheckRequest): Promise<IdentityCheckStart>;
}
