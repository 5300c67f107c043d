import assert from 'node:assert/strict';
import { PaypalClient } from '../../src/rails/paypal.client.js';
import { PaypalPayoutAdapter } from '../../src/rails/paypal-payout.adapter.js';
import type { PayoutSendInput } from '../../src/rails/payout-rail.port.js';
import { RailUnavailableError } from '../../src/rails/rail-unavailable.error.js';
import { payoutAttemptRef, paypalPayoutObjects } from '../../src/rails/paypal-provider-object.rules.js';
import { providerObjectsOf, saveProviderObject } from '../../src/rails/provider-object.repository.js';
import { db as pooled } from '../../src/db/sql.js';
import { h } from '../support/harness.js';
import { type PaypalFake, startPaypalFake } from '../support/fakes/paypal/paypal-fake.js';

let n = 0;
function attempt(receiver: string, amount = 2_500, currency = 'USD', number = 1): PayoutSendInput {
  const payoutId = `po_adapter${Date.now()}${++n}`;
  return {
    payoutId,
    attempt: number,
    senderBatchId: `${payoutId}-${number}`,
    resend: false,
    amount,
    currency,
    receiver,
    note: 'Your payout',
  };
}

describe('PayPal payout adapter against the PayPal fake', () => {
  let fake: PaypalFake;
  let adapter: PaypalPayoutAdapter;

  beforeEach(async () => {
    fake = await startPaypalFake({ settleAfterMs: 40 });
    adapter = new PaypalPayoutAdapter(
      new PaypalClient({
        clientId: fake.clientId,
        clientSecret: fake.clientSecret,
        webhookId: fake.webhookId,
        apiBase: fake.url,
        timeoutMs: 1_000,
      }),
    );
  });
  afterEach(() => fake.stop());

  it('sends one EMAIL item per batch, sender_batch_id and sender_item_id from the port, and answers PROCESSING with the ids', async () => {
    const input = attempt('ada@example.com');
    const result = await adapter.send(input);
    assert.equal(result.status, 'PROCESSING');
    const batch = [...fake.batches.values()][0];
    assert.equal(result.providerBatchId, batch.payout_batch_id);
    assert.equal(result.providerItemId, batch.items[0].payout_item_id);
    const sent = fake.requests.find((r) => r.method === 'POST' && r.path === '/v1/payments/payouts')!.json;
    assert.equal(sent.sender_batch_header.sender_batch_id, input.senderBatchId);
    assert.equal(sent.items.length, 1);
    assert.deepEqual(sent.items[0], {
      recipient_type: 'EMAIL',
      amount: { currency: 'USD', value: '25.00' },
      receiver: 'ada@example.com',
      note: 'Your payout',
      sender_item_id: input.senderBatchId,
    });
    assert.equal((result.snapshot as any).batch_header.payout_batch_id, batch.payout_batch_id);
    assert.doesNotMatch(JSON.stringify(result.snapshot), new RegExp(fake.clientSecret));
  });

  it('leaves snapshots of its batch and item to store as provider objects, replaced as PayPal settles them', async () => {
    const input = attempt('ada@example.com');
    const ref = payoutAttemptRef(input.payoutId, input.attempt);
    const db = pooled(h().orm.em.fork());
    const first = await adapter.send(input);
    for (const o of paypalPayoutObjects(first.snapshot, null, ref)) await saveProviderObject(db, o);
    await fake.until(() => fake.events.length === 1);
    const settled = await adapter.send(input);
    for (const o of paypalPayoutObjects(settled.snapshot, null, ref)) await saveProviderObject(db, o);
    const stored = await providerObjectsOf(db, ref);
    assert.deepEqual(stored.map((o) => [o.objectType, o.objectId]).sort(), [
      ['payout_batch', first.providerBatchId],
      ['payout_item', first.providerItemId],
    ]);
    assert.equal(stored.find((o) => o.objectType === 'payout_item')!.snapshot.transaction_status, 'SUCCESS');
  });

  it('converts minor units exactly: 1 → "0.01", 123456789 → "1234567.89", 500 JPY → "500"', async () => {
    await adapter.send(attempt('a@example.com', 1));
    await adapter.send(attempt('b@example.com', 123_456_789));
    await adapter.send(attempt('c@example.com', 500, 'JPY'));
    const values = fake.requests.filter((r) => r.path === '/v1/payments/payouts').map((r) => r.json.items[0].amount);
    assert.deepEqual(values, [
      { currency: 'USD', value: '0.01' },
      { currency: 'USD', value: '1234567.89' },
      { currency: 'JPY', value: '500' },
    ]);
  });

  it('answers a repeated attempt with the batch PayPal already has: never a second batch, and its outcome once settled', async () => {
    const input = attempt('ada@example.com');
    const first = await adapter.send(input);
    const again = await adapter.send(input);
    assert.equal(fake.batches.size, 1);
    assert.equal(again.providerBatchId, first.providerBatchId);
    assert.equal(again.providerItemId, first.providerItemId);
    await fake.until(() => fake.events.length === 1);
    const settled = await adapter.send(input);
    assert.equal(settled.status, 'SUCCESS');
    assert.equal(fake.batches.size, 1);
  });

  it('recovers an attempt whose answer was lost (PayPal took it, the call timed out): retried, it pays once', async () => {
    const input = attempt('ada@example.com');
    await adapter.send(attempt('warm-up@example.com'));
    fake.fault({ kind: 'hang', ms: 1_600, match: '/v1/payments/payouts', process: true });
    await assert.rejects(adapter.send(input), RailUnavailableError);
    assert.equal(fake.batches.size, 2, 'PayPal created the batch');
    await new Promise((r) => setTimeout(r, 700));
    const retried = await adapter.send(input);
    assert.notEqual(retried.status, 'FAILED');
    assert.equal(retried.providerBatchId, [...fake.batches.keys()][1]);
    assert.equal(fake.batches.size, 2);
  });

  it('throws RailUnavailableError while PayPal answers 5xx or cannot be reached, and sends after the window', async () => {
    const input = attempt('ada@example.com');
    fake.fault({ kind: '500', ms: 800 });
    await assert.rejects(adapter.send(input), RailUnavailableError);
    await new Promise((r) => setTimeout(r, 850));
    fake.fault({ kind: 'refuse', ms: 600 });
    await assert.rejects(adapter.send(input), RailUnavailableError);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal((await adapter.send(input)).status, 'PROCESSING');
    assert.equal(fake.batches.size, 1);
  });

  it('answers a repeated attempt of a failed item FAILED with PayPal’s reason', async () => {
    const input = attempt('fails@example.com');
    assert.equal((await adapter.send(input)).status, 'PROCESSING');
    await fake.until(() => fake.events.length === 1);
    const again = await adapter.send(input);
    assert.equal(again.status, 'FAILED');
    assert.equal(again.failureCode, 'receiver_account_locked');
    assert.ok(again.failureReason);
  });

  it('keeps an unclaimed or returned item PROCESSING (its webhook settles it)', async () => {
    const unclaimed = attempt('unclaimed@example.com');
    const returned = attempt('returned@example.com');
    await adapter.send(unclaimed);
    await adapter.send(returned);
    await fake.until(() => fake.events.length === 3);
    assert.equal((await adapter.send(unclaimed)).status, 'PROCESSING');
    assert.equal((await adapter.send(returned)).status, 'PROCESSING');
  });

  it('fails an attempt PayPal refuses for good (a bad receiver), and one it cannot express, without a call', async () => {
    const refused = await adapter.send(attempt('not-an-email'));
    assert.equal(refused.status, 'FAILED');
    assert.equal(refused.failureCode, 'validation_error');
    const before = fake.requests.length;
    const krw = await adapter.send(attempt('ada@example.com', 1000, 'KRW'));
    assert.deepEqual({ status: krw.status, code: krw.failureCode }, { status: 'FAILED', code: 'currency_not_supported' });
    assert.equal(fake.requests.length, before);
  });

  it('sends the attempt as PayPal-Request-Id: a call made again gets its batch back, never a second one', async () => {
    const input = attempt('ada@example.com');
    const first = await adapter.send(input);
    const again = await adapter.send({ ...input, resend: true });
    assert.deepEqual([again.status, again.providerBatchId], ['PROCESSING', first.providerBatchId]);
    const posts = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payments/payouts');
    assert.deepEqual(
      posts.map((r) => [r.requestId, r.status]),
      [
        [input.senderBatchId, 201],
        [input.senderBatchId, 201],
      ],
    );
    assert.equal(fake.batches.size, 1);
  });

  it('never fails a call made again that PayPal refuses in another form than its documented duplicate answer', async () => {
    // PayPal not replaying the request id, and refusing the repeat without naming the duplicate or linking the batch.
    fake.requestIdReplay = false;
    for (const form of ['opaque', 'unlinked'] as const) {
      fake.repeatAnswer = form;
      const input = attempt('ada@example.com');
      assert.notEqual((await adapter.send(input)).status, 'FAILED');
      const err = await adapter.send({ ...input, resend: true }).catch((e) => e);
      assert.ok(err instanceof RailUnavailableError, `${form}: ${String(err?.status ?? err)}`);
      assert.match(err.message, /may have already/);
    }
    assert.equal(fake.batches.size, 2);
    // Linked, it is looked up: the batch's outcome, once PayPal has one.
    fake.repeatAnswer = 'linked';
    const input = attempt('fails@example.com');
    await adapter.send(input);
    await fake.until(() => fake.events.length >= 3);
    const looked = await adapter.send({ ...input, resend: true });
    assert.deepEqual([looked.status, looked.failureCode], ['FAILED', 'receiver_account_locked']);
  });

  it('looks up a refusal that may say "sent already" even on a first call; fails only a first call PayPal refuses otherwise', async () => {
    fake.requestIdReplay = false;
    fake.repeatAnswer = 'opaque';
    const input = attempt('ada@example.com');
    await adapter.send(input);
    // The same attempt, its first call as far as Holdfast knows: PayPal's 422 names no duplicate.
    const refused = await adapter.send(input);
    assert.equal(refused.status, 'FAILED', 'a refusal of a first call that names no duplicate fails the attempt');
    // A refusal naming a duplicate in a form the adapter was not written for: never FAILED.
    const { PaypalApiError } = await import('../../src/rails/paypal-api.error.js');
    for (const [status, name, issue] of [
      [409, 'RESOURCE_CONFLICT', 'The server has detected a conflict while processing this request.'],
      [422, 'DUPLICATE_REQUEST_ID', 'Requested resource ID was already used.'],
      [400, 'VALIDATION_ERROR', 'Batch with this sender batch id already exists.'],
      [400, 'INVALID_REQUEST', 'DUPLICATE_SENDER_BATCH_ID'],
    ] as const) {
      assert.ok(new PaypalApiError(status, name, 'm', undefined, [issue]).mayBeDuplicate, name);
    }
    assert.ok(!new PaypalApiError(422, 'UNPROCESSABLE_ENTITY', 'm', undefined, ['INSUFFICIENT_FUNDS']).mayBeDuplicate);
    assert.ok(
      !new PaypalApiError(400, 'VALIDATION_ERROR', 'm', undefined, ['Receiver is invalid or does not match with type.']).mayBeDuplicate,
    );
  });

  it('waits (RailUnavailableError) rather than failing a payout when PayPal refuses Holdfast’s credentials', async () => {
    const wrong = new PaypalPayoutAdapter(
      new PaypalClient({ clientId: fake.clientId, clientSecret: 'nope', webhookId: fake.webhookId, apiBase: fake.url }),
    );
    const err = await wrong.send(attempt('ada@example.com')).catch((e) => e);
    assert.ok(err instanceof RailUnavailableError);
    assert.doesNotMatch(err.message, /nope/);
    assert.equal(fake.batches.size, 0);
  });
});
