import assert from 'node:assert/strict';
import { closeDecision, fundsAfterClose, type DisputeFunds, type DisputeStatus } from '../../src/disputes/dispute.rules.js';
import { openingFlags } from '../../src/disputes/dispute.rules.js';
import {
  noticeChange,
  stripeDisputeMismatches,
  stripeDisputeNotice,
  stripeDisputeRank,
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

describe('Stripe inquiries, escalation and the last word (rules)', () => {
  const base = { amount: 1000, fee: 1500, evidenceDueBy: new Date(0) };
  const notice = (status: DisputeStatus | null, o: { inquiry?: boolean; withdrawn?: boolean; dueBy?: Date } = {}) => ({
    status,
    dueBy: o.dueBy ?? null,
    withdrawn: !!o.withdrawn,
    reinstated: false,
    inquiry: !!o.inquiry,
  });

  it('an inquiry withdraws nothing; its first chargeback notice escalates it, back to NEEDS_RESPONSE after a submitted inquiry', () => {
    const inquiry = { ...base, status: 'UNDER_REVIEW' as DisputeStatus, funds: 'none' as DisputeFunds, inquiry: true };
    const quiet = noticeChange(inquiry, notice('UNDER_REVIEW', { inquiry: true }));
    assert.deepEqual([quiet.funds, quiet.phases, quiet.escalated, quiet.status], ['none', [], false, null]);
    const escalated = noticeChange(inquiry, notice('NEEDS_RESPONSE', { dueBy: new Date(5000) }));
    assert.deepEqual(
      [escalated.escalated, escalated.status, escalated.funds, escalated.dueBy?.getTime()],
      [true, 'NEEDS_RESPONSE', 'none', 5000],
    );
    // Escalated straight to review, or by the withdrawal itself (which moves the money once).
    assert.deepEqual(
      [noticeChange(inquiry, notice('UNDER_REVIEW')).escalated, noticeChange(inquiry, notice('UNDER_REVIEW')).status],
      [true, null],
    );
    const withdrawn = noticeChange({ ...inquiry, status: 'NEEDS_RESPONSE' }, notice('NEEDS_RESPONSE', { withdrawn: true }));
    assert.deepEqual([withdrawn.escalated, withdrawn.funds, withdrawn.phases], [true, 'withdrawn', ['open']]);
    // An inquiry closed (warning_closed) is decided WON with nothing moved.
    const closed = noticeChange({ ...inquiry, status: 'NEEDS_RESPONSE' }, notice('WON', { inquiry: true }));
    assert.deepEqual([closed.close, closed.funds, closed.phases], ['WON', 'none', []]);
  });

  it("an inquiry's notice after the escalation is stale: its status, deadline and close change nothing", () => {
    const chargeback = { ...base, status: 'NEEDS_RESPONSE' as DisputeStatus, funds: 'withdrawn' as DisputeFunds, inquiry: false };
    for (const status of ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON'] as const) {
      const c = noticeChange(chargeback, notice(status, { inquiry: true, dueBy: new Date(9000) }));
      assert.deepEqual([c.status, c.close, c.dueBy, c.escalated, c.phases], [null, null, null, false, []], status);
    }
    // A chargeback never goes back to NEEDS_RESPONSE from review (only an inquiry's escalation does).
    assert.equal(noticeChange({ ...chargeback, status: 'UNDER_REVIEW' }, notice('NEEDS_RESPONSE')).status, null);
    // A decided inquiry is not escalated (ledger verify names the disagreement).
    assert.equal(noticeChange({ ...chargeback, status: 'WON', funds: 'none', inquiry: true }, notice('NEEDS_RESPONSE')).escalated, false);
  });

  it('the stored dispute object moves forward: status first, then its balance transactions', () => {
    const r = (status: string, moves = 0) => stripeDisputeRank({ status, balance_transactions: Array.from({ length: moves }, () => ({})) });
    const life = [
      r('warning_needs_response'),
      r('warning_under_review'),
      r('needs_response'),
      r('needs_response', 1),
      r('under_review', 1),
      r('lost', 1),
    ];
    assert.deepEqual(
      [...life].sort((a, b) => a - b),
      life,
    );
    assert.ok(r('won', 2) > r('won', 1));
    assert.ok(r('warning_closed') > r('warning_under_review'));
  });

  it('ledger verify: a dispute against the stored Stripe object, each disagreement named', () => {
    const d = {
      id: 'dsp_1',
      providerDisputeId: 'dp_1',
      reportedAmount: 500,
      currency: 'USD',
      status: 'LOST' as DisputeStatus,
      funds: 'lost' as DisputeFunds,
    };
    const intent = { objectId: 'pi_1', objectType: 'payment_intent', snapshot: { latest_charge: 'ch_1' } };
    const object = (extra: Record<string, unknown> = {}) => ({
      objectId: 'dp_1',
      objectType: 'dispute',
      snapshot: {
        amount: 500,
        currency: 'usd',
        status: 'lost',
        payment_intent: 'pi_1',
        charge: 'ch_1',
        balance_transactions: [{ amount: -500 }],
        ...extra,
      },
    });
    assert.deepEqual(stripeDisputeMismatches(d, [object()], intent), []);
    assert.deepEqual(stripeDisputeMismatches(d, [], intent), ['dispute dsp_1 (Stripe dp_1) has no stored Stripe dispute']);
    const one = (extra: Record<string, unknown>, against = d) => stripeDisputeMismatches(against, [object(extra)], intent);
    assert.match(one({ amount: 600 }).join(), /Stripe reports 600, Holdfast 500/);
    assert.match(one({ currency: 'eur' }).join(), /currency is eur/);
    assert.match(one({ payment_intent: 'pi_2' }).join(), /Stripe disputes pi_2/);
    assert.match(one({ payment_intent: null, charge: 'ch_9' }).join(), /Stripe disputes ch_9/);
    assert.match(one({}, { ...d, status: 'NEEDS_RESPONSE', funds: 'withdrawn' }).join(), /Stripe says lost, Holdfast's is NEEDS_RESPONSE/);
    assert.match(one({ status: 'needs_response' }).join(), /Stripe says needs_response, Holdfast's is LOST/);
    assert.deepEqual(one({ status: 'under_review' }, { ...d, status: 'NEEDS_RESPONSE', funds: 'withdrawn' }), [], 'open is open');
    assert.match(
      one({ status: 'needs_response' }, { ...d, status: 'NEEDS_RESPONSE', funds: 'none' }).join(),
      /Stripe withdrew its funds, Holdfast moved nothing/,
    );
    assert.match(
      one({ status: 'won', balance_transactions: [{ amount: -500 }, { amount: 500 }] }, { ...d, status: 'WON', funds: 'withdrawn' }).join(),
      /Stripe reinstated its funds, Holdfast holds them/,
    );
    assert.match(
      stripeDisputeMismatches(d, [object(), { ...object(), objectId: 'dp_2' }], intent).join(),
      /another dispute of its charge, dp_2/,
    );
  });

  it('a notice is flagged for an operator when capped or with no paid charge behind it', () => {
    assert.deepEqual(openingFlags({ paidCharge: true, capped: false }), []);
    assert.deepEqual(openingFlags({ paidCharge: true, capped: true }), ['CAPPED']);
    assert.deepEqual(openingFlags({ paidCharge: false, capped: true }), ['CAPPED', 'NOT_A_PAID_CHARGE']);
  });
});
