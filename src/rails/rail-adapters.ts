/**
 * The rails' adapters a process runs on, made from the configured choice (`config.rails`) and the
 * real providers' settings where the services are assembled (the worker, the web process, the
 * CLI). Modules receive the adapter they use; none of them reads the configuration.
 */
import type { CardProcessor } from './card-processor.port.js';
import { cardProcessorFor, type StripeApiSettings } from './card-processor.js';
import type { RefusalLogger } from './stripe-card.adapter.js';
import { PaypalClient, type PaypalClientOptions } from './paypal.client.js';
import { PaypalPayoutAdapter } from './paypal-payout.adapter.js';
import type { PayoutRail } from './payout-rail.port.js';
import type { RailChoice } from './rail-choice.rules.js';
import { sandboxPayoutRail } from './sandbox-payout.adapter.js';
import { tracedPort } from '../runtime/tracing-hooks.js';

/** The real providers' settings, each set when a rail runs on that provider. */
export interface RailSettings {
  paypal?: PaypalClientOptions;
  stripeApi?: StripeApiSettings;
  /** The process logger: what a rail tells operators (a capture Stripe refused). */
  logger?: RefusalLogger;
}

/** Each port's adapter, and the provider clients behind them (for the webhooks they sign). */
export interface RailAdapters {
  cards: CardProcessor;
  payouts: PayoutRail;
  /** The PayPal client when payouts run on PayPal: it also checks `/hooks/paypal` deliveries. */
  paypal?: PaypalClient;
}

/** The adapters of a rail choice. */
export function railAdapters(choice: RailChoice, settings: RailSettings = {}): RailAdapters {
  // With tracing on, each call to a provider is a span (`cards.charge`, `payouts.send`…). The
  // sandbox card processor stays itself: the escrow runner recognises it (it charges in the statement).
  const processor = cardProcessorFor(choice.cards, settings.stripeApi, settings.logger);
  const cards = choice.cards === 'sandbox' ? processor : tracedPort(processor, 'cards');
  switch (choice.payouts) {
    case 'sandbox':
      return { cards, payouts: tracedPort(sandboxPayoutRail, 'payouts') };
    case 'paypal': {
      if (!settings.paypal) throw new Error('PAYOUT_RAIL=paypal without its settings');
      const paypal = new PaypalClient(settings.paypal);
      return { cards, payouts: tracedPort(new PaypalPayoutAdapter(paypal), 'payouts'), paypal };
    }
  }
}
