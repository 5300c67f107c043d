import assert from 'node:assert/strict';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { emDb } from '../../src/db/sql.js';
import { isOverdraft } from '../../src/ledger/ledger.service.js';
import { addCard, call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, party, type Party } from '../support/money.js';

async function accountBalance(integratorId: string, kind: 'publisher_wallet' | 'dispute_holding' | 'dispute_fees' | 'dispute_losses') {
  const id = await systemAccount(h().orm.em.fork(), integratorId, kind, 'USD');
  return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
}

/** Waits until `check` answers something truthy (the worker's clock runs every few seconds). */
async function until<T>(check: () => Promise<T | undefined | null | false>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('disputes (sandbox processor, GET /v2/disputes, evidence)', () => {
  let client: TestClient;
  let buyer: Party;

  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
  });

  async function paidInvoice(method: string, amount = 1000): Promise<string> {
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: method, amount: 0 }],
        line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.payload.invoice_id;
    const paid = await call('POST', `/v2/invoice/${id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    return id;
  }

  const open = (body: Record<string, unknown>, c = client) =>
    call('POST', '/v2/sandbox/disputes', { token: c.token, body, headers: { 'idempotency-key': unique('k') } });
  const close = (id: string, outcome: string) =>
    call('POST', `/v2/sandbox/disputes/${id}/close`, {
      token: client.token,
      body: { outcome },
      headers: { 'idempotency-key': unique('k') },
    });

  it('opening moves the amount and the fee out of the integrator wallet, which may go below zero; LOST moves it to losses', async () => {
    const invoice = await paidInvoice(buyer.card!, 1000);
    const walletBefore = await accountBalance(buyer.integrator_id, 'publisher_wallet');
    const opened = await open({ invoice_id: invoice, payment_method_id: buyer.card });
    assert.equal(opened.status, 200, opened.text);
    const d = opened.body.payload;
    assert.match(d.dispute_id, /^dsp_/);
    assert.equal(d.status, 'NEEDS_RESPONSE');
    assert.equal(d.amount, 1000);
    assert.equal(d.fee, 1500);
    assert.equal(d.funds, 'withdrawn');
    assert.equal(d.reason, 'fraudulent');
    // 1000 came in, 2500 left: the wallet is below zero, by this posting alone.
    assert.equal(await accountBalance(buyer.integrator_id, 'publisher_wallet'), walletBefore - 2500);
    assert.ok(walletBefore - 2500 < 0);
    assert.equal(await accountBalance(buyer.integrator_id, 'dispute_holding'), 1000);
    assert.equal(await accountBalance(buyer.integrator_id, 'dispute_fees'), 1500);

    // The same charge again answers its dispute; nothing moves twice.
    const again = await open({ invoice_id: invoice, payment_method_id: buyer.card });
    assert.equal(again.body.payload.dispute_id, d.dispute_id);
    assert.equal(await accountBalance(buyer.integrator_id, 'dispute_holding'), 1000);

    const lost = await close(d.dispute_id, 'lost');
    assert.equal(lost.status, 200, lost.text);
    assert.equal(lost.body.payload.status, 'LOST');
    assert.equal(lost.body.payload.funds, 'lost');
    assert.ok(lost.body.payload.closed);
    assert.equal(await accountBalance(buyer.integrator_id, 'dispute_holding'), 0);
    assert.equal(await accountBalance(buyer.integrator_id, 'dispute_losses'), 1000);
    // Decided: the same outcome answers as it is, the other is refused.
    assert.equal((await close(d.dispute_id, 'lost')).body.payload.status, 'LOST');
    const other = await close(d.dispute_id, 'won');
    assert.equal(other.status, 409);
    assert.deepEqual(other.body.codes, ['DISPUTE_STATE_ERROR']);
    const report = await verifyAll(h().orm.em.fork());
    assert.deepEqual(report.problems, []);
  });

  it('WON gives the amount back to the wallet; the fee stays', async () => {
    const invoice = await paidInvoice(buyer.card!, 700);
    const before = await accountBalance(buyer.integrator_id, 'publisher_wallet');
    const d = (await open({ invoice_id: invoice, payment_method_id: buyer.card, amount: 300, reason: 'duplicate' })).body.payload;
    assert.equal(d.amount, 300);
    assert.equal(d.reason, 'duplicate');
    const won = await close(d.dispute_id, 'won');
    assert.equal(won.body.payload.status, 'WON');
    assert.equal(won.body.payload.funds, 'reinstated');
    assert.equal(await accountBalance(buyer.integrator_id, 'publisher_wallet'), before - 1500);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a notice for more than the charge has is capped and kept; a refund first lowers what can be disputed', async () => {
    const invoice = await paidInvoice(buyer.card!, 1000);
    // The integrator's wallet pays the refund: give it money.
    const clearing = await systemAccount(h().orm.em.fork(), buyer.integrator_id, 'card_clearing', 'USD');
    const wallet = await systemAccount(h().orm.em.fork(), buyer.integrator_id, 'publisher_wallet', 'USD');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: buyer.integrator_id,
          reference: unique('fund-'),
          description: 'test',
          entries: [
            { account: clearing, currency: 'USD', amount: -100_000 },
            { account: wallet, currency: 'USD', amount: 100_000 },
          ],
        }),
      );
    const [line] = Object.keys((await call('GET', `/v2/invoice/${invoice}`, { token: client.token })).body.payload.line_items);
    const refunded = await call('POST', '/v2/line-item/refund', {
      token: client.token,
      body: { line_item_id: line, amount: 400, payment_methods: [buyer.card], reason: 'billing' },
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(refunded.status, 200, refunded.text);
    const d = (await open({ invoice_id: invoice, payment_method_id: buyer.card, amount: 1000 })).body.payload;
    assert.equal(d.amount, 600);
    assert.equal(d.reported_amount, 1000);
    assert.deepEqual(d.flags, ['CAPPED']);
    // An operator finds the notices Holdfast could not take in full.
    const flagged = await call('GET', `/v2/disputes?flag=CAPPED&invoice_id=${invoice}`, { token: client.token });
    assert.deepEqual(
      flagged.body.payload.disputes.map((x: any) => x.dispute_id),
      [d.dispute_id],
    );
    const other = await call('GET', `/v2/disputes?flag=NOT_A_PAID_CHARGE&invoice_id=${invoice}`, { token: client.token });
    assert.equal(other.body.payload.total, 0);
    const unflagged = await paidInvoice(buyer.card!, 100);
    const whole = (await open({ invoice_id: unflagged, payment_method_id: buyer.card })).body.payload;
    assert.deepEqual([whole.flags, whole.inquiry], [[], false]);
  });

  it('refuses what is not a card charge of a paid purchase, and another integrator’s invoice', async () => {
    const invoice = await paidInvoice(buyer.card!, 100);
    const wallet = buyer.wallets['USD:fiat'].pm;
    const notCharged = await open({ invoice_id: invoice, payment_method_id: wallet });
    assert.equal(notCharged.status, 400);
    assert.ok(notCharged.body.payload.errors.payment_method_id);
    const other = await newClient();
    const foreign = await open({ invoice_id: invoice, payment_method_id: buyer.card }, other);
    assert.equal(foreign.status, 404);
    const missing = await call('GET', `/v2/disputes/dsp_${'0'.repeat(26)}`, { token: client.token });
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.body.codes, ['DISPUTE_NOT_FOUND']);
  });

  it('lists newest first with filters; another integrator sees none of them', async () => {
    const invoice = await paidInvoice(buyer.card!, 100);
    const d = (await open({ invoice_id: invoice, payment_method_id: buyer.card })).body.payload;
    const list = await call('GET', `/v2/disputes?account_id=${buyer.account_id}&status=NEEDS_RESPONSE`, { token: client.token });
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.payload.disputes[0].dispute_id, d.dispute_id);
    assert.ok(list.body.payload.disputes.every((x: any) => x.status === 'NEEDS_RESPONSE'));
    const byInvoice = await call('GET', `/v2/disputes?invoice_id=${invoice}`, { token: client.token });
    assert.deepEqual(
      byInvoice.body.payload.disputes.map((x: any) => x.dispute_id),
      [d.dispute_id],
    );
    const other = await newClient();
    assert.equal((await call('GET', `/v2/disputes/${d.dispute_id}`, { token: other.token })).status, 404);
    assert.equal((await call('GET', '/v2/disputes', { token: other.token })).body.payload.total, 0);
  });

  it('evidence: saved while NEEDS_RESPONSE, submitted to UNDER_REVIEW, limits named by field, then refused', async () => {
    const invoice = await paidInvoice(buyer.card!, 100);
    const d = (await open({ invoice_id: invoice, payment_method_id: buyer.card })).body.payload;
    const evidence = (body: Record<string, unknown>) =>
      call('POST', `/v2/disputes/${d.dispute_id}/evidence`, { token: client.token, body, headers: { 'idempotency-key': unique('k') } });
    const saved = await evidence({ product_description: '500 gems', uncategorized_text: 'x' });
    assert.equal(saved.status, 200, saved.text);
    assert.equal(saved.body.payload.status, 'NEEDS_RESPONSE');
    assert.deepEqual(saved.body.payload.evidence, { product_description: '500 gems', uncategorized_text: 'x' });
    const tooLong = await evidence({ access_activity_log: 'a'.repeat(20_001) });
    assert.equal(tooLong.status, 400);
    assert.ok(tooLong.body.payload.errors.access_activity_log, tooLong.text);
    // The seven fields at their limit stay within the 150,000 of all of them together.
    const full = Object.fromEntries(
      [
        'product_description',
        'uncategorized_text',
        'access_activity_log',
        'refund_policy_disclosure',
        'cancellation_rebuttal',
        'customer_email_address',
        'service_date',
      ].map((f) => [f, 'b'.repeat(20_000)]),
    );
    const atLimit = await evidence(full);
    assert.equal(atLimit.status, 200);
    await evidence({
      product_description: '500 gems',
      refund_policy_disclosure: '',
      cancellation_rebuttal: '',
      customer_email_address: '',
      service_date: '',
      access_activity_log: '',
    });
    const cleared = await evidence({ uncategorized_text: '', submit: true });
    assert.equal(cleared.body.payload.status, 'UNDER_REVIEW');
    assert.deepEqual(cleared.body.payload.evidence, { product_description: '500 gems' });
    assert.ok(cleared.body.payload.evidence_submitted);
    const late = await evidence({ product_description: 'more' });
    assert.equal(late.status, 409);
    assert.deepEqual(late.body.codes, ['DISPUTE_STATE_ERROR']);
    const events = await call('GET', `/v2/events?type=dispute-updated&account_id=${buyer.account_id}&limit=100`, { token: client.token });
    assert.equal(events.status, 200, events.text);
    const mine = events.body.payload.events.filter((e: any) => e.payload.message.dispute_id === d.dispute_id);
    assert.equal(mine.length, 4);
  });

  it('card 4000000000000259 is disputed a day after its charge, and lost 7 days later without evidence (test clock)', async () => {
    const c = await newClient();
    const p = await party(c);
    await addCard(c, p.account_id, '4000000000000259');
    const methods = (await call('GET', `/v1/${p.account_id}/payment_methods`, { token: c.token })).body.payload;
    const card = methods.find((m: any) => m.provider === 'card').id;
    const created = await call('POST', '/v2/invoice', {
      token: c.token,
      body: {
        account_id: p.account_id,
        payment_methods: [{ payment_method_id: card, amount: 0 }],
        line_items: [{ amount: 250, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoice = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${invoice}/pay`, { token: c.token })).body.payload.state, 'SUCCESS');
    const advance = (seconds: number) =>
      call('POST', '/v2/sandbox/clock', {
        token: c.token,
        body: { advance_seconds: seconds },
        headers: { 'idempotency-key': unique('k') },
      });
    await advance(23 * 3600);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await call('GET', '/v2/disputes', { token: c.token })).body.payload.total, 0, 'not before a day');
    await advance(3600 + 5);
    const d = await until(async () => (await call('GET', '/v2/disputes', { token: c.token })).body.payload.disputes[0]);
    assert.equal(d.invoice_id, invoice);
    assert.equal(d.amount, 250);
    assert.equal(d.reason, 'fraudulent');
    await advance(7 * 24 * 3600 + 5);
    const lost = await until(async () => {
      const x = (await call('GET', `/v2/disputes/${d.dispute_id}`, { token: c.token })).body.payload;
      return x.status === 'LOST' && x;
    });
    assert.equal(lost.funds, 'lost');
    await call('DELETE', '/v2/sandbox/clock', { token: c.token, headers: { 'idempotency-key': unique('k') } });
  });

  it('the database lets only a dispute opening take a default wallet below zero', async () => {
    const c = await newClient();
    const p = await party(c);
    const em = h().orm.em.fork();
    const wallet = await systemAccount(em, p.integrator_id, 'publisher_wallet', 'USD');
    const user = p.wallets['USD:fiat'].wallet;
    const attempt = (reference: string, amount: number) =>
      em.transactional((tx) =>
        post(emDb(tx), {
          integratorId: p.integrator_id,
          reference,
          description: 'test',
          entries: [
            { account: wallet, currency: 'USD', amount: -amount },
            { account: user, currency: 'USD', amount },
          ],
        }),
      );
    await assert.rejects(attempt(unique('refund:'), 10), (err: unknown) => isOverdraft(err));
    await attempt(`dispute:${unique('x')}:open`, 10);
    // Below zero now: any other debit is refused, even a small one.
    await assert.rejects(attempt(unique('other:'), 1), (err: unknown) => isOverdraft(err));
  });

  it('a disputed card part is not refunded again: 409 DISPUTED, and the summary leaves it out of what is refundable', async () => {
    const invoice = await paidInvoice(buyer.card!, 800);
    assert.equal(
      (await call('GET', `/v2/invoice/${invoice}`, { token: client.token })).body.payload.disputes,
      undefined,
      'never disputed: no summary',
    );
    const d = (await open({ invoice_id: invoice, payment_method_id: buyer.card })).body.payload;
    const shown = (await call('GET', `/v2/invoice/${invoice}`, { token: client.token })).body.payload.disputes;
    assert.deepEqual(shown, {
      disputes: [{ dispute_id: d.dispute_id, payment_method_id: buyer.card, amount: 800, currency: 'USD', status: 'NEEDS_RESPONSE' }],
      disputed: 800,
      open: 1,
    });
    const summary = await call('GET', `/v2/invoice/${invoice}/refunds`, { token: client.token });
    assert.deepEqual(summary.body.payload.refundable, { USD: 0 });
    const full = await call('POST', '/v2/refund', {
      token: client.token,
      body: { invoice_id: invoice, reason: 'other' },
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(full.status, 409, full.text);
    assert.deepEqual(full.body.codes, ['DISPUTED']);
    const [line] = Object.keys((await call('GET', `/v2/invoice/${invoice}`, { token: client.token })).body.payload.line_items);
    const partial = await call('POST', '/v2/line-item/refund', {
      token: client.token,
      body: { line_item_id: line, amount: 100, payment_methods: [buyer.card], reason: 'other' },
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(partial.status, 409, partial.text);
    assert.deepEqual(partial.body.codes, ['DISPUTED']);
    // Won: the merchant keeps the money, and it may be refunded again.
    await close(d.dispute_id, 'won');
    const after = await call('GET', `/v2/invoice/${invoice}/refunds`, { token: client.token });
    assert.deepEqual(after.body.payload.refundable, { USD: 800 });
  });

  it('a notice on the card of an escrow already cancelled is recorded at 0, flagged CAPPED: nothing but the fee moves', async () => {
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount: 500, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const escrow = created.body.payload;
    const paid = await call('POST', `/v2/escrow/${escrow.id}/pay`, { token: client.token, headers: { 'idempotency-key': unique('k') } });
    assert.equal(paid.body.payload.status, 'ESCROWED', paid.text);
    const cancelled = await call('POST', `/v2/escrow/${escrow.id}/cancel`, {
      token: client.token,
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(cancelled.body.payload.status, 'CANCELLED', cancelled.text);
    const before = await accountBalance(buyer.integrator_id, 'publisher_wallet');
    const holding = await accountBalance(buyer.integrator_id, 'dispute_holding');
    const d = (await open({ invoice_id: escrow.escrow_invoice_id, payment_method_id: buyer.card, amount: 500 })).body.payload;
    assert.deepEqual([d.amount, d.reported_amount, d.flags, d.traced], [0, 500, ['CAPPED'], []]);
    assert.equal((await accountBalance(buyer.integrator_id, 'publisher_wallet')) - before, -1500, 'the fee only');
    assert.equal(await accountBalance(buyer.integrator_id, 'dispute_holding'), holding);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('cancelling an escrow whose card part is disputed returns everything else to the buyer; the disputed part goes to the integrator', async () => {
    const wallet = buyer.wallets['USD:fiat'];
    const clearing = await systemAccount(h().orm.em.fork(), buyer.integrator_id, 'card_clearing', 'USD');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: buyer.integrator_id,
          reference: unique('fund-'),
          description: 'test',
          entries: [
            { account: clearing, currency: 'USD', amount: -300 },
            { account: wallet.wallet, currency: 'USD', amount: 300 },
          ],
        }),
      );
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [
          { payment_method_id: wallet.pm, amount: 300 },
          { payment_method_id: buyer.card, amount: 0 },
        ],
        line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const escrow = created.body.payload;
    const paid = await call('POST', `/v2/escrow/${escrow.id}/pay`, { token: client.token, headers: { 'idempotency-key': unique('k') } });
    assert.equal(paid.body.payload.status, 'ESCROWED', paid.text);
    const d = (await open({ invoice_id: escrow.escrow_invoice_id, payment_method_id: buyer.card })).body.payload;
    assert.equal(d.amount, 700);
    const walletBefore = await accountBalance(buyer.integrator_id, 'publisher_wallet');
    const cancelled = await call('POST', `/v2/escrow/${escrow.id}/cancel`, {
      token: client.token,
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(cancelled.body.payload.status, 'CANCELLED', cancelled.text);
    assert.equal(await balance(wallet.wallet), 300, 'the wallet part came back');
    assert.equal(
      (await accountBalance(buyer.integrator_id, 'publisher_wallet')) - walletBefore,
      700,
      'the disputed card part went to the integrator',
    );
    const cancelInvoice = (await call('GET', `/v2/invoice/${cancelled.body.payload.cancel_invoice_id}`, { token: client.token })).body
      .payload;
    assert.deepEqual(Object.keys(cancelInvoice.payment_methods), [wallet.pm], JSON.stringify(cancelInvoice.payment_methods));
    await close(d.dispute_id, 'lost');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a dispute racing a refund of the same charge: one after the other on the invoice, the money moves once', async () => {
    for (let round = 0; round < 4; round++) {
      const invoice = await paidInvoice(buyer.card!, 500);
      const [disputed, refunded] = await Promise.all([
        open({ invoice_id: invoice, payment_method_id: buyer.card }),
        call('POST', '/v2/refund', {
          token: client.token,
          body: { invoice_id: invoice, reason: 'other' },
          headers: { 'idempotency-key': unique('k') },
        }),
      ]);
      assert.equal(disputed.status, 200, disputed.text);
      const d = disputed.body.payload;
      if (refunded.status === 200) {
        // The refund went first: nothing was left for the processor to take (the sandbox's
        // notice without an amount disputes what the charge still has).
        assert.equal(d.amount, 0, JSON.stringify(d));
        assert.equal(d.funds, 'withdrawn');
      } else {
        assert.equal(refunded.status, 409, refunded.text);
        assert.deepEqual(refunded.body.codes, ['DISPUTED']);
        assert.equal(d.amount, 500);
      }
    }
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});
