/** The identity verifier of a configured adapter name (`IDENTITY_VERIFIER`): what the process that assembles the app calls. */
import type { IdentityVerifier } from './identity-verifier.port.js';
import type { RailAdapter } from './rail-choice.rules.js';
import { SandboxIdentityVerifier } from './sandbox-identity.adapter.js';

/** A new verifier of the adapter `IDENTITY_VERIFIER` names. */
export function identityVerifierFor(adapter: RailAdapter<'identity'>): IdentityVerifier {
  switch (adapter) {
    case 'sandbox':
      return new SandboxIdentityVerifier();
  }
}
