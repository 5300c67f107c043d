/**
 * The refund rules of issue 16, tried from outside through the HTTP API: line-item refunds
 * (partial, over the line, nothing left), split payments and the order of `payment_methods`,
 * escrows before and after commit, the refund-failing sandbox card, token purchase refunds and
 * their rounding, concurrent line-item refunds, another integrator's line, a merged buyer.
 */
import assert from 'node:assert/strict';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { addCard, call, h, newClient, unique, type ApiResponse, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** The sandbox card that charges normally but whose refunds fail. */
const REFUND_FAILING_CARD = '4000000000005126';

/** Credits an integrator's default wallet through the ledger (money paid in from outside). */
async function fundIntegrator(integratorId: string, amount: number): Promise<void> {
  const em = h().orm.em.fork();
  const clearing = await systemAccount(em, integratorId, 'card_clearing', 'USD');
  const publisher = await systemAccount(em, integratorId, 'publisher_wallet', 'USD');
  await em.transactional((tx) =>
    post(tx, {
      integratorId,
      reference: unique('integrator-fund-'),
      description: 'test integrator funding',
      entries: [
        { account: clearing, currency: 'USD', amount: -amount },
        { account: publisher, currency: 'USD', amount },
      ],
    }),
  );
}

/** The integrator's publisher wallet balance in a currency. */
async function publisherBalance(integratorId: string, currency = 'USD'): Promise<number> {
  const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', currency);
  return (await balances(h().orm.em.fork(), [publisher])).get(publisher) ?? 0;
}

async function ledgerClean(): Promise<void> {
  assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
}

/** The `payload.errors` of a 400, asserted to be one. */
function errorsOf(res: ApiResponse): Record<string, string[]> {
  assert.equal(res.status, 400, res.text);
  return res.body.payload.errors;
}

/** Refund rows' payment method parts that moved or were asked to move something (a 0 part says nothing). */
function parts(row: any): Array<{ payment_method_id: string; amount: number; status: string }> {
  return row.payment_methods.filter((p: any) => p.amount > 0);
}

/** The summary totals agree with its rows: refunded is the sum of successful parts. */
function assertTotalsAddUp(summary: any, currency: string, total: number): void {
  let back = 0;
  for (const r of summary.refunds) {
    const moved = r.payment_methods.filter((p: any) => p.status === 'succeeded').reduce((s: number, p: any) => s + p.amount, 0);
    const asked = r.payment_methods.reduce((s: number, p: any) => s + p.amount, 0);
    assert.equal(asked, r.amount, `refund ${r.refund_invoice_id}: its parts add up to its amount`);
    if (r.status === 'REFUND-SUCCESS') assert.equal(moved, r.amount);
    if (r.status === 'REFUND-REJECTED') assert.equal(moved, 0);
    back += moved;
  }
  assert.equal(summary.refunded[currency] ?? 0, back, 'refunded = what the rows moved');
  assert.equal((summary.refunded[currency] ?? 0) + (summary.refundable[currency] ?? 0) <= total, true);
}

describe('refund rules (line items, split payments, escrows, failing card, tokens, races)', () => {
  let client: TestClient;
  let integratorId: string;
  let buyer: Party;
  let seller: Party;

  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    seller = await party(client);
    integratorId = buyer.integrator_id;
  });

  const summaryOf = async (invoiceId: string, c: TestClient = client) => {
    const res = await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: c.token });
    assert.equal(res.status, 200, res.text);
    return res.body.payload;
  };

  /** Line item ids of an invoice, in the order they were given. */
  const lineIds = async (invoiceId: string, c: TestClient = client): Promise<string[]> => {
    const res = await call('GET', `/v2/invoice/${invoiceId}`, { token: c.token });
    assert.equal(res.status, 200, res.text);
    return Object.values(res.body.payload.line_items).map((l: any) => l.line_item_id);
  };

  /** A paid USD invoice of `who` with these lines and methods; its id and its lines' ids. */
  async function paid(
    who: Party,
    methods: Array<{ payment_method_id: string; amount?: number }>,
    lines: Array<Record<string, unknown>>,
    c: TestClient = client,
  ): Promise<{ id: string; lines: string[] }> {
    const created = await call('POST', '/v2/invoice', {
      token: c.token,
      body: { account_id: who.account_id, payment_methods: methods, line_items: lines },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.payload.invoice_id;
    const pay = await call('POST', `/v2/invoice/${id}/pay`, { token: c.token });
    assert.equal(pay.body.payload.state, 'SUCCESS', pay.text);
    return { id, lines: await lineIds(id, c) };
  }

  const usd = (amount: number) => ({ amount, currency: 'USD', transaction_type: 'user_to_integrator' });

  const refundLine = (body: Record<string, unknown>, c: TestClient = client) =>
    call('POST', '/v2/line-item/refund', { token: c.token, body: { reason: 'product_related', ...body } });
  const refundAll = (invoiceId: string, c: TestClient = client) =>
    call('POST', '/v2/refund', { token: c.token, body: { invoice_id: invoiceId, reason: 'billing' } });

  it('refunds one line in parts up to its amount, then 400 amount EXCEEDS_REFUNDABLE, then 409 NOTHING_TO_REFUND; a full refund takes exactly the rest', async () => {
    const card = buyer.card!;
    const inv = await paid(buyer, [{ payment_method_id: card, amount: 0 }], [usd(600), usd(400)]);
    const [a, b] = inv.lines;
    const before = await publisherBalance(integratorId);

    const first = await refundLine({
      line_item_id: a,
      amount: 200,
      payment_methods: [card],
      sub_reason: 'partly_delivered',
      note: 'ticket 1',
    });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.payload.invoice_id, inv.id);
    assert.deepEqual(first.body.payload.refunded, { USD: 200 });
    assert.deepEqual(first.body.payload.refundable, { USD: 800 });
    assert.equal(first.body.payload.is_fully_refunded, false);
    const [row] = first.body.payload.refunds;
    assert.equal(row.status, 'REFUND-SUCCESS');
    assert.equal(row.line_item_id, a);
    assert.equal(row.amount, 200);
    assert.equal(row.currency, 'USD');
    assert.deepEqual(row.payment_methods, [{ payment_method_id: card, amount: 200, status: 'succeeded' }]);
    assert.deepEqual([row.reason, row.sub_reason, row.note, row.failure_reason], ['product_related', 'partly_delivered', 'ticket 1', '']);
    assert.equal(await publisherBalance(integratorId), before - 200);

    assert.equal((await refundLine({ line_item_id: a, amount: 300, payment_methods: [card] })).status, 200);
    // 100 left on the line: 101 is more than that, named on `amount`, and the message says how much is left.
    const over = await refundLine({ line_item_id: a, amount: 101, payment_methods: [card] });
    assert.deepEqual(errorsOf(over), { amount: ['EXCEEDS_REFUNDABLE'] });
    assert.match(over.text, /100/, 'the message says how much is left');
    assert.equal(await publisherBalance(integratorId), before - 500, 'a refused refund moves nothing');

    assert.equal((await refundLine({ line_item_id: a, amount: 100, payment_methods: [card] })).status, 200);
    const nothing = await refundLine({ line_item_id: a, amount: 1, payment_methods: [card] });
    assert.equal(nothing.status, 409, nothing.text);
    assert.deepEqual(nothing.body.codes, ['NOTHING_TO_REFUND']);

    // The other line is untouched by all this.
    const other = await refundLine({ line_item_id: b, amount: 150, payment_methods: [card] });
    assert.equal(other.status, 200, other.text);
    assert.deepEqual(other.body.payload.refunded, { USD: 750 });
    assert.deepEqual(other.body.payload.refundable, { USD: 250 });

    // A full refund now refunds exactly the rest: B's 250.
    const full = await refundAll(inv.id);
    assert.equal(full.status, 200, full.text);
    const s = full.body.payload;
    assert.equal(s.is_fully_refunded, true);
    assert.deepEqual(s.refunded, { USD: 1000 });
    assert.deepEqual(s.refundable, { USD: 0 });
    assert.deepEqual(
      s.refunds.map((r: any) => [r.line_item_id, r.amount, r.status]),
      [
        [a, 200, 'REFUND-SUCCESS'],
        [a, 300, 'REFUND-SUCCESS'],
        [a, 100, 'REFUND-SUCCESS'],
        [b, 150, 'REFUND-SUCCESS'],
        [null, 250, 'REFUND-SUCCESS'],
      ],
    );
    assert.deepEqual(s.refunds[4].payment_methods, [{ payment_method_id: card, amount: 250, status: 'succeeded' }]);
    assertTotalsAddUp(s, 'USD', 1000);
    assert.deepEqual(await summaryOf(inv.id), s);
    assert.equal(await publisherBalance(integratorId), before - 1000);

    for (const again of [await refundAll(inv.id), await refundLine({ line_item_id: b, amount: 1, payment_methods: [card] })]) {
      assert.equal(again.status, 409, again.text);
      assert.deepEqual(again.body.codes, ['NOTHING_TO_REFUND']);
    }
    assert.equal(await publisherBalance(integratorId), before - 1000);
  });

  it('split payment (wallet + card): a line refund follows the given order, each method at most what it has left; refusals name the field', async () => {
    const split = await party(client, true);
    await fund(split, 'USD:fiat', 300);
    const wallet = split.wallets['USD:fiat'];
    const card = split.card!;
    const inv = await paid(
      split,
      [
        { payment_method_id: wallet.pm, amount: 300 },
        { payment_method_id: card, amount: 0 },
      ],
      [usd(600), usd(400)],
    );
    const [a, b] = inv.lines;
    assert.equal(await balance(wallet.wallet), 0);
    const before = await publisherBalance(integratorId);

    // Refusals, before anything was refunded.
    assert.deepEqual(errorsOf(await refundLine({ line_item_id: a, amount: 10, payment_methods: [card, split.declined] })), {
      'payment_methods.1': ['NOT_CHARGED'],
    });
    assert.deepEqual(errorsOf(await refundLine({ line_item_id: a, amount: 10, payment_methods: [buyer.card] })), {
      'payment_methods.0': ['NOT_CHARGED'],
    });
    assert.deepEqual(errorsOf(await refundLine({ line_item_id: a, amount: 10, payment_methods: [wallet.pm, card, wallet.pm] })), {
      'payment_methods.2': ['DUPLICATE'],
    });
    assert.ok('amount' in errorsOf(await refundLine({ line_item_id: a, amount: 0, payment_methods: [card] })));
    assert.ok('amount' in errorsOf(await refundLine({ line_item_id: a, amount: -5, payment_methods: [card] })));
    assert.ok('amount' in errorsOf(await refundLine({ line_item_id: a, payment_methods: [card] })));
    for (const amount of [1.5, '10', null]) {
      assert.ok('amount' in errorsOf(await refundLine({ line_item_id: a, amount, payment_methods: [card] })), `amount ${amount}`);
    }
    assert.ok('line_item_id' in errorsOf(await refundLine({ amount: 10, payment_methods: [card] })));
    assert.ok('payment_methods' in errorsOf(await refundLine({ line_item_id: a, amount: 10 })));
    assert.ok('payment_methods' in errorsOf(await refundLine({ line_item_id: a, amount: 10, payment_methods: [] })));
    const objects = errorsOf(await refundLine({ line_item_id: a, amount: 10, payment_methods: [{ payment_method_id: card, amount: 10 }] }));
    assert.ok(
      Object.keys(objects).some((k) => k.startsWith('payment_methods')),
      `objects instead of id strings are named: ${JSON.stringify(objects)}`,
    );
    const noReason = await call('POST', '/v2/line-item/refund', {
      token: client.token,
      body: { line_item_id: a, amount: 10, payment_methods: [card] },
    });
    assert.ok('reason' in errorsOf(noReason));
    assert.ok('reason' in errorsOf(await refundLine({ line_item_id: a, amount: 10, payment_methods: [card], reason: 'whim' })));
    assert.deepEqual((await summaryOf(inv.id)).refunds, [], 'no refusal recorded a refund');
    assert.equal(await publisherBalance(integratorId), before);

    // Card first: the card alone covers it.
    const r1 = await refundLine({ line_item_id: a, amount: 200, payment_methods: [card, wallet.pm] });
    assert.equal(r1.status, 200, r1.text);
    assert.deepEqual(parts(r1.body.payload.refunds[0]), [{ payment_method_id: card, amount: 200, status: 'succeeded' }]);
    assert.equal(await balance(wallet.wallet), 0);

    // Wallet first: it gives back all it paid (300), the card the other 50.
    const r2 = await refundLine({ line_item_id: a, amount: 350, payment_methods: [wallet.pm, card] });
    assert.equal(r2.status, 200, r2.text);
    assert.deepEqual(parts(r2.body.payload.refunds[1]), [
      { payment_method_id: wallet.pm, amount: 300, status: 'succeeded' },
      { payment_method_id: card, amount: 50, status: 'succeeded' },
    ]);
    assert.equal(await balance(wallet.wallet), 300);

    // Line A has 50 left, but the wallet alone has nothing left: named on `payment_methods`.
    const walletOnly = await refundLine({ line_item_id: a, amount: 50, payment_methods: [wallet.pm] });
    assert.deepEqual(errorsOf(walletOnly), { payment_methods: ['EXCEEDS_REFUNDABLE'] });

    // Line B: the wallet has nothing left, so the card takes all 400 (it had 700, 250 back so far).
    const r3 = await refundLine({ line_item_id: b, amount: 400, payment_methods: [wallet.pm, card] });
    assert.equal(r3.status, 200, r3.text);
    assert.deepEqual(parts(r3.body.payload.refunds[2]), [{ payment_method_id: card, amount: 400, status: 'succeeded' }]);
    assert.equal(r3.body.payload.refunds[2].line_item_id, b);

    // The card has 50 left and line A 50: 51 is over the line.
    assert.deepEqual(errorsOf(await refundLine({ line_item_id: a, amount: 51, payment_methods: [card] })), {
      amount: ['EXCEEDS_REFUNDABLE'],
    });
    const r4 = await refundLine({ line_item_id: a, amount: 50, payment_methods: [card] });
    assert.equal(r4.status, 200, r4.text);
    const s = r4.body.payload;
    assert.equal(s.is_fully_refunded, true);
    assert.deepEqual(s.refunded, { USD: 1000 });
    assert.deepEqual(s.refundable, { USD: 0 });
    assertTotalsAddUp(s, 'USD', 1000);
    // Per method: the wallet had back its 300, the card its 700.
    const perMethod = new Map<string, number>();
    for (const r of s.refunds)
      for (const p of r.payment_methods) perMethod.set(p.payment_method_id, (perMethod.get(p.payment_method_id) ?? 0) + p.amount);
    assert.equal(perMethod.get(wallet.pm), 300);
    assert.equal(perMethod.get(card), 700);
    assert.equal(await balance(wallet.wallet), 300);
    assert.equal(await publisherBalance(integratorId), before - 1000);
    const none = await refundAll(inv.id);
    assert.equal(none.status, 409, none.text);
    assert.deepEqual(none.body.codes, ['NOTHING_TO_REFUND']);
  });

  it('a full refund after line refunds of a split payment gives each method exactly what it has left', async () => {
    const split = await party(client, true);
    await fund(split, 'USD:fiat', 300);
    const wallet = split.wallets['USD:fiat'];
    const card = split.card!;
    const inv = await paid(
      split,
      [
        { payment_method_id: wallet.pm, amount: 300 },
        { payment_method_id: card, amount: 0 },
      ],
      [usd(600), usd(400)],
    );
    const [a] = inv.lines;
    const before = await publisherBalance(integratorId);
    const r1 = await refundLine({ line_item_id: a, amount: 350, payment_methods: [wallet.pm, card] });
    assert.equal(r1.status, 200, r1.text);
    const full = await refundAll(inv.id);
    assert.equal(full.status, 200, full.text);
    const [, rest] = full.body.payload.refunds;
    assert.equal(rest.line_item_id, null);
    assert.equal(rest.amount, 650);
    assert.deepEqual(parts(rest), [{ payment_method_id: card, amount: 650, status: 'succeeded' }]);
    assert.deepEqual(full.body.payload.refunded, { USD: 1000 });
    assert.equal(full.body.payload.is_fully_refunded, true);
    assert.equal(await balance(wallet.wallet), 300);
    assert.equal(await publisherBalance(integratorId), before - 1000);
  });

  it('a line refund the integrator wallet cannot cover is REFUND-REJECTED (409); the seller keeps its proceeds', async () => {
    const own = await newClient();
    const b = await party(own, true);
    const s = await party(own);
    const inv = await paid(
      b,
      [{ payment_method_id: b.card!, amount: 0 }],
      [
        {
          amount: 1000,
          currency: 'USD',
          transaction_type: 'user_to_user',
          recipients: [{ amount: 700, currency: 'USD', destination_wallet_id: s.wallets['USD:fiat'].wallet }],
        },
      ],
      own,
    );
    assert.equal(await publisherBalance(b.integrator_id), 300);
    const rejected = await refundLine({ line_item_id: inv.lines[0], amount: 301, payment_methods: [b.card] }, own);
    assert.equal(rejected.status, 409, rejected.text);
    assert.deepEqual(rejected.body.codes, ['REFUND_REJECTED']);
    const [row] = rejected.body.payload.refunds;
    assert.equal(row.status, 'REFUND-REJECTED');
    assert.equal(row.line_item_id, inv.lines[0]);
    assert.equal(row.failure_reason, 'integrator_insufficient_funds');
    assert.deepEqual(rejected.body.payload.refundable, { USD: 1000 });
    assert.equal(await publisherBalance(b.integrator_id), 300, 'nothing moved');
    const ok = await refundLine({ line_item_id: inv.lines[0], amount: 300, payment_methods: [b.card] }, own);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.body.payload.refunded, { USD: 300 });
    assert.equal(await publisherBalance(b.integrator_id), 0);
    assert.equal(await balance(s.wallets['USD:fiat'].wallet), 700, 'the seller keeps its proceeds');
  });

  it('a line refund retried with its Idempotency-Key refunds once; Prefer: respond-async answers 202 with Location', async () => {
    const who = await party(client, true);
    const inv = await paid(who, [{ payment_method_id: who.card!, amount: 0 }], [usd(500)]);
    const before = await publisherBalance(integratorId);
    const key = unique('line-refund-key-');
    const body = { line_item_id: inv.lines[0], amount: 120, payment_methods: [who.card], reason: 'other' };
    const first = await call('POST', '/v2/line-item/refund', { token: client.token, headers: { 'idempotency-key': key }, body });
    assert.equal(first.status, 200, first.text);
    const retry = await call('POST', '/v2/line-item/refund', { token: client.token, headers: { 'idempotency-key': key }, body });
    assert.equal(retry.status, 200, retry.text);
    assert.deepEqual(retry.body, first.body, 'the first answer, replayed');
    assert.equal((await summaryOf(inv.id)).refunds.length, 1);
    assert.equal(await publisherBalance(integratorId), before - 120);

    const accepted = await call('POST', '/v2/line-item/refund', {
      token: client.token,
      headers: { prefer: 'respond-async' },
      body: { ...body, amount: 80 },
    });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal(accepted.headers.get('location'), `/v2/invoice/${inv.id}/refunds`);
    for (let i = 0; ; i++) {
      const s = await summaryOf(inv.id);
      if (s.refunds.length === 2) {
        assert.deepEqual(s.refunded, { USD: 200 });
        break;
      }
      assert.ok(i < 200, 'the accepted refund ran');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(await publisherBalance(integratorId), before - 200);
  });

  it('an escrow line: ESCROWED → 409 REFUND_NOT_ALLOWED; after commit it refunds from the integrator wallet and the seller keeps its proceeds', async () => {
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [
          {
            amount: 1000,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 700, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
          },
          usd(200),
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    const escrowId = created.body.payload.id;
    const escrowInvoice = created.body.payload.escrow_invoice_id;
    const pay = await call('POST', `/v2/escrow/${escrowId}/pay`, { token: client.token });
    assert.equal(pay.body.payload.status, 'ESCROWED', pay.text);
    const [u2u, u2i] = await lineIds(escrowInvoice);

    const escrowed = await refundLine({ line_item_id: u2u, amount: 100, payment_methods: [buyer.card] });
    assert.equal(escrowed.status, 409, escrowed.text);
    assert.deepEqual(escrowed.body.codes, ['REFUND_NOT_ALLOWED']);
    assert.deepEqual((await summaryOf(escrowInvoice)).refunds, []);

    const sellerBefore = await balance(seller.wallets['USD:fiat'].wallet);
    const commit = await call('POST', `/v2/escrow/${escrowId}/commit`, { token: client.token });
    assert.equal(commit.status, 200, commit.text);
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), sellerBefore + 700);
    await fundIntegrator(integratorId, 1000);
    const before = await publisherBalance(integratorId);

    const r1 = await refundLine({ line_item_id: u2u, amount: 800, payment_methods: [buyer.card] });
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.body.payload.invoice_id, escrowInvoice);
    assert.deepEqual(r1.body.payload.refunded, { USD: 800 });
    assert.deepEqual(r1.body.payload.refundable, { USD: 400 });
    assert.equal(r1.body.payload.refunds[0].line_item_id, u2u);
    assert.deepEqual(r1.body.payload.refunds[0].payment_methods, [{ payment_method_id: buyer.card, amount: 800, status: 'succeeded' }]);
    assert.equal(await publisherBalance(integratorId), before - 800, 'all 800 from the integrator wallet');
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), sellerBefore + 700, 'the seller keeps its proceeds');

    assert.deepEqual(errorsOf(await refundLine({ line_item_id: u2u, amount: 201, payment_methods: [buyer.card] })), {
      amount: ['EXCEEDS_REFUNDABLE'],
    });
    const r2 = await refundLine({ line_item_id: u2i, amount: 200, payment_methods: [buyer.card] });
    assert.equal(r2.status, 200, r2.text);
    const full = await refundAll(escrowInvoice);
    assert.equal(full.status, 200, full.text);
    assert.deepEqual(full.body.payload.refunded, { USD: 1200 });
    assert.equal(full.body.payload.is_fully_refunded, true);
    assert.deepEqual(
      full.body.payload.refunds.map((r: any) => [r.line_item_id, r.amount]),
      [
        [u2u, 800],
        [u2i, 200],
        [null, 200],
      ],
    );
    assert.equal(await publisherBalance(integratorId), before - 1200);
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), sellerBefore + 700);
  });

  it('the refund-failing card charges, but its refund is REFUND-FAILED: nothing moves, it stays refundable, the event lists it failed', async () => {
    const who = await party(client);
    const failing = await addCard(client, who.account_id, REFUND_FAILING_CARD);
    const inv = await paid(who, [{ payment_method_id: failing, amount: 0 }], [usd(500)]);
    const before = await publisherBalance(integratorId);

    const res = await refundAll(inv.id);
    assert.equal(res.status, 200, res.text);
    const s = res.body.payload;
    assert.equal(s.refunds.length, 1);
    const [row] = s.refunds;
    assert.equal(row.status, 'REFUND-FAILED');
    assert.equal(row.failure_reason, 'refund_declined');
    assert.deepEqual(row.payment_methods, [{ payment_method_id: failing, amount: 500, status: 'failed' }]);
    assert.deepEqual(s.refunded, { USD: 0 });
    assert.deepEqual(s.refundable, { USD: 500 });
    assert.equal(s.is_fully_refunded, false);
    assert.equal(await publisherBalance(integratorId), before, 'nothing moved');
    const refundInvoice = await call('GET', `/v2/invoice/${row.refund_invoice_id}`, { token: client.token });
    assert.equal(refundInvoice.body.payload.state, 'FAILED');
    assert.equal(refundInvoice.body.payload.invoice_type, 'user_refund');
    assert.equal(refundInvoice.body.payload.failure_reason, 'refund_declined');

    // The refund-completed event lists the part as failed.
    let event: any;
    for (let i = 0; i < 100 && !event; i++) {
      const events = await call('GET', `/v2/events?type=refund-completed&account_id=${who.account_id}`, { token: client.token });
      assert.equal(events.status, 200, events.text);
      event = events.body.payload.events.find((e: any) => e.payload.message.invoice_id === row.refund_invoice_id);
      if (!event) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(event, 'a refund-completed event for the refund');
    assert.deepEqual(event.payload.message, {
      account_id: who.account_id,
      invoice_id: row.refund_invoice_id,
      payment_invoice_id: inv.id,
      status: 'REFUND-FAILED',
      successful_refunds: [],
      failed_refunds: [{ payment_method_id: failing, amount: 500, currency: 'USD' }],
    });

    // A line-item refund of it fails the same way, and it is still refundable.
    const line = await refundLine({ line_item_id: inv.lines[0], amount: 200, payment_methods: [failing] });
    assert.equal(line.status, 200, line.text);
    assert.equal(line.body.payload.refunds[1].status, 'REFUND-FAILED');
    assert.deepEqual(line.body.payload.refunds[1].payment_methods, [{ payment_method_id: failing, amount: 200, status: 'failed' }]);
    assert.deepEqual(line.body.payload.refundable, { USD: 500 });
    assert.equal(await publisherBalance(integratorId), before);
    const failedOnly = await call('GET', `/v2/invoice/${inv.id}/refunds?status=REFUND-FAILED`, { token: client.token });
    assert.equal(failedOnly.body.payload.refunds.length, 2);
    const successOnly = await call('GET', `/v2/invoice/${inv.id}/refunds?status=REFUND-SUCCESS`, { token: client.token });
    assert.deepEqual(successOnly.body.payload.refunds, []);
    assert.deepEqual(successOnly.body.payload.refundable, { USD: 500 }, 'the totals stay whole');
  });

  it('wallet + refund-failing card: the wallet part moves, the card part fails and stays refundable', async () => {
    const who = await party(client);
    await fund(who, 'USD:fiat', 100);
    const wallet = who.wallets['USD:fiat'];
    const failing = await addCard(client, who.account_id, REFUND_FAILING_CARD);
    const inv = await paid(
      who,
      [
        { payment_method_id: wallet.pm, amount: 100 },
        { payment_method_id: failing, amount: 0 },
      ],
      [usd(400)],
    );
    const before = await publisherBalance(integratorId);
    const res = await refundAll(inv.id);
    assert.equal(res.status, 200, res.text);
    const [row] = res.body.payload.refunds;
    assert.equal(row.status, 'REFUND-FAILED');
    assert.deepEqual(row.payment_methods, [
      { payment_method_id: wallet.pm, amount: 100, status: 'succeeded' },
      { payment_method_id: failing, amount: 300, status: 'failed' },
    ]);
    assert.deepEqual(res.body.payload.refunded, { USD: 100 });
    assert.deepEqual(res.body.payload.refundable, { USD: 300 });
    assert.equal(await balance(wallet.wallet), 100);
    assert.equal(await publisherBalance(integratorId), before - 100);
    // The wallet has nothing left; asking it for more is refused on `payment_methods`.
    assert.deepEqual(errorsOf(await refundLine({ line_item_id: inv.lines[0], amount: 1, payment_methods: [wallet.pm] })), {
      payment_methods: ['EXCEEDS_REFUNDABLE'],
    });
  });

  it('an escrow paid with the refund-failing card and cancelled refunds it in full', async () => {
    const who = await party(client);
    const failing = await addCard(client, who.account_id, REFUND_FAILING_CARD);
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: { account_id: who.account_id, payment_methods: [{ payment_method_id: failing, amount: 0 }], line_items: [usd(700)] },
    });
    assert.equal(created.status, 201, created.text);
    const escrowId = created.body.payload.id;
    const pay = await call('POST', `/v2/escrow/${escrowId}/pay`, { token: client.token });
    assert.equal(pay.body.payload.status, 'ESCROWED', pay.text);
    const before = await publisherBalance(integratorId);
    const cancel = await call('POST', `/v2/escrow/${escrowId}/cancel`, { token: client.token });
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(cancel.body.payload.status, 'CANCELLED');
    const cancelInvoice = await call('GET', `/v2/invoice/${cancel.body.payload.cancel_invoice_id}`, { token: client.token });
    assert.equal(cancelInvoice.status, 200, cancelInvoice.text);
    assert.equal(cancelInvoice.body.payload.state, 'SUCCESS');
    assert.equal(cancelInvoice.body.payload.failure_reason, '');
    assert.equal(cancelInvoice.body.payload.summary.total_amount, 700);
    assert.deepEqual(
      Object.values(cancelInvoice.body.payload.payment_methods).map((p: any) => [p.payment_method_id, p.authorized_amount]),
      [[failing, 700]],
    );
    assert.equal(await publisherBalance(integratorId), before, 'an escrow cancel is not paid by the integrator');
    const refused = await refundAll(created.body.payload.escrow_invoice_id);
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.codes, ['REFUND_NOT_ALLOWED']);
    await ledgerClean();
  });

  describe('token purchases', () => {
    let gems: TestClient;
    let gemIntegrator: string;

    before(async () => {
      const name = unique('refund-rules-gem-');
      // 250 GEM per USD: 2.5 tokens a cent, so refunds of odd cents round.
      gemIntegrator = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
      gems = await newClient({ integrator: name });
    });

    /** A buyer with a card who bought `tokens` GEM; the purchase invoice id. */
    async function bought(tokens: number): Promise<{ who: Party; invoiceId: string; line: string }> {
      const who = await party(gems, true);
      const res = await call('POST', '/v2/token/purchase', {
        token: gems.token,
        body: { payment_method_id: who.card, amount: tokens, currency: 'GEM' },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.payload.state, 'SUCCESS', res.text);
      assert.equal(await balance(who.wallets['GEM:standard'].wallet), tokens);
      const invoiceId = res.body.payload.invoice_id;
      const [line] = await lineIds(invoiceId, gems);
      return { who, invoiceId, line };
    }

    /** Spends `tokens` of the buyer's standard GEM on the integrator. */
    async function spend(who: Party, tokens: number): Promise<void> {
      await paid(
        who,
        [{ payment_method_id: who.wallets['GEM:standard'].pm, amount: 0 }],
        [{ amount: tokens, currency: 'GEM', transaction_type: 'user_to_integrator' }],
        gems,
      );
    }

    it('a full refund takes back exactly the tokens issued and returns the USD to the card (user_refund)', async () => {
      const { who, invoiceId } = await bought(1000);
      const before = await publisherBalance(gemIntegrator);
      const res = await refundAll(invoiceId, gems);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.payload.refunded, { USD: 400 });
      assert.deepEqual(res.body.payload.refundable, { USD: 0 });
      assert.equal(res.body.payload.is_fully_refunded, true);
      const [row] = res.body.payload.refunds;
      assert.equal(row.status, 'REFUND-SUCCESS');
      assert.deepEqual(row.payment_methods, [{ payment_method_id: who.card, amount: 400, status: 'succeeded' }]);
      assert.equal(await balance(who.wallets['GEM:standard'].wallet), 0, 'the 1000 tokens issued are taken back');
      assert.equal(await publisherBalance(gemIntegrator), before - 400);
      const refundInvoice = await call('GET', `/v2/invoice/${row.refund_invoice_id}`, { token: gems.token });
      assert.equal(refundInvoice.body.payload.invoice_type, 'user_refund');
      assert.equal(refundInvoice.body.payload.state, 'SUCCESS');
      assert.equal(refundInvoice.body.payload.metadata.refunded_invoice_id, invoiceId);
      const again = await refundAll(invoiceId, gems);
      assert.equal(again.status, 409, again.text);
      assert.deepEqual(again.body.codes, ['NOTHING_TO_REFUND']);
    });

    it('tokens taken back round up on the cents refunded in all (1 cent → 3 tokens, 2 cents → 5)', async () => {
      const { who, invoiceId, line } = await bought(1000);
      const standard = who.wallets['GEM:standard'].wallet;
      const r1 = await refundLine({ line_item_id: line, amount: 1, payment_methods: [who.card] }, gems);
      assert.equal(r1.status, 200, r1.text);
      assert.equal(await balance(standard), 997, 'ceil(2.5) = 3 tokens back');
      const r2 = await refundLine({ line_item_id: line, amount: 1, payment_methods: [who.card] }, gems);
      assert.equal(r2.status, 200, r2.text);
      assert.equal(await balance(standard), 995, 'ceil(5) = 5 tokens back in all');
      const rest = await refundAll(invoiceId, gems);
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(rest.body.payload.refunded, { USD: 400 });
      assert.equal(rest.body.payload.refunds[2].amount, 398);
      assert.equal(await balance(standard), 0, 'in all exactly the 1000 issued');
    });

    it('a line refund of a token purchase beyond what the unspent tokens cover is refused; nothing moves', async () => {
      const { who, invoiceId, line } = await bought(1000);
      const standard = who.wallets['GEM:standard'].wallet;
      await spend(who, 3);
      const before = await publisherBalance(gemIntegrator);
      const over = await refundLine({ line_item_id: line, amount: 399, payment_methods: [who.card] }, gems);
      assert.deepEqual(errorsOf(over), { amount: ['EXCEEDS_REFUNDABLE'] });
      assert.match(over.body.message.join(' '), /398/, 'the message says how much is left');
      assert.equal(await balance(standard), 997, 'no token taken back');
      assert.equal(await publisherBalance(gemIntegrator), before, 'no USD given back');
      assert.deepEqual((await summaryOf(invoiceId, gems)).refunded, { USD: 0 });
      const ok = await refundLine({ line_item_id: line, amount: 398, payment_methods: [who.card] }, gems);
      assert.equal(ok.status, 200, ok.text);
      assert.equal(await balance(standard), 2);
    });

    it("tokens bought for another account are taken back from that account's standard wallet", async () => {
      const payer = await party(gems, true);
      const friend = await party(gems);
      const res = await call('POST', '/v2/token/purchase', {
        token: gems.token,
        body: { payment_method_id: payer.card, amount: 200, currency: 'USD', destination_account_id: friend.account_id },
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(await balance(friend.wallets['GEM:standard'].wallet), 500);
      const refunded = await refundAll(res.body.payload.invoice_id, gems);
      assert.equal(refunded.status, 200, refunded.text);
      assert.deepEqual(refunded.body.payload.refunds[0].payment_methods, [
        { payment_method_id: payer.card, amount: 200, status: 'succeeded' },
      ]);
      assert.equal(await balance(friend.wallets['GEM:standard'].wallet), 0);
      assert.equal(await balance(payer.wallets['GEM:standard'].wallet), 0);
    });

    it('tokens bought for an account since merged into another: refundable 0, 409 REFUND_NOT_ALLOWED', async () => {
      const payer = await party(gems, true);
      const friend = await party(gems);
      const destination = await party(gems);
      const res = await call('POST', '/v2/token/purchase', {
        token: gems.token,
        body: { payment_method_id: payer.card, amount: 200, currency: 'USD', destination_account_id: friend.account_id },
      });
      assert.equal(res.status, 201, res.text);
      const merge = await call('POST', '/v2/merge-accounts', {
        token: gems.token,
        body: { source_account_id: friend.account_id, destination_account_id: destination.account_id },
      });
      assert.equal(merge.status, 200, merge.text);
      const before = await balance(destination.wallets['GEM:standard'].wallet);
      assert.deepEqual((await summaryOf(res.body.payload.invoice_id, gems)).refundable, { USD: 0 });
      const refused = await refundAll(res.body.payload.invoice_id, gems);
      assert.equal(refused.status, 409, refused.text);
      assert.deepEqual(refused.body.codes, ['REFUND_NOT_ALLOWED']);
      assert.equal(await balance(destination.wallets['GEM:standard'].wallet), before, 'no token taken from the destination');
    });

    it('a token purchase paid with the refund-failing card: REFUND-FAILED, its tokens stay with the buyer', async () => {
      const who = await party(gems);
      const failing = await addCard(gems, who.account_id, REFUND_FAILING_CARD);
      const res = await call('POST', '/v2/token/purchase', {
        token: gems.token,
        body: { payment_method_id: failing, amount: 1000, currency: 'GEM' },
      });
      assert.equal(res.body.payload.state, 'SUCCESS', res.text);
      const before = await publisherBalance(gemIntegrator);
      const refunded = await refundAll(res.body.payload.invoice_id, gems);
      assert.equal(refunded.status, 200, refunded.text);
      assert.equal(refunded.body.payload.refunds[0].status, 'REFUND-FAILED');
      assert.deepEqual(refunded.body.payload.refundable, { USD: 400 });
      assert.equal(await balance(who.wallets['GEM:standard'].wallet), 1000, 'nothing moved: no token taken back');
      assert.equal(await publisherBalance(gemIntegrator), before);
    });

    it('a committed token escrow line: refunded to the token wallet, the integrator token wallet pays what it holds, the seller keeps its share', async () => {
      const own = unique('refund-rules-gem-escrow-');
      const ownId = (await createIntegrator(h().orm.em.fork(), { name: own, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
      const c = await newClient({ integrator: own });
      const b = await party(c);
      const s = await party(c);
      await fund(b, 'GEM:standard', 600);
      const created = await call('POST', '/v2/escrow', {
        token: c.token,
        body: {
          account_id: b.account_id,
          line_items: [
            {
              amount: 600,
              currency: 'GEM',
              transaction_type: 'user_to_user',
              recipients: [{ amount: 400, currency: 'GEM', destination_wallet_id: s.wallets['GEM:standard'].wallet }],
            },
          ],
        },
      });
      assert.equal(created.status, 201, created.text);
      assert.equal((await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: c.token })).body.payload.status, 'ESCROWED');
      assert.equal((await call('POST', `/v2/escrow/${created.body.payload.id}/commit`, { token: c.token })).status, 200);
      const sellerWallets = ['GEM:standard', 'GEM:convertible'].map((k) => s.wallets[k].wallet);
      const sellerTotal = async () => (await balance(sellerWallets[0])) + (await balance(sellerWallets[1]));
      assert.equal(await sellerTotal(), 400);
      assert.equal(await publisherBalance(ownId, 'GEM'), 200);
      const escrowInvoice = created.body.payload.escrow_invoice_id;
      const [line] = await lineIds(escrowInvoice, c);
      const res = await refundLine({ line_item_id: line, amount: 250, payment_methods: [b.wallets['GEM:standard'].pm] }, c);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.payload.refunded, { GEM: 250 });
      assert.deepEqual(res.body.payload.refundable, { GEM: 350 });
      assert.equal(await balance(b.wallets['GEM:standard'].wallet), 250);
      assert.equal(await publisherBalance(ownId, 'GEM'), 0, 'its 200, issuance the other 50');
      assert.equal(await sellerTotal(), 400, 'the seller keeps its share');
      const refundInvoice = await call('GET', `/v2/invoice/${res.body.payload.refunds[0].refund_invoice_id}`, { token: c.token });
      assert.equal(refundInvoice.body.payload.invoice_type, 'user_refund_virtual');
      // The escrow's commit invoice and the refund invoice are not refunded themselves.
      const escrow = await call('GET', `/v2/escrow/${created.body.payload.id}`, { token: c.token });
      for (const id of [escrow.body.payload.commit_invoice_id, res.body.payload.refunds[0].refund_invoice_id]) {
        const refused = await refundAll(id, c);
        assert.equal(refused.status, 409, refused.text);
        assert.deepEqual(refused.body.codes, ['REFUND_NOT_ALLOWED']);
      }
    });

    it('spent tokens shrink the refundable amount to what the unspent ones cover; all spent → 409 NOTHING_TO_REFUND', async () => {
      const { who, invoiceId } = await bought(1000);
      const standard = who.wallets['GEM:standard'].wallet;
      await spend(who, 3);
      assert.equal(await balance(standard), 997);
      // 997 tokens cover 398 cents (398 × 2.5 = 995 tokens); 399 cents would need ceil(997.5) = 998.
      assert.deepEqual((await summaryOf(invoiceId, gems)).refundable, { USD: 398 });
      const before = await publisherBalance(gemIntegrator);
      const res = await refundAll(invoiceId, gems);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.payload.refunded, { USD: 398 });
      assert.deepEqual(res.body.payload.refundable, { USD: 0 });
      assert.deepEqual(res.body.payload.refunds[0].payment_methods, [{ payment_method_id: who.card, amount: 398, status: 'succeeded' }]);
      assert.equal(await balance(standard), 2, '995 tokens taken back');
      assert.equal(await publisherBalance(gemIntegrator), before - 398);
      const more = await refundAll(invoiceId, gems);
      assert.equal(more.status, 409, more.text);
      assert.deepEqual(more.body.codes, ['NOTHING_TO_REFUND']);
      assert.equal(await balance(standard), 2);

      const spentAll = await bought(250);
      await spend(spentAll.who, 250);
      assert.deepEqual((await summaryOf(spentAll.invoiceId, gems)).refundable, { USD: 0 });
      const none = await refundAll(spentAll.invoiceId, gems);
      assert.equal(none.status, 409, none.text);
      assert.deepEqual(none.body.codes, ['NOTHING_TO_REFUND']);
      const noneLine = await refundLine({ line_item_id: spentAll.line, amount: 1, payment_methods: [spentAll.who.card] }, gems);
      assert.equal(noneLine.status, 409, noneLine.text);
      assert.deepEqual(noneLine.body.codes, ['NOTHING_TO_REFUND']);
      await ledgerClean();
    });
  });

  it('10 concurrent line refunds adding up to more than the line: never more than the line, no 5xx', async () => {
    const who = await party(client, true);
    const inv = await paid(who, [{ payment_method_id: who.card!, amount: 0 }], [usd(1000), usd(500)]);
    const [line, other] = inv.lines;
    const before = await publisherBalance(integratorId);
    const amounts = [300, 250, 200, 150, 100, 300, 250, 200, 150, 100];
    // Each request different (its note): identical ones in flight together would share one refund.
    const answers = await Promise.all(
      amounts.map((amount, i) => refundLine({ line_item_id: line, amount, payment_methods: [who.card], note: `request ${i}` })),
    );
    for (const a of answers) assert.ok([200, 400, 409].includes(a.status), `${a.status} ${a.text}`);
    assert.ok(answers.some((a) => a.status === 200));
    const s = await summaryOf(inv.id);
    const rows = s.refunds.filter((r: any) => r.status === 'REFUND-SUCCESS');
    const total = rows.reduce((sum: number, r: any) => sum + r.amount, 0);
    assert.ok(total <= 1000, `refunded ${total} of a 1000 line`);
    assert.ok(
      rows.every((r: any) => r.line_item_id === line),
      'only that line',
    );
    assert.equal(rows.length, answers.filter((a) => a.status === 200).length, 'one refund per 200');
    assert.deepEqual(s.refunded, { USD: total });
    assert.deepEqual(s.refundable, { USD: 1500 - total });
    assert.equal(await publisherBalance(integratorId), before - total);
    // What the line has left is exactly refundable, no more.
    const left = 1000 - total;
    if (left > 0) {
      assert.deepEqual(errorsOf(await refundLine({ line_item_id: line, amount: left + 1, payment_methods: [who.card] })), {
        amount: ['EXCEEDS_REFUNDABLE'],
      });
      assert.equal((await refundLine({ line_item_id: line, amount: left, payment_methods: [who.card] })).status, 200);
    }
    const done = await refundLine({ line_item_id: line, amount: 1, payment_methods: [who.card] });
    assert.equal(done.status, 409, done.text);
    assert.equal((await refundLine({ line_item_id: other, amount: 500, payment_methods: [who.card] })).status, 200);
    assert.equal(await publisherBalance(integratorId), before - 1500);
    await ledgerClean();
  });

  it('concurrent line refunds with one Idempotency-Key refund once (the others 409 or the replayed answer)', async () => {
    const who = await party(client, true);
    const inv = await paid(who, [{ payment_method_id: who.card!, amount: 0 }], [usd(1000)]);
    const before = await publisherBalance(integratorId);
    const key = unique('same-key-');
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call('POST', '/v2/line-item/refund', {
          token: client.token,
          headers: { 'idempotency-key': key },
          body: { line_item_id: inv.lines[0], amount: 100, payment_methods: [who.card], reason: 'other' },
        }),
      ),
    );
    for (const a of answers) assert.ok(a.status === 200 || a.status === 409, `${a.status} ${a.text}`);
    const s = await summaryOf(inv.id);
    assert.equal(s.refunds.length, 1);
    assert.deepEqual(s.refunded, { USD: 100 });
    assert.equal(await publisherBalance(integratorId), before - 100);
  });

  it("a blocked buyer's line is refunded to its wallet; the refund invoice's invoice-completed event is listed", async () => {
    const who = await party(client);
    await fund(who, 'USD:fiat', 500);
    const wallet = who.wallets['USD:fiat'];
    const inv = await paid(who, [{ payment_method_id: wallet.pm, amount: 0 }], [usd(500)]);
    const operator = await newClient({ integrator: client.integrator, isOperator: true });
    for (const capability of ['transactions', 'login']) {
      const block = await call('POST', '/v2/block', {
        token: operator.token,
        body: { account_id: who.account_id, block_capability: capability, block_reason: 'compliance' },
      });
      assert.equal(block.status, 200, block.text);
    }
    const res = await refundLine({ line_item_id: inv.lines[0], amount: 200, payment_methods: [wallet.pm] });
    assert.equal(res.status, 200, res.text);
    assert.equal(await balance(wallet.wallet), 200);
    const refundId = res.body.payload.refunds[0].refund_invoice_id;
    let listed: any;
    for (let i = 0; i < 100 && !listed; i++) {
      const events = await call('GET', `/v2/events?type=invoice-completed&account_id=${who.account_id}`, { token: client.token });
      listed = events.body.payload.events.find((e: any) => e.payload.message.invoice_id === refundId);
      if (!listed) await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(listed, 'invoice-completed for the refund invoice');
    assert.equal(listed.payload.message.state, 'SUCCESS');
  });

  it("another integrator's line item is 404 LINE_ITEM_NOT_FOUND, as a made-up id is", async () => {
    const inv = await paid(buyer, [{ payment_method_id: buyer.card!, amount: 0 }], [usd(300)]);
    const other = await newClient();
    const foreign = await refundLine({ line_item_id: inv.lines[0], amount: 100, payment_methods: [buyer.card] }, other);
    const madeUp = await refundLine({ line_item_id: 'li_01JDW7Q3V9K2M4N6P8R0S2T4V7', amount: 100, payment_methods: [buyer.card] });
    for (const res of [foreign, madeUp]) {
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.body.codes, ['LINE_ITEM_NOT_FOUND']);
    }
    assert.deepEqual(foreign.body, madeUp.body, 'the same answer: nothing tells them apart');
    assert.deepEqual((await summaryOf(inv.id)).refunds, []);
  });

  it("a merged buyer's invoice: summary refundable 0, both POSTs 409 REFUND_NOT_ALLOWED", async () => {
    const merged = await party(client, true);
    const destination = await party(client);
    const inv = await paid(merged, [{ payment_method_id: merged.card!, amount: 0 }], [usd(400)]);
    const merge = await call('POST', '/v2/merge-accounts', {
      token: client.token,
      body: { source_account_id: merged.account_id, destination_account_id: destination.account_id },
    });
    assert.equal(merge.status, 200, merge.text);
    const before = await publisherBalance(integratorId);
    const s = await summaryOf(inv.id);
    assert.deepEqual(s.refundable, { USD: 0 });
    assert.equal(s.refunds.length, 0);
    const full = await refundAll(inv.id);
    const line = await refundLine({ line_item_id: inv.lines[0], amount: 100, payment_methods: [merged.card] });
    for (const res of [full, line]) {
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED']);
    }
    assert.equal(await publisherBalance(integratorId), before);
  });
});
