/** Chooses the card processor a process runs on, from its configuration (CARD_PROCESSOR). */
import type { CardProcessor } from './card-processor.port.js';
import type { RailChoice } from './rail-choice.rules.js';
import { sandboxCardProcessor } from './sandbox-card.adapter.js';
import { type RefusalLogger, stripeCardProcessor } from './stripe-card.adapter.js';

/** Where the `stripe` package reaches Stripe (STRIPE_SECRET_KEY, STRIPE_API_BASE split into its options). */
export interface StripeApiSettings {
  secretKey: string | undefined;
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

/** The configured card processor: the sandbox, or Stripe with the configured key and API base. */
export function cardProcessorFor(
  adapter: RailChoice['cards'],
  stripeApi: StripeApiSettings | undefined,
  logger?: RefusalLogger,
): CardProcessor {
  if (adapter === 'sandbox') return sandboxCardProcessor;
  const { secretKey, host, port, protocol } = stripeApi ?? { secretKey: undefined, host: '', port: 0, protocol: 'https' };
  // loadConfig requires the key with CARD_PROCESSOR=stripe; a hand-made config may not.
  if (!secretKey) throw new Error('CARD_PROCESSOR=stripe needs STRIPE_SECRET_KEY');
  return stripeCardProcessor({ secretKey, host, port, protocol, logger });
}
