import assert from 'node:assert/strict';
import {
  canExecute,
  canReverse,
  outcomeApplies,
  outcomeFailure,
  outcomeStatus,
  PAYOUT_STATUSES,
  parseSenderBatchId,
  RAIL_OUTCOMES,
  railOutcomeOf,
  senderBatchId,
} from '../../src/payouts/payout.rules.js';
import { sandboxPayoutRail } from '../../src/rails/sandbox-payout.adapter.js';

describe('payout rules: the rail', () => {
  it('a PROCESSING payout can be neither reversed nor executed again; FUNDS-IN-ESCROW and FAILED can be reversed', () => {
    assert.deepEqual(
      PAYOUT_STATUSES.filter((s) => canReverse(s)),
      ['FUNDS-IN-ESCROW', 'FAILED'],
    );
    for (const mode of ['auto', 'approve', 'staging'] as const) {
      assert.equal(canExecute('PROCESSING', mode), false, mode);
      assert.equal(canExecute('RETURNED', mode), false, mode);
    }
  });

  it('sender_batch_id is <payout id>-<attempt>, and reads back; anything else names no payout', () => {
    const id = 'po_01JDW7P2T8J1L3N5Q7S9U1W3Y5';
    assert.equal(senderBatchId(id, 1), `${id}-1`);
    assert.equal(senderBatchId(id, 2), `${id}-2`);
    assert.deepEqual(parseSenderBatchId(`${id}-12`), { payoutId: id, attempt: 12 });
    for (const other of [id, `${id}-0`, `${id}-x`, `${id}-1-1`, 'batch-1', `tex_01JDW7P2T8J1L3N5Q7S9U1W3Y5-1`, ''])
      assert.equal(parseSenderBatchId(other), undefined, other);
  });

  it('maps each rail outcome to a payout status', () => {
    assert.deepEqual(Object.fromEntries(RAIL_OUTCOMES.map((o) => [o, outcomeStatus(o)])), {
      SUCCEEDED: 'SUCCESS',
      FAILED: 'FAILED',
      BLOCKED: 'FAILED',
      DENIED: 'FAILED',
      RETURNED: 'RETURNED',
      UNCLAIMED: 'PROCESSING',
    });
  });

  it("reads a provider's status as an outcome: PayPal's SUCCESS is SUCCEEDED, a status that settles nothing is none", () => {
    assert.equal(railOutcomeOf('SUCCESS'), 'SUCCEEDED');
    assert.equal(railOutcomeOf('succeeded'), 'SUCCEEDED');
    assert.equal(railOutcomeOf('Returned'), 'RETURNED');
    for (const other of ['PENDING', 'ONHOLD', 'REFUNDED', 'PROCESSING', '']) assert.equal(railOutcomeOf(other), undefined, other);
  });

  it('an outcome applies only to a PROCESSING payout on the same attempt', () => {
    assert.equal(outcomeApplies({ status: 'PROCESSING', attempt: 2 }, 2), true);
    assert.equal(outcomeApplies({ status: 'PROCESSING', attempt: 2 }, 1), false, 'an older attempt');
    assert.equal(outcomeApplies({ status: 'PROCESSING', attempt: 2 }, 3), false);
    for (const status of PAYOUT_STATUSES.filter((s) => s !== 'PROCESSING'))
      assert.equal(outcomeApplies({ status, attempt: 1 }, 1), false, status);
  });

  it("a failure keeps the rail's code and reason (cut to the columns), else names the outcome", () => {
    assert.deepEqual(outcomeFailure('BLOCKED'), { code: 'payout_blocked', reason: 'The payout rail reported the payout BLOCKED.' });
    assert.deepEqual(outcomeFailure('FAILED', 'RECEIVER_UNREGISTERED', 'No account.'), {
      code: 'RECEIVER_UNREGISTERED',
      reason: 'No account.',
    });
    assert.equal(outcomeFailure('DENIED', 'x'.repeat(100), 'y'.repeat(300)).code.length, 64);
    assert.equal(outcomeFailure('DENIED', 'x', 'y'.repeat(300)).reason.length, 200);
  });

  it('the sandbox rail decides from the sandbox address: refused, unclaimed (PROCESSING), else paid', async () => {
    const input = { payoutId: 'po_X', attempt: 1, senderBatchId: 'po_X-1', resend: false, amount: 100, currency: 'USD', note: 'n' };
    assert.deepEqual(await sandboxPayoutRail.send({ ...input, receiver: 'payout-fails@example.com' }), {
      status: 'FAILED',
      failureCode: 'destination_rejected',
      failureReason: 'The payout provider refused the destination account.',
    });
    assert.deepEqual(await sandboxPayoutRail.send({ ...input, receiver: 'payout-unclaimed@example.com' }), { status: 'PROCESSING' });
    assert.deepEqual(await sandboxPayoutRail.send({ ...input, receiver: 'someone@example.com' }), { status: 'SUCCESS' });
  });
});
