import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { StoredLineItem } from '../../src/invoices/invoice.entity.js';
import {
  fullRefundCells,
  lineRefundCells,
  refundable,
  refundableTotal,
  refundCharges,
  refundLines,
  refundSummary,
  tokenRefundCap,
  tokensTakenBack,
  type RefundInvoice,
} from '../../src/refunds/refund.rules.js';

const line = (line_item_id: string, amount: number): StoredLineItem => ({
  line_item_id,
  amount,
  currency: 'USD',
  transaction_type: 'user_to_integrator',
  product_sku: '',
  description: '',
  reference_type: '',
  reference_id: '',
  metadata: {},
  recipients: [],
});
const charge = (payment_method_id: string, amount: number) => ({ payment_method_id, amount, currency: 'USD' });

const purchase = {
  id: 'inv_p',
  currency: 'USD',
  lineItems: [line('li_a', 600), line('li_b', 400)],
  paymentMethods: [charge('pm_wallet', 300), charge('pm_card', 700)],
};

/** A refund invoice made of cells, with the methods in `failing` failed. */
function refundOf(cells: ReturnType<typeof fullRefundCells>, failing: string[] = []): RefundInvoice {
  const parts = refundCharges(cells, 'USD', (id) => failing.includes(id));
  return {
    id: 'inv_r',
    state: failing.length ? 'FAILED' : 'SUCCESS',
    failureReason: failing.length ? 'refund_declined' : null,
    currency: 'USD',
    totalAmount: cells.reduce((s, c) => s + c.amount, 0),
    paymentMethods: parts,
    lineItems: refundLines(cells, purchase.lineItems),
    metadata: {},
    createdAt: new Date(0),
  };
}

describe('refund rules', () => {
  it('a full refund fills lines in order from methods in order, whole units that add up', () => {
    const cells = fullRefundCells(refundable(purchase, []), 1000);
    assert.deepEqual(cells, [
      { line_item_id: 'li_a', payment_method_id: 'pm_wallet', amount: 300 },
      { line_item_id: 'li_a', payment_method_id: 'pm_card', amount: 300 },
      { line_item_id: 'li_b', payment_method_id: 'pm_card', amount: 400 },
    ]);
  });

  it('a line-item refund takes from the methods in the order given, each at most what it has left', () => {
    const planned = lineRefundCells(refundable(purchase, []), {
      line_item_id: 'li_a',
      amount: 500,
      payment_methods: ['pm_wallet', 'pm_card'],
    });
    assert.deepEqual(planned, {
      ok: true,
      cells: [
        { line_item_id: 'li_a', payment_method_id: 'pm_wallet', amount: 300 },
        { line_item_id: 'li_a', payment_method_id: 'pm_card', amount: 200 },
      ],
    });
  });

  it('refuses more than the line has left (amount), more than the methods named have left, methods that did not pay, repeats', () => {
    const left = refundable(purchase, []);
    const problem = (r: Parameters<typeof lineRefundCells>[1]) => {
      const p = lineRefundCells(left, r);
      return p.ok ? null : p.problem;
    };
    assert.deepEqual(problem({ line_item_id: 'li_b', amount: 401, payment_methods: ['pm_card'] }), {
      kind: 'field',
      field: 'amount',
      code: 'EXCEEDS_REFUNDABLE',
      message: 'This line item may have at most 400 back.',
    });
    assert.equal(problem({ line_item_id: 'li_a', amount: 400, payment_methods: ['pm_wallet'] })?.kind, 'field');
    assert.equal(
      (problem({ line_item_id: 'li_a', amount: 400, payment_methods: ['pm_wallet'] }) as { field: string }).field,
      'payment_methods',
    );
    assert.equal((problem({ line_item_id: 'li_a', amount: 1, payment_methods: ['pm_other'] }) as { code: string }).code, 'NOT_CHARGED');
    assert.equal(
      (problem({ line_item_id: 'li_a', amount: 1, payment_methods: ['pm_card', 'pm_card'] }) as { field: string }).field,
      'payment_methods.1',
    );
    assert.deepEqual(problem({ line_item_id: 'li_x', amount: 1, payment_methods: ['pm_card'] }), { kind: 'no_line' });
  });

  it('after a line is refunded, it has nothing left; the rest still adds up per line and per method', () => {
    const first = lineRefundCells(refundable(purchase, []), { line_item_id: 'li_b', amount: 400, payment_methods: ['pm_card'] });
    assert.ok(first.ok);
    const refunds = [refundOf(first.cells)];
    const left = refundable(purchase, refunds);
    assert.equal(lineRefundCells(left, { line_item_id: 'li_b', amount: 1, payment_methods: ['pm_card'] }).ok, false);
    assert.deepEqual(
      left.lines.map((l) => l.amount),
      [600, 0],
    );
    assert.deepEqual(
      left.methods.map((m) => m.amount),
      [300, 300],
    );
    assert.deepEqual(fullRefundCells(left, refundableTotal(left)), [
      { line_item_id: 'li_a', payment_method_id: 'pm_wallet', amount: 300 },
      { line_item_id: 'li_a', payment_method_id: 'pm_card', amount: 300 },
    ]);
  });

  it('a failed part moves nothing: its method and its lines keep what they had left', () => {
    const cells = fullRefundCells(refundable(purchase, []), 1000);
    const refunds = [refundOf(cells, ['pm_card'])];
    const left = refundable(purchase, refunds);
    assert.equal(left.refunded, 300);
    assert.deepEqual(
      left.methods.map((m) => m.amount),
      [0, 700],
    );
    assert.deepEqual(
      left.lines.map((l) => l.amount),
      [300, 400],
    );
    const summary = refundSummary(purchase, refunds);
    assert.deepEqual([summary.refunded, summary.refundable, summary.is_fully_refunded], [{ USD: 300 }, { USD: 700 }, false]);
    assert.deepEqual(
      summary.refunds[0].payment_methods.map((p) => p.status),
      ['succeeded', 'failed'],
    );
  });

  it('any sequence of partial and full refunds never gives a line or a method more than it paid (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            full: fc.boolean(),
            line: fc.constantFrom('li_a', 'li_b'),
            amount: fc.integer({ min: 1, max: 700 }),
            order: fc.boolean(),
            cardFails: fc.boolean(),
          }),
          { maxLength: 12 },
        ),
        (ops) => {
          const refunds: RefundInvoice[] = [];
          for (const op of ops) {
            const left = refundable(purchase, refunds);
            let cells: ReturnType<typeof fullRefundCells>;
            if (op.full) {
              cells = fullRefundCells(left, refundableTotal(left));
            } else {
              const planned = lineRefundCells(left, {
                line_item_id: op.line,
                amount: op.amount,
                payment_methods: op.order ? ['pm_wallet', 'pm_card'] : ['pm_card', 'pm_wallet'],
              });
              if (!planned.ok) continue;
              cells = planned.cells;
            }
            if (cells.length) refunds.push(refundOf(cells, op.cardFails ? ['pm_card'] : []));
          }
          const left = refundable(purchase, refunds);
          for (const m of left.methods) assert.ok(m.amount >= 0);
          for (const l of left.lines) assert.ok(l.amount >= 0);
          const methodsLeft = left.methods.reduce((s, m) => s + m.amount, 0);
          const linesLeft = left.lines.reduce((s, l) => s + l.amount, 0);
          assert.equal(methodsLeft, linesLeft);
          assert.equal(left.refunded + methodsLeft, 1000);
        },
      ),
    );
  });

  it('token purchase refunds take back tokens rounded up, and exactly what was issued in all', () => {
    // 1000 tokens for 333 cents.
    assert.equal(tokensTakenBack(1000, 333, 0, 1), 4);
    assert.equal(tokensTakenBack(1000, 333, 0, 333), 1000);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.array(fc.integer({ min: 1, max: 500 }), { maxLength: 10 }),
        (tokens, cents, steps) => {
          let before = 0;
          let taken = 0;
          for (const step of steps) {
            const now = Math.min(step, cents - before);
            if (now <= 0) break;
            taken += tokensTakenBack(tokens, cents, before, now);
            before += now;
          }
          taken += tokensTakenBack(tokens, cents, before, cents - before);
          assert.equal(taken, tokens);
        },
      ),
    );
  });

  it('the refundable cents of a token purchase are exactly what the unspent tokens cover', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 0, max: 2_000 }),
        fc.integer({ min: 0, max: 6_000 }),
        (tokens, cents, rawBefore, unspent) => {
          const before = Math.min(rawBefore, cents);
          const cap = tokenRefundCap(tokens, cents, before, unspent);
          assert.ok(cap >= 0 && cap <= cents - before);
          assert.ok(tokensTakenBack(tokens, cents, before, cap) <= unspent);
          if (cap < cents - before) assert.ok(tokensTakenBack(tokens, cents, before, cap + 1) > unspent);
        },
      ),
    );
  });
});
