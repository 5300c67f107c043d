/**
 * Stripe's documented test cards (docs.stripe.com/testing), by PaymentMethod id and by number,
 * with what each does when charged or refunded.
 */
export type ChargeBehaviour =
  | { kind: 'succeed' }
  | { kind: 'decline'; code: string; declineCode: string; message: string }
  | { kind: 'authenticate' };

export interface TestCard {
  /** The test PaymentMethod id Stripe accepts in place of a real one. */
  token: string;
  number: string;
  brand: string;
  funding: 'credit' | 'debit';
  country: string;
  charge: ChargeBehaviour;
  /** Refunds of this card's charges fail some time after they are created. */
  refundFails?: boolean;
}

const declined = (declineCode: string, message: string, code = 'card_declined'): ChargeBehaviour => ({
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
    number: '4000000000000002',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('generic_decline', 'Your card was declined.'),
  },
  {
    token: 'pm_card_visa_chargeDeclinedInsufficientFunds',
    number: '4000000000009995',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('insufficient_funds', 'Your card has insufficient funds.'),
  },
  {
    token: 'pm_card_visa_chargeDeclinedLostCard',
    number: '4000000000009987',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('lost_card', 'Your card was declined.'),
  },
  {
    token: 'pm_card_chargeDeclinedExpiredCard',
    number: '4000000000000069',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('expired_card', 'Your card has expired.', 'expired_card'),
  },
  {
    token: 'pm_card_chargeDeclinedIncorrectCvc',
    number: '4000000000000127',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('incorrect_cvc', "Your card's security code is incorrect.", 'incorrect_cvc'),
  },
  {
    token: 'pm_card_chargeDeclinedProcessingError',
    number: '4000000000000119',
    brand: 'visa',
    funding: 'credit',
    country: 'US',
    charge: declined('processing_error', 'An error occurred while processing your card. Try again in a little bit.', 'processing_error'),
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
    refundFails: true,
  },
];

// Stripe also accepts these aliases for the same cards.
const ALIASES: Record<string, string> = {
  pm_card_visa_chargeDeclined: 'pm_card_chargeDeclined',
  pm_card_chargeDeclinedInsufficientFunds: 'pm_card_visa_chargeDeclinedInsufficientFunds',
  pm_card_chargeDeclinedLostCard: 'pm_card_visa_chargeDeclinedLostCard',
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
