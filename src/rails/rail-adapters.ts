/**
 * The rails' adapters a process runs on, made from the configured choice (`config.rails`) where
 * the services are assembled (the worker, the web process, the CLI). Modules receive the
 * adapter they use; none of them reads the configuration.
 */
import type { PayoutRail } from './payout-rail.port.js';
import type { RailChoice } from './rail-choice.rules.js';
import { sandboxPayoutRail } from './sandbox-payout.adapter.js';

/** Each port's adapter. */
export interface RailAdapters {
  payouts: PayoutRail;
}

/** The adapters of a rail choice. */
export function railAdapters(choice: RailChoice): RailAdapters {
  return { payouts: payoutRail(choice.payouts) };
}

function payoutRail(adapter: RailChoice['payouts']): PayoutRail {
  switch (adapter) {
    case 'sandbox':
      return sandboxPayoutRail;
  }
}
