import assert from 'node:assert/strict';
import { balances, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { addCard, call, h, newClient, register, type TestClient } from '../support/harness.js';

describe('standard invoices', () => {
  let client: TestClient;
  let buyer: { id: string; card: string; declined: string };
  let sellerWallet: string;
  let integratorId: string;
  before(async () => {
    client = await newClient();
    const b = await register(client);
    buyer = {
      id: b.account_id,
      card: await addCard(client, b.account_id),
      declined: await addCard(client, b.account_id, '4000000000000002'),
    };
    const s = await register(client);
    sellerWallet = (await call('GET', `/v1/${s.account_id}/payment_methods`, { token: client.token })).body.payload[0].provider_data
      .wallet_id;
    integratorId = (
      await h().orm.em.fork().execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [b.account_id])
    )[0].integrator_id;
  });

  const create = async (card: string) => {
    const res = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.id,
        reference_type: 'order',
        reference_id: 'o-1',
        payment_methods: [{ payment_method_id: card, amount: 0 }],
        line_items: [
          {
            amount: 1000,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 700, currency: 'USD', destination_wallet_id: sellerWallet }],
          },
        ],
      },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.payload;
  };

  it('creates an OPEN user_purchase invoice (201)', async () => {
    const invoice = await create(buyer.card);
    assert.equal(invoice.state, 'OPEN');
    assert.equal(invoice.invoice_type, 'user_purchase');
    assert.deepEqual(invoice.summary, { total_amount: 1000, currency: 'USD', display_amount: 'USD 10.00' });
  });

  it("pay charges the card and settles at once: the seller's share and the integrator's rest", async () => {
    const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
    const before = await balances(h().orm.em.fork(), [sellerWallet, publisher]);
    const invoice = await create(buyer.card);
    const paid = await call('POST', `/v2/invoice/${invoice.invoice_id}/pay`, { token: client.token });
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    const after = await balances(h().orm.em.fork(), [sellerWallet, publisher]);
    assert.equal(after.get(sellerWallet)! - before.get(sellerWallet)!, 700);
    assert.equal(after.get(publisher)! - before.get(publisher)!, 300);
    const again = await call('POST', `/v2/invoice/${invoice.invoice_id}/pay`, { token: client.token });
    assert.equal(again.status, 200);
    assert.equal((await balances(h().orm.em.fork(), [sellerWallet])).get(sellerWallet), after.get(sellerWallet), 'paid once');
    const [event] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>(
        `select count(*) as n from outbox where event_name = 'invoice-completed' and message->>'invoice_id' = ?`,
        [invoice.invoice_id],
      );
    assert.equal(Number(event.n), 1);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a declined card fails the invoice (200, FAILED, failure_reason) and a second pay is 409', async () => {
    const invoice = await create(buyer.declined);
    const res = await call('POST', `/v2/invoice/${invoice.invoice_id}/pay`, { token: client.token });
    assert.equal(res.status, 200);
    assert.equal(res.body.payload.state, 'FAILED');
    assert.equal(res.body.payload.failure_reason, 'card_declined');
    const again = await call('POST', `/v2/invoice/${invoice.invoice_id}/pay`, { token: client.token });
    assert.equal(again.status, 409);
    assert.deepEqual(again.body.codes, ['INVOICE_STATE_ERROR']);
  });

  it("refuses to pay an escrow's invoice directly (409 INVOICE_STATE_ERROR)", async () => {
    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount: 100, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const res = await call('POST', `/v2/invoice/${escrow.body.payload.escrow_invoice_id}/pay`, { token: client.token });
    assert.equal(res.status, 409);
    assert.deepEqual(res.body.codes, ['INVOICE_STATE_ERROR']);
    assert.equal((await call('GET', `/v2/escrow/${escrow.body.payload.id}`, { token: client.token })).body.payload.status, 'OPEN');
  });
});
