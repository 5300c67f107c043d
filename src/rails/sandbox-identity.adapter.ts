/**
 * The sandbox identity verifier (`IDENTITY_VERIFIER=sandbox`, staging's default): decides at
 * once from the last name alone, so that every outcome can be tried without a provider. Only
 * this adapter decides from the last name; production refuses to start with it.
 */
import type { IdentityCheckRequest, IdentityCheckStart, IdentityVerdict, IdentityVerifier } from './identity-verifier.port.js';

/** `Deny` → DENY, `Review` → MANUAL_REVIEW (case and surrounding spaces ignored), anything else → ACCEPT. */
function sandboxVerdict(lastName: string): IdentityVerdict {
  const name = lastName.trim().toLowerCase();
  if (name === 'deny') return 'DENY';
  if (name === 'review') return 'MANUAL_REVIEW';
  return 'ACCEPT';
}

/** The sandbox adapter of the identity port: never starts a session. */
export class SandboxIdentityVerifier implements IdentityVerifier {
  readonly name = 'sandbox';

  /** Decides at once from the submitted last name. */
  async start(request: IdentityCheckRequest): Promise<IdentityCheckStart> {
    return { kind: 'decided', state: sandboxVerdict(request.personalData.last_name) };
  }
}
