import assert from 'node:assert/strict';
import { payoutAttemptRef, paypalItemObject, paypalPayoutObjects } from '../../src/rails/paypal-provider-object.rules.js';

const item = {
  payout_item_id: 'ITEM123',
  payout_batch_id: 'BATCH123',
  transaction_status: 'SUCCESS',
  sender_batch_id: 'po_01ABC-2',
  payout_item: { amount: { currency: 'USD', value: '25.00' }, receiver: 'ada@example.com', sender_item_id: 'po_01ABC-2' },
  links: [{ href: 'https://api-m.paypal.com/v1/payments/payouts-item/ITEM123', rel: 'item' }],
};

describe('PayPal provider objects of a payout', () => {
  it('names the record behind an attempt payout:<payout id>:<attempt>', () => {
    assert.equal(payoutAttemptRef('po_01ABC', 2), 'payout:po_01ABC:2');
  });

  it('keeps the batch header and each item of an answer, by their PayPal ids, behind the attempt', () => {
    const objects = paypalPayoutObjects(
      {
        batch_header: { payout_batch_id: 'BATCH123', batch_status: 'SUCCESS', sender_batch_header: { sender_batch_id: 'po_01ABC-2' } },
        items: [item],
      },
      'int_1',
      'payout:po_01ABC:2',
    );
    assert.deepEqual(
      objects.map((o) => [o.provider, o.objectType, o.objectId, o.integratorId, o.holdfastRef]),
      [
        ['paypal', 'payout_batch', 'BATCH123', 'int_1', 'payout:po_01ABC:2'],
        ['paypal', 'payout_item', 'ITEM123', 'int_1', 'payout:po_01ABC:2'],
      ],
    );
    assert.equal(objects[1].snapshot.transaction_status, 'SUCCESS');
    assert.equal(objects[1].snapshot.links, undefined);
    assert.deepEqual(paypalPayoutObjects(undefined, 'int_1', 'payout:x:1'), []);
  });

  it('makes the object of a webhook event’s item', () => {
    const o = paypalItemObject(item, null, 'payout:po_01ABC:2');
    assert.equal(o.objectId, 'ITEM123');
    assert.equal(o.snapshot.payout_batch_id, 'BATCH123');
  });
});
