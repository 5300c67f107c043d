/**
 * The sandbox payout rail: payouts that go nowhere, decided at once from the receiver's sandbox
 * PayPal address — `payout-fails@example.com` is refused (FAILED, `destination_rejected`),
 * `payout-unclaimed@example.com` is taken and left PROCESSING (as PayPal leaves a payout its
 * receiver has not claimed), every other address is paid (SUCCESS). It has no provider ids.
 */
import { paypalSandboxOutcome } from './sandbox-payout.rules.js';
import type { PayoutRail, PayoutSendInput, PayoutSendResult } from './payout-rail.port.js';

export const sandboxPayoutRail: PayoutRail = {
  name: 'sandbox',
  async send(input: PayoutSendInput): Promise<PayoutSendResult> {
    switch (paypalSandboxOutcome(input.receiver)) {
      case 'payout_fails':
        return {
          status: 'FAILED',
          failureCode: 'destination_rejected',
          failureReason: 'The payout provider refused the destination account.',
        };
      case 'payout_unclaimed':
        return { status: 'PROCESSING' };
      default:
        return { status: 'SUCCESS' };
    }
  },
};
