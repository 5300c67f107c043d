/** Chooses the card processor a process runs on, from its configuration (CARD_PROCESSOR). */
import type { Config } from '../../config/index.js';
import type { CardProcessor } from './card-processor.port.js';
import { sandboxCardProcessor } from './sandbox-card.adapter.js';
import { stripeCardProcessor } from './stripe-card.adapter.js';

/** The configured card processor: the sandbox, or Stripe with the configured key and API base. */
export function cardProcessorFor(config: Pick<Config, 'rails' | 'stripeApi'>): CardProcessor {
  if (config.rails.cards === 'sandbox') return sandboxCardProcessor;
  const { secretKey, host, port, protocol } = config.stripeApi;
  // loadConfig requires the key with CARD_PROCESSOR=stripe; a hand-made config may not.
  if (!secretKey) throw new Error('CARD_PROCESSOR=stripe needs STRIPE_SECRET_KEY');
  return stripeCardProcessor({ secretKey, host, port, protocol });
}
