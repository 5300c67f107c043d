import assert from 'node:assert/strict';
import { itemSightReplaces, paypalItemReport, type SentPayout, sentPayoutMismatch } from '../../src/payouts/paypal-item.rules.js';

const resource = {
  payout_item_id: 'ITEM123',
  payout_batch_id: 'BATCH123',
  transaction_status: 'FAILED',
  sender_batch_id: 'po_01ABC-2',
  payout_item: { amount: { currency: 'USD', value: '25.00' }, receiver: 'ada@example.com', sender_item_id: 'po_01ABC-2' },
  errors: { name: 'RECEIVER_ACCOUNT_LOCKED', message: 'Receiver account is locked or inactive.' },
};

describe('PayPal payout items as the payouts module reads them', () => {
  it("reads an item event's resource: its id, status, attempt, batch and failure", () => {
    assert.deepEqual(paypalItemReport(resource, 'PAYMENT.PAYOUTS-ITEM.FAILED'), {
      ok: true,
      report: {
        itemId: 'ITEM123',
        status: 'FAILED',
        senderBatchId: 'po_01ABC-2',
        batchId: 'BATCH123',
        failureCode: 'receiver_account_locked',
        failureReason: 'Receiver account is locked or inactive.',
      },
    });
  });

  it("falls back to the batch's sender_batch_id and to the status the event type names", () => {
    const {
      transaction_status: _s,
      payout_item: { sender_item_id: _i, ...inner },
      errors: _e,
      ...rest
    } = resource;
    const parsed = paypalItemReport({ ...rest, payout_item: inner }, 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED');
    assert.ok(parsed.ok);
    assert.deepEqual([parsed.report.status, parsed.report.senderBatchId, parsed.report.failureCode], ['SUCCESS', 'po_01ABC-2', null]);
    // A cancelled (unclaimed) item gave the money back: a return, not a state that keeps the payout PROCESSING.
    const cancelled = paypalItemReport({ ...rest, payout_item: inner }, 'PAYMENT.PAYOUTS-ITEM.CANCELED');
    assert.ok(cancelled.ok);
    assert.equal(cancelled.report.status, 'RETURNED');
  });

  it('refuses a resource that is not an item, naming the field', () => {
    assert.deepEqual(paypalItemReport(undefined, 'PAYMENT.PAYOUTS-ITEM.FAILED'), { ok: false, field: 'resource' });
    assert.deepEqual(paypalItemReport({ transaction_status: 'SUCCESS' }, 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED'), {
      ok: false,
      field: 'resource.payout_item_id',
    });
  });

  it('replaces a stored item only with a sight not behind it; of two settled statuses the first stays', () => {
    assert.equal(itemSightReplaces(undefined, 'PENDING'), true);
    assert.equal(itemSightReplaces('PENDING', 'UNCLAIMED'), true);
    assert.equal(itemSightReplaces('UNCLAIMED', 'RETURNED'), true);
    assert.equal(itemSightReplaces('RETURNED', 'UNCLAIMED'), false, 'an UNCLAIMED delivered after RETURNED');
    assert.equal(itemSightReplaces('SUCCESS', 'PENDING'), false, "the execution's read after the webhook");
    assert.equal(itemSightReplaces('SUCCESS', 'SUCCESS'), true);
    assert.equal(itemSightReplaces('SUCCESS', 'RETURNED'), false);
    assert.equal(itemSightReplaces('SUCCESS', 'REVERSED'), true, 'PayPal undoing a paid item is kept, for verify to name');
  });

  it('matches a payout sent to PayPal with its stored item: stored, its attempt, amount, currency, and settled status', () => {
    const sent: SentPayout = {
      id: 'po_1',
      status: 'SUCCESS',
      amount: 2500,
      currency: 'USD',
      attempt: 2,
      providerItemId: 'ITEM123',
      item: { holdfastRef: 'payout:po_1:2', status: 'SUCCESS', amount: 2500, currency: 'USD' },
    };
    assert.equal(sentPayoutMismatch(sent), undefined);
    assert.equal(sentPayoutMismatch({ ...sent, status: 'PROCESSING', item: { ...sent.item!, status: 'UNCLAIMED' } }), undefined);
    assert.equal(sentPayoutMismatch({ ...sent, status: 'FAILED', item: { ...sent.item!, status: 'FAILED' } }), undefined);
    assert.equal(
      sentPayoutMismatch({ ...sent, item: undefined }),
      'payout po_1 (SUCCESS, USD 2500) names PayPal item ITEM123, which is not stored',
    );
    assert.equal(
      sentPayoutMismatch({ ...sent, item: { ...sent.item!, amount: 150 } }),
      'payout po_1 (SUCCESS, USD 2500): PayPal item ITEM123 is for USD 150',
    );
    assert.equal(
      sentPayoutMismatch({ ...sent, item: { ...sent.item!, holdfastRef: 'payout:po_1:1' } }),
      'payout po_1 (SUCCESS, USD 2500): PayPal item ITEM123 stands behind payout:po_1:1, not payout:po_1:2',
    );
    assert.equal(
      sentPayoutMismatch({ ...sent, status: 'RETURNED', item: { ...sent.item!, status: 'UNCLAIMED' } }),
      'payout po_1 (RETURNED, USD 2500): PayPal item ITEM123 is UNCLAIMED, not RETURNED',
    );
  });
});
