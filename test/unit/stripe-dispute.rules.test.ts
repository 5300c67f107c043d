import assert from 'node:assert/strict';
import { closeDecision, fundsAfterClose, type DisputeFunds, type DisputeStatus } from '../../src/disputes/dispute.rules.js';
import {
  noticeChange,
  stripeDisputeNotice,
  stripeDisputeReason,
  stripeDisputeStatus,
  type FundsPhase,
} from '../../src/disputes/stripe-dispute.rules.js';

/** What a notice of each kind says (as `stripeDisputeNotice` reads the event). */
type Fact = 'withdrawn' | 'reinstated' | 'won' | 'lost' | 'review';
const NOTICE: Record<Fact, { status: DisputeStatus | null; withdrawn: boolean; reinstated: boolean }> = {
  withdrawn: { status: 'NEEDS_RESPONSE', withdrawn: true, reinstated: false },
  reinstated: { status: 'NEEDS_RESPONSE', withdrawn: true, reinstated: true },
  won: { status: 'WON', withdrawn: false, reinstated: false },
  lost: { status: 'LOST', withdrawn: false, reinstated: false },
  review: { status: 'UNDER_REVIEW', withdrawn: false, reinstated: false },
};

/** The postings `ledger verify` expects of each place the money can be. */
const EXPECTED: Record<DisputeFunds, FundsPhase[]> = {
  none: [],
  withdrawn: ['open'],
  reinstated: ['open', 'won'],
  lost: ['lost', 'open'],
};

/**
 * Runs notices in order as the runners do: each `dispute.notice` (its funds and status), and the
 * decision it submits run as `dispute.close` runs (WON/LOST postings of withdrawn money). Checks
 * after each step that the postings made match where the money is, and that none is made twice.
 */
function run(facts: Fact[], dispute: { amount: number; fee: number } = { amount: 1000, fee: 1500 }) {
  const d = { ...dispute, status: 'NEEDS_RESPONSE' as DisputeStatus, funds: 'none' as DisputeFunds, evidenceDueBy: new Date(0) };
  const phases: FundsPhase[] = [];
  for (const fact of facts) {
    const change = noticeChange(d, { ...NOTICE[fact], dueBy: null });
    phases.push(...change.phases);
    d.funds = change.funds;
    if (change.status) d.status = change.status;
    if (change.close && closeDecision(d.status, change.close) === 'close') {
      if (d.funds === 'withdrawn' && d.amount > 0) phases.push(change.close === 'WON' ? 'won' : 'lost');
      d.funds = d.amount > 0 ? fundsAfterClose(d.funds, change.close) : d.funds;
      d.status = change.close;
    }
    assert.equal(new Set(phases).size, phases.length, `a posting made twice after ${facts.join(', ')}`);
    if (d.amount + d.fee > 0) assert.deepEqual([...phases].sort(), EXPECTED[d.funds], `after ${facts.join(', ')}`);
  }
  return { status: d.status, funds: d.funds, phases: [...phases].sort() };
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
}

describe('Stripe disputes (rules)', () => {
  it("maps Stripe's reasons: its six by name, anything else general", () => {
    for (const r of ['fraudulent', 'product_not_received', 'duplicate', 'subscription_canceled', 'unrecognized', 'general'])
      assert.equal(stripeDisputeReason(r), r);
    for (const r of [
      'credit_not_processed',
      'bank_cannot_process',
      'noncompliant',
      'customer_initiated',
      'incorrect_account_details',
      '',
      null,
    ])
      assert.equal(stripeDisputeReason(r), 'general');
  });

  it("maps Stripe's statuses: inquiries too; an appeal's moves nothing", () => {
    assert.deepEqual(
      [
        'needs_response',
        'warning_needs_response',
        'under_review',
        'warning_under_review',
        'won',
        'warning_closed',
        'prevented',
        'lost',
      ].map(stripeDisputeStatus),
      ['NEEDS_RESPONSE', 'NEEDS_RESPONSE', 'UNDER_REVIEW', 'UNDER_REVIEW', 'WON', 'WON', 'WON', 'LOST'],
    );
    assert.equal(stripeDisputeStatus('appeal_needs_response'), null);
    assert.equal(stripeDisputeStatus('charge_refunded'), null);
  });

  it('reads the funds from the event type and from the balance transactions alike', () => {
    const object = (extra: Record<string, unknown> = {}) => ({
      data: {
        object: {
          id: 'dp_1',
          object: 'dispute',
          amount: 500,
          payment_intent: 'pi_1',
          charge: 'ch_1',
          status: 'needs_response',
          reason: 'fraudulent',
          evidence_details: { due_by: 1_800_000_000 },
          balance_transactions: [],
          ...extra,
        },
      },
    });
    const read = (type: string, extra?: Record<string, unknown>) => {
      const r = stripeDisputeNotice(type, object(extra));
      assert.ok(r.ok);
      return r.notice;
    };
    assert.deepEqual([read('charge.dispute.created').withdrawn, read('charge.dispute.created').reinstated], [false, false]);
    assert.equal(read('charge.dispute.funds_withdrawn').withdrawn, true);
    assert.deepEqual([read('charge.dispute.funds_reinstated').withdrawn, read('charge.dispute.funds_reinstated').reinstated], [true, true]);
    const closed = read('charge.dispute.closed', { status: 'won', balance_transactions: [{ amount: -500 }, { amount: 500 }] });
    assert.deepEqual([closed.withdrawn, closed.reinstated, closed.status], [true, true, 'WON']);
    assert.equal(read('charge.dispute.created').dueBy?.toISOString(), new Date(1_800_000_000_000).toISOString());
    assert.equal(read('charge.dispute.created', { status: 'warning_needs_response' }).inquiry, true);
    assert.equal(read('charge.dispute.created', { payment_intent: { id: 'pi_2' } }).paymentIntentId, 'pi_2');
    for (const [extra, field] of [
      [{ object: 'charge' }, 'data.object'],
      [{ amount: '5' }, 'data.object.amount'],
      [{ amount: -1 }, 'data.object.amount'],
      [{ payment_intent: null, charge: null }, 'data.object.charge'],
    ] as const) {
      const r = stripeDisputeNotice('charge.dispute.updated', object(extra));
      assert.deepEqual(r, { ok: false, field });
    }
  });

  it('a chargeback won: withdrawn, reinstated and won in every order, each twice, moves the money out and back once', () => {
    const facts: Fact[] = ['withdrawn', 'reinstated', 'won'];
    for (const order of permutations(facts)) {
      assert.deepEqual(run(order), { status: 'WON', funds: 'reinstated', phases: ['open', 'won'] }, order.join(', '));
      assert.deepEqual(run([...order, ...order]), { status: 'WON', funds: 'reinstated', phases: ['open', 'won'] });
    }
    // Stripe's closed event without its reinstatement yet: the decision gives the amount back.
    assert.deepEqual(run(['withdrawn', 'won']), { status: 'WON', funds: 'reinstated', phases: ['open', 'won'] });
    assert.deepEqual(run(['won', 'withdrawn']), { status: 'WON', funds: 'reinstated', phases: ['open', 'won'] });
  });

  it('a chargeback lost: withdrawn and lost in either order, with a review among them, moves the money to losses once', () => {
    for (const order of permutations<Fact>(['withdrawn', 'lost', 'review'])) {
      assert.deepEqual(run(order), { status: 'LOST', funds: 'lost', phases: ['lost', 'open'] }, order.join(', '));
      assert.deepEqual(run([...order, 'withdrawn', 'lost']), { status: 'LOST', funds: 'lost', phases: ['lost', 'open'] });
    }
  });

  it('an inquiry that closes moves nothing; a review never comes back to NEEDS_RESPONSE nor after the decision', () => {
    assert.deepEqual(run(['review', 'won']), { status: 'WON', funds: 'none', phases: [] });
    assert.deepEqual(run(['won', 'review']), { status: 'WON', funds: 'none', phases: [] });
    const d = {
      status: 'UNDER_REVIEW' as DisputeStatus,
      funds: 'withdrawn' as DisputeFunds,
      amount: 1,
      fee: 1,
      evidenceDueBy: new Date(0),
    };
    assert.equal(noticeChange(d, { status: 'NEEDS_RESPONSE', dueBy: null, withdrawn: false, reinstated: false }).status, null);
    const later = new Date(86_400_000);
    assert.equal(noticeChange(d, { status: null, dueBy: later, withdrawn: false, reinstated: false }).dueBy, later);
    assert.equal(noticeChange({ ...d, status: 'LOST' }, { status: null, dueBy: later, withdrawn: false, reinstated: false }).dueBy, null);
  });

  it('reinstated and lost are final: a late notice moves nothing back', () => {
    for (const funds of ['reinstated', 'lost'] as const) {
      const d = { status: 'UNDER_REVIEW' as DisputeStatus, funds, amount: 100, fee: 15, evidenceDueBy: new Date(0) };
      const c = noticeChange(d, { status: null, dueBy: null, withdrawn: true, reinstated: true });
      assert.deepEqual([c.funds, c.phases], [funds, []]);
    }
  });

  it('a dispute of 0 (all refunded before) moves its fee only, and keeps it; one of nothing at all moves nothing', () => {
    assert.deepEqual(run(['withdrawn', 'reinstated', 'won'], { amount: 0, fee: 1500 }), {
      status: 'WON',
      funds: 'withdrawn',
      phases: ['open'],
    });
    assert.deepEqual(run(['withdrawn', 'lost'], { amount: 0, fee: 0 }), { status: 'LOST', funds: 'none', phases: [] });
  });
});
