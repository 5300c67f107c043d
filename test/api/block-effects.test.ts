import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** The blocked 403 (docs/contract.md): empty message and codes, the payload a sentence naming the account. */
function assertBlocked(res: { status: number; body: any; text: string }, accountId: string): void {
  assert.equal(res.status, 403, res.text);
  assert.deepEqual(res.body, { status: 'Failure', message: [], codes: [], payload: `Account ${accountId} is blocked.` });
}

describe('block effects', () => {
  let client: TestClient;
  let operator: TestClient;
  let buyer: Party;
  let seller: Party;

  before(async () => {
    const integrator = unique('effects-');
    await createIntegrator(h().orm.em.fork(), { name: integrator, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    client = await newClient({ integrator, canUnblock: true });
    operator = await newClient({ integrator, isOperator: true });
  });

  beforeEach(async () => {
    buyer = await party(client, true);
    seller = await party(client);
    await fund(buyer, 'USD:fiat', 10_000);
  });

  const block = async (accountId: string, capability: 'login' | 'transactions' | 'payouts') => {
    const res = await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: accountId, block_capability: capability, block_reason: 'compliance' },
    });
    assert.equal(res.status, 200, res.text);
  };
  const unblock = async (accountId: string, capability: string) => {
    assert.equal((await call('DELETE', `/v2/block/${accountId}/capability/${capability}`, { token: operator.token })).status, 200);
  };
  const purchase = (over: Record<string, unknown> = {}) => ({
    account_id: buyer.account_id,
    payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }],
    line_items: [
      {
        amount: 500,
        currency: 'USD',
        transaction_type: 'user_to_user',
        recipients: [{ amount: 400, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
      },
    ],
    ...over,
  });
  const countRows = async (table: string, accountId: string) => {
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>(`select count(*) as n from ${table} where account_id = ?`, [accountId]);
    return Number(row.n);
  };

  for (const capability of ['login', 'transactions'] as const) {
    it(`refuses a buyer with a ${capability} block as the buyer of an escrow, an invoice and a token purchase; creates nothing`, async () => {
      await block(buyer.account_id, capability);
      assertBlocked(await call('POST', '/v2/escrow', { token: client.token, body: purchase() }), buyer.account_id);
      assertBlocked(await call('POST', '/v2/invoice', { token: client.token, body: purchase() }), buyer.account_id);
      assertBlocked(
        await call('POST', '/v2/token/purchase', {
          token: client.token,
          body: { payment_method_id: buyer.card, amount: 100, currency: 'GEM' },
        }),
        buyer.account_id,
      );
      assert.equal(await countRows('escrow', buyer.account_id), 0);
      assert.equal(await countRows('invoice', buyer.account_id), 0);
      // The unblocked twin: the same requests succeed.
      await unblock(buyer.account_id, capability);
      assert.equal((await call('POST', '/v2/escrow', { token: client.token, body: purchase() })).status, 201);
      assert.equal((await call('POST', '/v2/invoice', { token: client.token, body: purchase() })).status, 201);
      assert.equal(
        (
          await call('POST', '/v2/token/purchase', {
            token: client.token,
            body: { payment_method_id: buyer.card, amount: 100, currency: 'GEM' },
          })
        ).status,
        201,
      );
    });

    it(`refuses a purchase that would pay a seller with a ${capability} block, naming the seller`, async () => {
      await block(seller.account_id, capability);
      assertBlocked(await call('POST', '/v2/escrow', { token: client.token, body: purchase() }), seller.account_id);
      assertBlocked(await call('POST', '/v2/invoice', { token: client.token, body: purchase() }), seller.account_id);
      await unblock(seller.account_id, capability);
      assert.equal((await call('POST', '/v2/escrow', { token: client.token, body: purchase() })).status, 201);
    });
  }

  it('refuses a token purchase for a blocked destination account', async () => {
    await block(seller.account_id, 'login');
    const res = await call('POST', '/v2/token/purchase', {
      token: client.token,
      body: {
        payment_method_id: buyer.card,
        amount: 100,
        currency: 'GEM',
        destination_account_id: seller.account_id,
      },
    });
    assertBlocked(res, seller.account_id);
  });

  it('only records a payouts block: buying and selling go on', async () => {
    await block(buyer.account_id, 'payouts');
    await block(seller.account_id, 'payouts');
    const created = await call('POST', '/v2/escrow', { token: client.token, body: purchase() });
    assert.equal(created.status, 201);
    const paid = await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.status, 'ESCROWED');
  });

  it('fails the payment of an OPEN escrow whose buyer was blocked after creating it, charging nothing', async () => {
    const created = await call('POST', '/v2/escrow', { token: client.token, body: purchase() });
    await block(buyer.account_id, 'transactions');
    const paid = await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token });
    assert.equal(paid.status, 200);
    assert.equal(paid.body.payload.status, 'ESCROW-FAILED');
    const invoice = (await call('GET', `/v2/invoice/${created.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload;
    assert.equal(invoice.failure_reason, 'account_blocked');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 10_000);
  });

  it('fails the payment of an OPEN invoice whose buyer was blocked after creating it', async () => {
    const created = await call('POST', '/v2/invoice', { token: client.token, body: purchase() });
    await block(buyer.account_id, 'login');
    const paid = await call('POST', `/v2/invoice/${created.body.payload.invoice_id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.state, 'FAILED');
    assert.equal(paid.body.payload.failure_reason, 'account_blocked');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 10_000);
  });

  it("still commits an ESCROWED escrow after its buyer and seller are blocked: the seller's wallet is paid", async () => {
    const created = await call('POST', '/v2/escrow', { token: client.token, body: purchase() });
    await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token });
    await block(buyer.account_id, 'login');
    await block(seller.account_id, 'login');
    const committed = await call('POST', `/v2/escrow/${created.body.payload.id}/commit`, { token: client.token });
    assert.equal(committed.body.payload.status, 'COMMITTED');
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), 400);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('still cancels an ESCROWED escrow after its buyer is blocked: the buyer is refunded in full', async () => {
    const created = await call('POST', '/v2/escrow', { token: client.token, body: purchase() });
    await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token });
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 9_500);
    await block(buyer.account_id, 'login');
    const cancelled = await call('POST', `/v2/escrow/${created.body.payload.id}/cancel`, { token: client.token });
    assert.equal(cancelled.body.payload.status, 'CANCELLED');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 10_000);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  describe('user sessions of a blocked account', () => {
    it('refuses POST /authorize/user for a login-blocked account (403 naming it) and creates no redirect or token', async () => {
      await block(buyer.account_id, 'login');
      for (const body of [{ account_id: buyer.account_id }, { account_id: buyer.account_id, return_token: true }]) {
        assertBlocked(await call('POST', '/authorize/user', { token: client.token, body }), buyer.account_id);
      }
      assert.equal(await countRows('user_session_nonce', buyer.account_id), 0);
      assert.equal(await countRows('refresh_token', buyer.account_id), 0);
      await unblock(buyer.account_id, 'login');
      assert.equal((await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } })).status, 200);
      assert.equal(await countRows('user_session_nonce', buyer.account_id), 1);
    });

    it('still opens a session for an account whose only block is transactions (it may look, not buy)', async () => {
      await block(buyer.account_id, 'transactions');
      assert.equal((await call('POST', '/authorize/user', { token: client.token, body: { account_id: buyer.account_id } })).status, 200);
    });
  });
});
