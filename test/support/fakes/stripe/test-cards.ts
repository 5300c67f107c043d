/**
 * Stripe's documented test cards (docs.stripe.com/testing), by PaymentMethod id and by number,
 * with what each does when charged or refunded.
 */
export type ChargeBehaviour =
  | { kind: 'succeed' }
  | { kind: 'decline'; code: string; declineCode?: string; message: string }
  /** 3-D Secure on every charge; `afterwards` is what an authenticated charge does (default: succeed). */
  | { kind: 'authenticate'; afterwards?: { code: string; declineCode?: string; message: string } };

export interface TestCard {
  /** The test PaymentMethod id Stripe accepts in place of a real one. */
  token: string;
  number: string;
  brand: string;
  funding: 'credit' | 'debit';
  country: string;
  charge: ChargeBehaviour;
  /** What refunds of this card's charges do later: fail (`refundFail`) or succeed after `pending` (`pendingRefund`). */
  refund?: 'fails-later' | 'pending-then-succeeds';
  /** Stripe's documented declining cards cannot be attached to a Customer: attaching answers their decline. */
  declinesAttach?: boolean;
}

const declined = (declineCode: string | undefined, message: string, code = 'card_declined'): ChargeBehaviour => ({
  kind: 'decline',
  code,
  declineCode,
  message,
});

const CARDS: TestCard[] = [
  { token: 'pm_card_visa', number: '4242424242424242', brand: 'visa', funding: 'credit', country: 'US', charge: { kind: 'succeed' } },
  { token: 'pm_card_visa_debit', number: '4000056655665556', brand: 'visa', funding: 'debit', country: 'US', charge: { kind: 'succeed' } },
  {
    token: 'pm_card_mastercard',
    number: '5555555555554444',
    brand: 'mastercard',
    funding: 'credit',
    country: 'US',
    charge: { kind: 'succeed' },
  },
  { token: 'pm_card_amex', number: '378282246310005', brand: 'amex', funding: 'credit', country: 'US', charge: { kind: 'succeed' } },
  {
    token: 'pm_card_chargeDeclined',
    declinesAttach: true,
    number: '4000000000000002',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('generic_decline', 'Your card was declined.'),
  },
  {
    token: 'pm_card_visa_chargeDeclinedInsufficientFunds',
    declinesAttach: true,
    number: '4000000000009995',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('insufficient_funds', 'Your card has insufficient funds.'),
  },
  {
    token: 'pm_card_visa_chargeDeclinedLostCard',
    declinesAttach: true,
    number: '4000000000009987',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('lost_card', 'Your card was declined.'),
  },
  {
    token: 'pm_card_chargeDeclinedExpiredCard',
    declinesAttach: true,
    number: '4000000000000069',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined(undefined, 'Your card has expired.', 'expired_card'),
  },
  {
    token: 'pm_card_chargeDeclinedIncorrectCvc',
    declinesAttach: true,
    number: '4000000000000127',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined(undefined, "Your card's security code is incorrect.", 'incorrect_cvc'),
  },
  {
    token: 'pm_card_chargeDeclinedProcessingError',
    declinesAttach: true,
    number: '4000000000000119',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined(undefined, 'An error occurred while processing your card. Try again in a little bit.', 'processing_error'),
  },
  {
    token: 'pm_card_chargeCustomerFail',
    number: '4000000000000341',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('generic_decline', 'Your card was declined.'),
  },
  {
    token: 'pm_card_authenticationRequired',
    number: '4000002760003184',
    brand: 'visa',
    funding: 'credit',
    country: 'DE',
    charge: { kind: 'authenticate' },
  },
  {
    token: 'pm_card_refundFail',
    number: '4000000000005126',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: { kind: 'succeed' },
    refund: 'fails-later',
  },
  {
    token: 'pm_card_pendingRefund',
    number: '4000000000007726',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: { kind: 'succeed' },
    refund: 'pending-then-succeeds',
  },
  {
    token: 'pm_card_visa_chargeDeclinedStolenCard',
    declinesAttach: true,
    number: '4000000000009979',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('stolen_card', 'Your card was declined.'),
  },
  {
    token: 'pm_card_visa_chargeDeclinedVelocityLimitExceeded',
    declinesAttach: true,
    number: '4000000000006975',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined(
      'card_velocity_exceeded',
      'Your card was declined for making repeated attempts too frequently or exceeding its amount limit.',
    ),
  },
  {
    token: 'pm_card_authenticationRequiredChargeDeclinedInsufficientFunds',
    number: '4000008260003178',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: {
      kind: 'authenticate',
      afterwards: { code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
    },
  },
];

// Stripe also accepts these aliases for the same cards.
const ALIASES: Record<string, string> = {
  pm_card_visa_chargeDeclined: 'pm_card_chargeDeclined',
  pm_card_chargeDeclinedInsufficientFunds: 'pm_card_visa_chargeDeclinedInsufficientFunds',
  pm_card_chargeDeclinedLostCard: 'pm_card_visa_chargeDeclinedLostCard',
  pm_card_chargeDeclinedStolenCard: 'pm_card_visa_chargeDeclinedStolenCard',
  pm_card_threeDSecure2Required: 'pm_card_authenticationRequired',
};

/** The test card a test PaymentMethod id (`pm_card_visa`, …) stands for, if any. */
export function testCardByToken(token: string): TestCard | undefined {
  const name = ALIASES[token] ?? token;
  return CARDS.find((c) => c.token === name);
}

/** The test card a typed number stands for, if any (spaces and dashes ignored). */
export function testCardByNumber(number: string): TestCard | undefined {
  const digits = number.replace(/[\s-]/g, '');
  return CARDS.find((c) => c.number === digits);
}

/** Every test card the fake knows, for documentation and the browser stand-in. */
export function allTestCards(): readonly TestCard[] {
  return CARDS;
}
