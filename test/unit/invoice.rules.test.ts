import assert from 'node:assert/strict';
import { authenticationVerdict } from '../../src/invoices/card-authentication.rules.js';
import {
  displayAmount,
  invoiceView,
  MAX_AMOUNT,
  planMoney,
  returnUrlProblem,
  type InvoiceRecord,
  type LineItemInput,
  type PaymentMethodInput,
} from '../../src/invoices/invoice.rules.js';

const line = (amount: number, currency = 'USD', recipients: LineItemInput['recipients'] = []): LineItemInput => ({
  amount,
  currency,
  transaction_type: 'user_to_user',
  recipients,
});
const pm = (payment_method_id: string, amount: number): PaymentMethodInput => ({ payment_method_id, amount });
const share = (amount: number, currency = 'USD') => ({ amount, currency, destination_wallet_id: 'wal_seller' });

describe('invoice money rules', () => {
  it('resolves the remainder onto the one method with amount 0', () => {
    const result = planMoney([line(1000), line(550)], [pm('pm_wallet', 300), pm('pm_card', 0)]);
    assert.deepEqual(result, {
      ok: true,
      plan: {
        currency: 'USD',
        total: 1550,
        charges: [
          { paymentMethodId: 'pm_wallet', amount: 300 },
          { paymentMethodId: 'pm_card', amount: 1250 },
        ],
      },
    });
  });

  it('lets one method name the total itself', () => {
    assert.deepEqual(planMoney([line(1550)], [pm('pm_card', 1550)]), {
      ok: true,
      plan: { currency: 'USD', total: 1550, charges: [{ paymentMethodId: 'pm_card', amount: 1550 }] },
    });
  });

  it('accepts recipients whose shares fill their line exactly', () => {
    assert.equal(planMoney([line(1000, 'USD', [share(600), share(400)])], [pm('pm_card', 0)]).ok, true);
  });

  const refusals: Array<[string, LineItemInput[], PaymentMethodInput[], Record<string, string[]>]> = [
    ['no line items', [], [pm('pm_card', 0)], { line_items: ['REQUIRED'] }],
    ['lines in two currencies', [line(100), line(100, 'EUR')], [pm('pm_card', 0)], { 'line_items.1.currency': ['CURRENCY_MISMATCH'] }],
    [
      'a recipient in another currency than its line',
      [line(100, 'USD', [share(10, 'EUR')])],
      [pm('pm_card', 0)],
      { 'line_items.0.recipients.0.currency': ['CURRENCY_MISMATCH'] },
    ],
    [
      'recipients whose shares pass their line',
      [line(1000, 'USD', [share(600), share(401)])],
      [pm('pm_card', 0)],
      { 'line_items.0.recipients': ['EXCEEDS_LINE_AMOUNT'] },
    ],
    ['a total past 2^53 − 1', [line(MAX_AMOUNT), line(1)], [pm('pm_card', 0)], { line_items: ['TOTAL_TOO_LARGE'] }],
    ['no payment method', [line(100)], [], { payment_methods: ['REQUIRED'] }],
    ['one method naming less than the total', [line(100)], [pm('pm_card', 99)], { 'payment_methods.0.amount': ['MUST_COVER_TOTAL'] }],
    ['one method naming more than the total', [line(100)], [pm('pm_card', 101)], { 'payment_methods.0.amount': ['MUST_COVER_TOTAL'] }],
    ['several methods without a remainder', [line(100)], [pm('pm_a', 50), pm('pm_b', 50)], { payment_methods: ['EXACTLY_ONE_REMAINDER'] }],
    ['several methods with two remainders', [line(100)], [pm('pm_a', 0), pm('pm_b', 0)], { payment_methods: ['EXACTLY_ONE_REMAINDER'] }],
    [
      'fixed amounts that leave nothing for the remainder',
      [line(100)],
      [pm('pm_a', 100), pm('pm_b', 0)],
      { payment_methods: ['EXCEEDS_TOTAL'] },
    ],
    ['the same method twice', [line(100)], [pm('pm_a', 40), pm('pm_a', 0)], { 'payment_methods.1.payment_method_id': ['DUPLICATE'] }],
  ];
  for (const [what, lines, methods, fields] of refusals) {
    it(`refuses ${what}, naming the field`, () => {
      const result = planMoney(lines, methods);
      assert.equal(result.ok, false);
      assert.deepEqual({ ...(result.ok ? {} : result.fields) }, fields);
    });
  }
});

describe('display amounts', () => {
  const cases: Array<[number, string, string]> = [
    [1550, 'USD', 'USD 15.50'],
    [5, 'USD', 'USD 0.05'],
    [0, 'EUR', 'EUR 0.00'],
    [120000, 'JPY', 'JPY 120000'],
    [250, 'GEM', 'GEM 250'],
  ];
  for (const [amount, currency, shown] of cases) {
    it(`shows ${amount} ${currency} as "${shown}"`, () => {
      assert.equal(displayAmount(amount, currency), shown);
    });
  }
});

describe('a buyer-present pay (3-D Secure)', () => {
  const policy = { publicUrl: 'https://pay.holdfast.example', patterns: ['shop.example', '*.games.example'] };

  it('returns the buyer only to a hosted page or a host the operator allows', () => {
    assert.equal(returnUrlProblem('https://pay.holdfast.example/ui/checkout?authorized_invoice_id=inv_1', policy), null);
    assert.equal(returnUrlProblem('https://shop.example/back', policy), null);
    assert.equal(returnUrlProblem('https://eu.games.example/back', policy), null);
    assert.equal(returnUrlProblem('http://127.0.0.1:4000/ui/checkout', { ...policy, patterns: ['127.0.0.1'] }), null);
    assert.equal(returnUrlProblem('https://phish.example/back', policy), 'REDIRECT_NOT_ALLOWED');
    assert.equal(returnUrlProblem('http://shop.example/back', policy), 'REDIRECT_NOT_ALLOWED', 'https only off localhost');
    assert.equal(returnUrlProblem('https://user:pw@shop.example/', policy), 'INVALID_VALUE');
    assert.equal(returnUrlProblem('javascript:alert(1)', policy), 'INVALID_VALUE');
    assert.equal(returnUrlProblem('/ui/checkout', policy), 'INVALID_VALUE');
  });

  it('reads the PaymentIntent, not the event: authorized, awaiting (with its page), or failed with a reason', () => {
    assert.deepEqual(authenticationVerdict({ status: 'requires_capture' }), { state: 'authorized' });
    assert.deepEqual(authenticationVerdict({ status: 'succeeded' }), { state: 'authorized' });
    assert.deepEqual(
      authenticationVerdict({ status: 'requires_action', next_action: { redirect_to_url: { url: 'https://bank.example/3ds' } } }),
      { state: 'awaiting', url: 'https://bank.example/3ds' },
    );
    assert.deepEqual(
      authenticationVerdict({
        status: 'requires_payment_method',
        last_payment_error: { type: 'invalid_request_error', code: 'payment_intent_authentication_failure' },
      }),
      { state: 'failed', reason: 'authentication_failed' },
    );
    assert.deepEqual(authenticationVerdict({ status: 'canceled' }), { state: 'failed', reason: 'authentication_failed' });
    assert.deepEqual(
      authenticationVerdict({
        status: 'requires_payment_method',
        last_payment_error: { type: 'card_error', decline_code: 'insufficient_funds' },
      }),
      { state: 'failed', reason: 'insufficient_funds' },
    );
  });

  it('shows next_action_url only while PROCESSING', () => {
    const invoice = {
      id: 'inv_1',
      integratorId: 'int_1',
      accountId: 'acc_1',
      escrowId: null,
      invoiceType: 'user_purchase',
      state: 'PROCESSING',
      referenceType: null,
      referenceId: null,
      description: null,
      metadata: {},
      currency: 'USD',
      totalAmount: 100,
      failureReason: null,
      paymentMethods: [],
      lineItems: [],
      createdAt: new Date(0),
      updatedAt: new Date(0),
      nextActionUrl: 'https://bank.example/3ds',
    } as InvoiceRecord;
    assert.equal(invoiceView(invoice).next_action_url, 'https://bank.example/3ds');
    assert.equal('next_action_url' in invoiceView({ ...invoice, state: 'FAILED' }), false);
    assert.equal('next_action_url' in invoiceView({ ...invoice, nextActionUrl: null }), false);
  });
});
