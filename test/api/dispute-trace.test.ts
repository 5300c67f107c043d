import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, fundPublisherWallet, systemAccount } from '../../src/ledger/ledger.service.js';
import { addCard, call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** GEM at 100 per USD: a USD 10.00 purchase buys 1000 GEM. */
const RATE = 100;

describe('disputes follow the money: trace, holds, WON and LOST', () => {
  let client: TestClient;
  let integratorId: string;

  before(async () => {
    const name = unique('trace-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: RATE })).id;
    client = await newClient({ integrator: name });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 1_000_000 });
  });

  const held = async (wallet: string) => {
    const [row] = await h().orm.em.fork().execute<Array<{ held: string }>>('select held from ledger_account where id = ?', [wallet]);
    return Number(row!.held);
  };
  /** A ledger account's balance as stored (held money included). */
  const stored = async (wallet: string) => {
    const [row] = await h().orm.em.fork().execute<Array<{ balance: string }>>('select balance from ledger_account where id = ?', [wallet]);
    return Number(row!.balance);
  };
  const issuance = async () => {
    const id = await systemAccount(h().orm.em.fork(), integratorId, 'token_issuance', 'GEM');
    return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
  };
  const write = (method: string, path: string, body?: unknown) =>
    call(method as 'POST', path, { token: client.token, body, headers: { 'idempotency-key': unique('k') } });

  /** A buyer with a card who bought 1000 GEM with it: the purchase invoice and the card. */
  async function buyerWithTokens(): Promise<{ buyer: Party; invoice: string; card: string }> {
    const buyer = await party(client);
    await addCard(client, buyer.account_id, '4242424242424242');
    const methods = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload;
    const card = methods.find((m: any) => m.provider === 'card').id;
    const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 1000, currency: 'USD' });
    assert.equal(bought.status, 201, bought.text);
    return { buyer, invoice: bought.body.payload.invoice_id, card };
  }

  /** The buyer pays `tokens` GEM to the seller's convertible wallet in an escrow, then commits it. */
  async function payInEscrow(buyer: Party, seller: Party, tokens: number, commit = true): Promise<string> {
    const created = await write('POST', '/v2/escrow', {
      account_id: buyer.account_id,
      line_items: [
        {
          amount: tokens,
          currency: 'GEM',
          transaction_type: 'user_to_user',
          recipients: [{ amount: tokens, currency: 'GEM', destination_wallet_id: seller.wallets['GEM:convertible'].wallet }],
        },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.payload.id;
    const paid = await write('POST', `/v2/escrow/${id}/pay`);
    assert.equal(paid.body.payload.status, 'ESCROWED', paid.text);
    if (commit) assert.equal((await write('POST', `/v2/escrow/${id}/commit`)).body.payload.status, 'COMMITTED');
    return id;
  }

  const openDispute = async (invoice: string, card: string) => {
    const opened = await write('POST', '/v2/sandbox/disputes', { invoice_id: invoice, payment_method_id: card });
    assert.equal(opened.status, 200, opened.text);
    return opened.body.payload;
  };

  it('holds what the buyer still has and what the escrow paid the seller; the held value cannot be spent; LOST claws it back', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    const buyerGem = buyer.wallets['GEM:standard'].wallet;
    const sellerGem = seller.wallets['GEM:convertible'].wallet;
    // The seller had tokens of its own before: they are not the disputed purchase's.
    await fund(seller, 'GEM:convertible', 50);
    await payInEscrow(buyer, seller, 600);
    const d = await openDispute(invoice, card);
    const trace = d.traced.map((t: any) => [t.wallet_id, t.via, t.amount, t.held, t.state]).sort();
    assert.deepEqual(
      trace,
      [
        [buyerGem, 'purchase', 400, 400, 'in_wallet'],
        [sellerGem, 'escrow', 600, 600, 'in_wallet'],
      ].sort(),
    );
    assert.equal(await held(buyerGem), 400);
    assert.equal(await held(sellerGem), 600);
    const balancesOf = await call('GET', `/v1/${seller.account_id}/balances`, { token: client.token });
    const gem = balancesOf.body.payload.balances.find((b: any) => b.currency === 'GEM');
    assert.equal(gem.held, 600);
    assert.equal(gem.spendable, 50, 'held money is not spendable');

    // The seller's own 50 can be spent; the held 600 cannot (the database refuses it).
    const other = await party(client);
    const spend = async (tokens: number) => {
      const created = await write('POST', '/v2/escrow', {
        account_id: seller.account_id,
        line_items: [
          {
            amount: tokens,
            currency: 'GEM',
            transaction_type: 'user_to_user',
            recipients: [{ amount: tokens, currency: 'GEM', destination_wallet_id: other.wallets['GEM:convertible'].wallet }],
          },
        ],
      });
      return (await write('POST', `/v2/escrow/${created.body.payload.id}/pay`)).body.payload.status;
    };
    assert.equal(await spend(100), 'ESCROW-FAILED');
    assert.equal(await spend(50), 'ESCROWED');
    assert.equal(await stored(sellerGem), 600);
    assert.equal(await balance(sellerGem), 0, 'what can be spent excludes what is held');

    const issuanceBefore = await issuance();
    const lost = await write('POST', `/v2/sandbox/disputes/${d.dispute_id}/close`, { outcome: 'lost' });
    assert.equal(lost.status, 200, lost.text);
    assert.equal(await balance(buyerGem), 0);
    assert.equal(await balance(sellerGem), 0);
    assert.equal(await held(buyerGem), 0);
    assert.equal(await held(sellerGem), 0);
    assert.equal((await issuance()) - issuanceBefore, 1000, 'the tokens went back to issuance');
    const traced = lost.body.payload.traced;
    assert.deepEqual(traced.map((t: any) => [t.clawed_back, t.held]).sort(), [
      [400, 0],
      [600, 0],
    ]);
    assert.deepEqual(lost.body.payload.unrecovered, {});
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('WON releases every hold; nothing moves', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    await payInEscrow(buyer, seller, 250);
    const d = await openDispute(invoice, card);
    const won = await write('POST', `/v2/sandbox/disputes/${d.dispute_id}/close`, { outcome: 'won' });
    assert.equal(won.body.payload.status, 'WON');
    assert.deepEqual(won.body.payload.traced.map((t: any) => [t.amount, t.held, t.released]).sort(), [
      [250, 0, 250],
      [750, 0, 750],
    ]);
    assert.equal(await held(buyer.wallets['GEM:standard'].wallet), 0);
    assert.equal(await balance(seller.wallets['GEM:convertible'].wallet), 250, 'released: spendable again');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('follows a conversion to the fiat wallet and reports a payout made from it as unrecovered', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
    await payInEscrow(buyer, seller, 1000);
    // The seller converts 500 GEM (USD 5.00) and has USD 3.00 of it paid out.
    const quote = await write('POST', '/v2/token/convert', { account_id: seller.account_id, amount: 500, currency: 'GEM' });
    assert.equal(quote.status, 201, quote.text);
    const executed = await write('POST', `/v2/token/convert/${quote.body.payload.token_exchange_id}`);
    assert.equal(executed.body.payload.status, 'EXECUTED', executed.text);
    const paypal = await write('POST', `/v1/${seller.account_id}/payment_methods`, {
      type: 'paypal',
      paypal: { email: `${unique('p')}@example.com` },
    });
    assert.equal(paypal.status, 201, paypal.text);
    const payout = await write('POST', `/v2/${seller.account_id}/payout`, {
      source_payment_method_id: seller.wallets['USD:fiat'].pm,
      destination_payment_method_id: paypal.body.payload.id,
      amount: 300,
      currency: 'USD',
    });
    assert.ok([200, 201, 202].includes(payout.status), payout.text);
    const executedPayout = await write('PATCH', `/v2/${seller.account_id}/payout/${payout.body.payload.payout_status_id}`);
    assert.equal(executedPayout.body.payload.payout_status, 'SUCCESS', executedPayout.text);

    const d = await openDispute(invoice, card);
    const byVia = Object.fromEntries(d.traced.map((t: any) => [`${t.via}:${t.currency}:${t.state}`, [t.amount, t.held]]));
    assert.deepEqual(byVia, {
      'escrow:GEM:in_wallet': [500, 500],
      'conversion:USD:in_wallet': [200, 200],
      'payout:USD:paid_out': [300, 0],
    });
    const lost = await write('POST', `/v2/sandbox/disputes/${d.dispute_id}/close`, { outcome: 'lost' });
    assert.deepEqual(lost.body.payload.unrecovered, { USD: 300 });
    assert.equal(await balance(seller.wallets['USD:fiat'].wallet), 0);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('while open: the buyer’s conversions and payouts answer 409 DISPUTE_OPEN, a wallet with holds is not merged, verify names a wrong hold', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    await decideKyc(h().orm.em.fork(), buyer.account_id, 'ACCEPT', false);
    await fund(buyer, 'GEM:convertible', 500);
    await fund(buyer, 'USD:fiat', 500);
    const d = await openDispute(invoice, card);
    const convert = await write('POST', '/v2/token/convert', { account_id: buyer.account_id, amount: 500, currency: 'GEM' });
    assert.equal(convert.status, 409, convert.text);
    assert.deepEqual(convert.body.codes, ['DISPUTE_OPEN']);
    const paypal = await write('POST', `/v1/${buyer.account_id}/payment_methods`, {
      type: 'paypal',
      paypal: { email: `${unique('p')}@example.com` },
    });
    const payout = await write('POST', `/v2/${buyer.account_id}/payout`, {
      source_payment_method_id: buyer.wallets['USD:fiat'].pm,
      destination_payment_method_id: paypal.body.payload.id,
      amount: 100,
      currency: 'USD',
    });
    assert.equal(payout.status, 409, payout.text);
    assert.deepEqual(payout.body.codes, ['DISPUTE_OPEN']);
    const target = await party(client);
    const merge = await write('POST', '/v2/merge-accounts', {
      source_account_id: buyer.account_id,
      destination_account_id: target.account_id,
    });
    assert.equal(merge.status, 409, merge.text);
    assert.deepEqual(merge.body.codes, ['ACCOUNT_MERGE_ERROR']);
    assert.match(merge.body.message[0], /Open disputes hold money/);

    // A held amount no hold explains is a breach.
    const wallet = buyer.wallets['GEM:standard'].wallet;
    await h().orm.em.fork().execute('update ledger_account set held = held - 1 where id = ?', [wallet]);
    try {
      const report = await verifyAll(h().orm.em.fork());
      assert.ok(
        report.problems.some((p) => p.includes(`ledger account ${wallet} holds 999`)),
        report.problems.join('\n'),
      );
    } finally {
      await h().orm.em.fork().execute('update ledger_account set held = held + 1 where id = ?', [wallet]);
    }
    // Decided: requests go through again.
    await write('POST', `/v2/sandbox/disputes/${d.dispute_id}/close`, { outcome: 'won' });
    const after = await write('POST', '/v2/token/convert', { account_id: buyer.account_id, amount: 500, currency: 'GEM' });
    assert.equal(after.status, 201, after.text);
  });

  it('an ESCROWED escrow funded by disputed value is not committed while the dispute is open (409 DISPUTE_OPEN); it may be cancelled', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    const escrow = await payInEscrow(buyer, seller, 300, false);
    const d = await openDispute(invoice, card);
    assert.ok(
      d.traced.some((t: any) => t.state === 'escrowed' && t.reference_id === escrow && t.amount === 300),
      JSON.stringify(d.traced),
    );
    const commit = await write('POST', `/v2/escrow/${escrow}/commit`);
    assert.equal(commit.status, 409, commit.text);
    assert.deepEqual(commit.body.codes, ['DISPUTE_OPEN']);
    assert.equal(commit.body.payload.status, 'ESCROWED');
    const cancel = await write('POST', `/v2/escrow/${escrow}/cancel`);
    assert.equal(cancel.body.payload.status, 'CANCELLED', cancel.text);
    await write('POST', `/v2/sandbox/disputes/${d.dispute_id}/close`, { outcome: 'won' });
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('two disputes of one buyer: each holds its own value, one WON and one LOST, the ledger stays right', async () => {
    const buyer = await party(client);
    await addCard(client, buyer.account_id, '4242424242424242');
    const methods = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload;
    const card = methods.find((m: any) => m.provider === 'card').id;
    const buy = async () => {
      const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 500, currency: 'USD' });
      assert.equal(bought.status, 201, bought.text);
      return bought.body.payload.invoice_id as string;
    };
    const first = await buy();
    const second = await buy();
    const seller = await party(client);
    await payInEscrow(buyer, seller, 700);
    const gem = buyer.wallets['GEM:standard'].wallet;
    const d1 = await openDispute(first, card);
    const d2 = await openDispute(second, card);
    // First in, first out: the escrow spent the first purchase's 500 and 200 of the second's.
    assert.deepEqual(
      d1.traced.map((t: any) => [t.via, t.amount, t.held]),
      [['escrow', 500, 500]],
    );
    assert.deepEqual(d2.traced.map((t: any) => [t.via, t.amount, t.held]).sort(), [
      ['escrow', 200, 200],
      ['purchase', 300, 300],
    ]);
    assert.equal(await held(gem), 300);
    assert.equal(await held(seller.wallets['GEM:convertible'].wallet), 700);
    await write('POST', `/v2/sandbox/disputes/${d1.dispute_id}/close`, { outcome: 'won' });
    await write('POST', `/v2/sandbox/disputes/${d2.dispute_id}/close`, { outcome: 'lost' });
    assert.equal(await held(seller.wallets['GEM:convertible'].wallet), 0);
    assert.equal(await stored(seller.wallets['GEM:convertible'].wallet), 500);
    assert.equal(await stored(gem), 0);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a payout not yet sent that holds disputed value waits for the dispute (409 DISPUTE_OPEN), and is sent once it is won', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
    await payInEscrow(buyer, seller, 1000);
    const quote = await write('POST', '/v2/token/convert', { account_id: seller.account_id, amount: 1000, currency: 'GEM' });
    assert.equal((await write('POST', `/v2/token/convert/${quote.body.payload.token_exchange_id}`)).body.payload.status, 'EXECUTED');
    const paypal = await write('POST', `/v1/${seller.account_id}/payment_methods`, {
      type: 'paypal',
      paypal: { email: `${unique('p')}@example.com` },
    });
    const requested = await write('POST', `/v2/${seller.account_id}/payout`, {
      source_payment_method_id: seller.wallets['USD:fiat'].pm,
      destination_payment_method_id: paypal.body.payload.id,
      amount: 600,
      currency: 'USD',
    });
    const payoutId = requested.body.payload.payout_status_id;
    assert.equal(requested.body.payload.payout_status, 'FUNDS-IN-ESCROW', requested.text);
    const d = await openDispute(invoice, card);
    assert.ok(
      d.traced.some((t: any) => t.state === 'payout_waiting' && t.reference_id === payoutId && t.amount === 600),
      JSON.stringify(d.traced),
    );
    const refused = await write('PATCH', `/v2/${seller.account_id}/payout/${payoutId}`);
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.codes, ['DISPUTE_OPEN']);
    await write('POST', `/v2/sandbox/disputes/${d.dispute_id}/close`, { outcome: 'won' });
    const sent = await write('PATCH', `/v2/${seller.account_id}/payout/${payoutId}`);
    assert.equal(sent.body.payload.payout_status, 'SUCCESS', sent.text);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});
