import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

async function events(escrowId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ event_name: string; status: string }>>(
      `select event_name, coalesce(message->>'status', message->>'state') as status from outbox
      where message->>'id' = ? or message->>'invoice_id' in (select id from invoice where escrow_id = ?) order by created_at, id`,
      [escrowId, escrowId],
    );
  return rows.map((r) => `${r.event_name}:${r.status}`);
}

describe('escrow lifecycle', () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;
  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    seller = await party(client);
  });

  const create = async (payment_methods: Array<{ payment_method_id: string; amount: number }>, over: Record<string, unknown> = {}) => {
    const res = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods,
        line_items: [
          {
            amount: 1550,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 1200, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
          },
        ],
        ...over,
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.payload.id as string;
  };
  const act = (id: string, transition: string, headers: Record<string, string> = {}) =>
    call('POST', `/v2/escrow/${id}/${transition}`, { token: client.token, headers });

  it('create → pay → commit: the card is charged, the seller and the integrator are paid, the ledger balances', async () => {
    const publisher = await systemAccount(h().orm.em.fork(), buyer.integrator_id, 'publisher_wallet', 'USD');
    const holding = await systemAccount(h().orm.em.fork(), buyer.integrator_id, 'escrow_holding', 'USD');
    const before = {
      seller: await balance(seller.wallets['USD:fiat'].wallet),
      publisher: await balance(publisher),
      holding: await balance(holding),
    };
    const id = await create([{ payment_method_id: buyer.card!, amount: 0 }]);
    const paid = await act(id, 'pay');
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.status, 'ESCROWED');
    assert.equal(paid.body.payload.integrator, client.integrator);
    assert.equal(await balance(holding), before.holding + 1550);
    const committed = await act(id, 'commit');
    assert.equal(committed.status, 200, committed.text);
    assert.equal(committed.body.payload.status, 'COMMITTED');
    assert.match(committed.body.payload.commit_invoice_id, /^inv_/);
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), before.seller + 1200);
    assert.equal(await balance(publisher), before.publisher + 350);
    assert.equal(await balance(holding), before.holding);
    const commitInvoice = (await call('GET', `/v2/invoice/${committed.body.payload.commit_invoice_id}`, { token: client.token })).body
      .payload;
    assert.equal(commitInvoice.invoice_type, 'user_purchase_commit_escrow');
    assert.equal(commitInvoice.state, 'SUCCESS');
    const escrowInvoice = (await call('GET', `/v2/invoice/${committed.body.payload.escrow_invoice_id}`, { token: client.token })).body
      .payload;
    assert.equal(escrowInvoice.state, 'SUCCESS');
    assert.deepEqual(await events(id), [
      'escrow-transaction-update:ESCROWED',
      'invoice-completed:SUCCESS',
      'escrow-transaction-update:COMMITTED',
    ]);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('pay from a wallet without enough money → ESCROW-FAILED with failure_reason, nothing charged, 200', async () => {
    await fund(buyer, 'USD:fiat', 100);
    const before = await balance(buyer.wallets['USD:fiat'].wallet);
    const id = await create([{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }]);
    const res = await act(id, 'pay');
    assert.equal(res.status, 200);
    assert.equal(res.body.payload.status, 'ESCROW-FAILED');
    const invoice = (await call('GET', `/v2/invoice/${res.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(invoice.state, 'FAILED');
    assert.equal(invoice.failure_reason, 'insufficient_funds');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), before);
    assert.deepEqual(await events(id), ['escrow-transaction-update:ESCROW-FAILED', 'invoice-completed:FAILED']);
    const again = await act(id, 'pay');
    assert.equal(again.status, 409);
    assert.deepEqual(again.body.codes, ['ESCROW_STATE_ERROR']);
  });

  it('is all-or-nothing: a declined card after a funded wallet charges neither', async () => {
    await fund(buyer, 'USD:fiat', 2000);
    const before = await balance(buyer.wallets['USD:fiat'].wallet);
    const id = await create([
      { payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 1000 },
      { payment_method_id: buyer.declined!, amount: 0 },
    ]);
    const res = await act(id, 'pay');
    assert.equal(res.body.payload.status, 'ESCROW-FAILED');
    const invoice = (await call('GET', `/v2/invoice/${res.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(invoice.failure_reason, 'card_declined');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), before);
  });

  it('cancel refunds every charged method in full and pays no seller', async () => {
    await fund(buyer, 'USD:fiat', 600);
    const wallet = buyer.wallets['USD:fiat'].wallet;
    const start = await balance(wallet);
    const sellerStart = await balance(seller.wallets['USD:fiat'].wallet);
    const id = await create([
      { payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 500 },
      { payment_method_id: buyer.card!, amount: 0 },
    ]);
    assert.equal((await act(id, 'pay')).body.payload.status, 'ESCROWED');
    assert.equal(await balance(wallet), start - 500);
    const cancelled = await act(id, 'cancel');
    assert.equal(cancelled.status, 200);
    assert.equal(cancelled.body.payload.status, 'CANCELLED');
    assert.match(cancelled.body.payload.cancel_invoice_id, /^inv_/);
    assert.equal(await balance(wallet), start);
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), sellerStart);
    const refund = (await call('GET', `/v2/invoice/${cancelled.body.payload.cancel_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(refund.invoice_type, 'user_purchase_refund_escrow');
    assert.equal(refund.payment_methods[buyer.card!].authorized_amount, 1050);
  });

  it('repeats answer the escrow as it is; conflicting transitions are 409 ESCROW_STATE_ERROR; money moves once', async () => {
    const id = await create([{ payment_method_id: buyer.card!, amount: 0 }]);
    assert.equal((await act(id, 'commit')).status, 409, 'commit on OPEN');
    assert.equal((await act(id, 'cancel')).status, 409, 'cancel on OPEN');
    await act(id, 'pay');
    const payAgain = await act(id, 'pay');
    assert.equal(payAgain.status, 200);
    assert.equal(payAgain.body.payload.status, 'ESCROWED');
    await act(id, 'commit');
    const sellerAfter = await balance(seller.wallets['USD:fiat'].wallet);
    const commitAgain = await act(id, 'commit');
    assert.equal(commitAgain.status, 200);
    assert.equal(commitAgain.body.payload.status, 'COMMITTED');
    const cancelAfter = await act(id, 'cancel');
    assert.equal(cancelAfter.status, 409);
    assert.deepEqual(cancelAfter.body.codes, ['ESCROW_STATE_ERROR']);
    assert.equal(cancelAfter.body.payload.status, 'COMMITTED');
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), sellerAfter);

    const other = await create([{ payment_method_id: buyer.card!, amount: 0 }]);
    await act(other, 'pay');
    await act(other, 'cancel');
    assert.equal((await act(other, 'cancel')).status, 200);
    assert.equal((await act(other, 'commit')).status, 409);
  });

  it('20 concurrent commits: one winner, the seller paid once', async () => {
    const id = await create([{ payment_method_id: buyer.card!, amount: 0 }]);
    await act(id, 'pay');
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const results = await Promise.all(Array.from({ length: 20 }, () => act(id, 'commit')));
    for (const r of results) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.payload.status, 'COMMITTED');
    }
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), before + 1200);
    assert.deepEqual(
      (await events(id)).filter((e) => e === 'escrow-transaction-update:COMMITTED'),
      ['escrow-transaction-update:COMMITTED'],
    );
  });

  it('commit racing cancel: exactly one wins, and money follows the winner', async () => {
    for (let round = 0; round < 3; round++) {
      const id = await create([{ payment_method_id: buyer.card!, amount: 0 }]);
      await act(id, 'pay');
      const sellerBefore = await balance(seller.wallets['USD:fiat'].wallet);
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => act(id, i % 2 ? 'commit' : 'cancel')));
      const final = (await call('GET', `/v2/escrow/${id}`, { token: client.token })).body.payload.status;
      assert.ok(final === 'COMMITTED' || final === 'CANCELLED');
      const winner = final === 'COMMITTED' ? 'commit' : 'cancel';
      results.forEach((r, i) => {
        assert.equal(r.status, (i % 2 ? 'commit' : 'cancel') === winner ? 200 : 409, r.text);
      });
      assert.equal(await balance(seller.wallets['USD:fiat'].wallet), sellerBefore + (final === 'COMMITTED' ? 1200 : 0));
    }
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('Prefer: respond-async answers 202 with Location at once; the command finishes', async () => {
    const id = await create([{ payment_method_id: buyer.card!, amount: 0 }]);
    const res = await act(id, 'pay', { prefer: 'respond-async' });
    assert.equal(res.status, 202);
    assert.equal(res.headers.get('location'), `/v2/escrow/${id}`);
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    assert.match(res.headers.get('x-command-id') ?? '', /^cmd_/);
    let status = res.body.payload.status;
    for (let i = 0; i < 50 && status !== 'ESCROWED'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await call('GET', `/v2/escrow/${id}`, { token: client.token })).body.payload.status;
    }
    assert.equal(status, 'ESCROWED');
  });

  it("a token-currency commit lands in the seller's convertible wallet", async () => {
    const name = unique('esc-vcd-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'VCD', tokensPerUsd: 100 });
    const tc = await newClient({ integrator: name });
    const b = await party(tc);
    const s = await party(tc);
    await fund(b, 'VCD:standard', 500);
    const res = await call('POST', '/v2/escrow', {
      token: tc.token,
      body: {
        account_id: b.account_id,
        payment_methods: [{ payment_method_id: b.wallets['VCD:standard'].pm, amount: 0 }],
        line_items: [
          {
            amount: 300,
            currency: 'VCD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 250, currency: 'VCD', destination_wallet_id: s.wallets['VCD:standard'].wallet }],
          },
        ],
      },
    });
    const id = res.body.payload.id;
    assert.equal((await call('POST', `/v2/escrow/${id}/pay`, { token: tc.token })).body.payload.status, 'ESCROWED');
    assert.equal((await call('POST', `/v2/escrow/${id}/commit`, { token: tc.token })).body.payload.status, 'COMMITTED');
    assert.equal(await balance(b.wallets['VCD:standard'].wallet), 200);
    assert.equal(await balance(s.wallets['VCD:convertible'].wallet), 250);
    assert.equal(await balance(s.wallets['VCD:standard'].wallet), 0);
    const commitInvoice = (
      await call('GET', `/v2/invoice/${(await call('GET', `/v2/escrow/${id}`, { token: tc.token })).body.payload.commit_invoice_id}`, {
        token: tc.token,
      })
    ).body.payload;
    assert.equal(commitInvoice.invoice_type, 'user_purchase_commit_escrow_virtual');
  });
});
