/** The identity verifier of a configured adapter name (`IDENTITY_VERIFIER`): what the process that assembles the app calls. */
import type { StripeApiSettings } from './card-processor.js';
import type { IdentityVerifier } from './identity-verifier.port.js';
import type { RailAdapter } from './rail-choice.rules.js';
import { SandboxIdentityVerifier } from './sandbox-identity.adapter.js';
import { StripeIdentityVerifier } from './stripe-identity.adapter.js';

/** A new verifier of the adapter `IDENTITY_VERIFIER` names; Stripe's with the configured key and API base. */
export function identityVerifierFor(adapter: RailAdapter<'identity'>, stripeApi?: StripeApiSettings): IdentityVerifier {
  switch (adapter) {
    case 'sandbox':
      return new SandboxIdentityVerifier();
    case 'stripe': {
      // loadConfig requires the key with IDENTITY_VERIFIER=stripe; a hand-made config may not.
      if (!stripeApi?.secretKey) throw new Error('IDENTITY_VERIFIER=stripe needs STRIPE_SECRET_KEY');
      const { secretKey, host, port, protocol } = stripeApi;
      return new StripeIdentityVerifier({ secretKey, host, port, protocol });
    }
  }
}
