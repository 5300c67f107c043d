/**
 * The sandbox card rail's rules (pure): the test card numbers and what each does when charged or
 * refunded, the checks a card number and expiry pass. The sandbox card adapter decides with them.
 */

/**
 * What a sandbox card does when charged (`refund_fails`: charges normally, but refunds of its
 * charges fail; `disputed`: charges normally, and each charge is disputed a day later).
 */
export type SandboxOutcome = 'succeeds' | 'card_declined' | 'insufficient_funds' | 'refund_fails' | 'disputed';

export const SANDBOX_CARDS: Record<string, SandboxOutcome> = {
  '4242424242424242': 'succeeds',
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000005126': 'refund_fails',
  '4000000000000259': 'disputed',
};

/** Why a refund to a sandbox card fails (the card 4000000000005126, `refund_fails`). */
export const REFUND_DECLINED_REASON = 'refund_declined';

/** Why a refund to a sandbox card with this outcome fails, or null when it goes through. */
export function cardRefundFailure(outcome: string | undefined): string | null {
  return outcome === 'refund_fails' ? REFUND_DECLINED_REASON : null;
}

/** Why charging a sandbox card with this outcome fails, or null when the charge goes through. */
export function cardChargeFailure(outcome: string | undefined): string | null {
  return outcome === 'succeeds' || outcome === 'refund_fails' || outcome === 'disputed' ? null : (outcome ?? 'card_declined');
}

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return number.length > 0 && sum % 10 === 0;
}

export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  return 'card';
}

/** A card expires at the end of its expiry month. */
export function isExpired(expMonth: number, expYear: number, now = new Date()): boolean {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth() + 1;
  return expYear < y || (expYear === y && expMonth < m);
}

/** Field errors for a card, or the sandbox outcome when it is acceptable. */
export function checkCard(
  card: { number: string; exp_month: number; exp_year: number },
  now = new Date(),
): { ok: true; outcome: SandboxOutcome } | { ok: false; fields: Record<string, string> } {
  if (!luhnValid(card.number)) return { ok: false, fields: { 'card.number': 'INVALID_VALUE' } };
  const outcome = SANDBOX_CARDS[card.number];
  if (!outcome) return { ok: false, fields: { 'card.number': 'NOT_A_TEST_CARD' } };
  if (isExpired(card.exp_month, card.exp_year, now)) return { ok: false, fields: { 'card.exp_year': 'EXPIRED' } };
  return { ok: true, outcome };
}
