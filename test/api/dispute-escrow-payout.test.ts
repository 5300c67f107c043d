import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { db as pooled } from '../../src/db/sql.js';
import { traceAndHold } from '../../src/disputes/dispute-trace.service.js';
import { disputeOfCharge } from '../../src/disputes/dispute.repository.js';
import { lockEscrowStatus } from '../../src/escrow/escrow.repository.js';
import { lockPayoutStatus } from '../../src/payouts/payout.repository.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { readInvoice } from '../../src/invoices/invoice.repository.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, fundPublisherWallet, systemAccount } from '../../src/ledger/ledger.service.js';
import { addCard, call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, party, type Party } from '../support/money.js';

/**
 * Value a dispute traced into an escrow still ESCROWED or a payout not yet sent, when that
 * value comes back: an escrow cancelled holds what it returns to the buyer (WON releases it,
 * LOST claws it back, a cancel after LOST claws it back at once); LOST reverses a waiting
 * payout and claws back what it returned; a payout its owner reverses while the dispute is open
 * returns held money; and the trace refuses an escrow that moved after it read the ledger.
 */
describe('disputes: traced value coming back from an escrow cancel or a payout reversal', () => {
  let client: TestClient;
  let integratorId: string;

  before(async () => {
    const name = unique('dsp-return-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 })).id;
    client = await newClient({ integrator: name });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 1_000_000 });
  });

  const held = async (wallet: string) => {
    const [row] = await h().orm.em.fork().execute<Array<{ held: string }>>('select held from ledger_account where id = ?', [wallet]);
    return Number(row!.held);
  };
  const stored = async (wallet: string) => {
    const [row] = await h().orm.em.fork().execute<Array<{ balance: string }>>('select balance from ledger_account where id = ?', [wallet]);
    return Number(row!.balance);
  };
  const systemBalance = async (kind: 'token_issuance' | 'publisher_wallet', currency: string) => {
    const id = await systemAccount(h().orm.em.fork(), integratorId, kind, currency);
    return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
  };
  const postings = async (like: string) => {
    const rows = await h()
      .orm.em.fork()
      .execute<Array<{ reference: string }>>('select reference from ledger_posting where reference like ? order by reference', [like]);
    return rows.map((r) => r.reference);
  };
  const events = async (name: string, about: string) => {
    const rows = await h()
      .orm.em.fork()
      .execute<Array<{ message: any }>>(
        'select message from outbox where integrator_id = ? and event_name = ? and message::text like ? order by created_at, id',
        [integratorId, name, `%${about}%`],
      );
    return rows.map((r) => r.message);
  };
  const write = (method: string, path: string, body?: unknown) =>
    call(method as 'POST', path, { token: client.token, body, headers: { 'idempotency-key': unique('k') } });
  const clean = async () => assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

  /** A buyer with a card who bought 1000 GEM with it. */
  async function buyerWithTokens(): Promise<{ buyer: Party; invoice: string; card: string; gem: string }> {
    const buyer = await party(client);
    await addCard(client, buyer.account_id, '4242424242424242');
    const methods = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload;
    const card = methods.find((m: any) => m.provider === 'card').id;
    const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 1000, currency: 'USD' });
    assert.equal(bought.status, 201, bought.text);
    return { buyer, invoice: bought.body.payload.invoice_id, card, gem: buyer.wallets['GEM:standard'].wallet };
  }

  /** `payer` pays `tokens` GEM to `seller` in an escrow: ESCROWED, or committed. */
  async function escrowOf(payer: Party, seller: Party, tokens: number, commit: boolean): Promise<{ id: string; status: string }> {
    const created = await write('POST', '/v2/escrow', {
      account_id: payer.account_id,
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
    if (paid.body.payload.status !== 'ESCROWED' || !commit) return { id, status: paid.body.payload.status };
    const committed = await write('POST', `/v2/escrow/${id}/commit`);
    assert.equal(committed.body.payload.status, 'COMMITTED', committed.text);
    return { id, status: 'COMMITTED' };
  }

  const openDispute = async (invoice: string, card: string) => {
    const opened = await write('POST', '/v2/sandbox/disputes', { invoice_id: invoice, payment_method_id: card });
    assert.equal(opened.status, 200, opened.text);
    return opened.body.payload;
  };
  const close = async (disputeId: string, outcome: 'won' | 'lost') => {
    const closed = await write('POST', `/v2/sandbox/disputes/${disputeId}/close`, { outcome });
    assert.equal(closed.status, 200, closed.text);
    return closed.body.payload;
  };
  const traceOf = (d: any) => d.traced.map((t: any) => [t.via, t.state, t.currency, t.amount, t.held, t.released, t.clawed_back]).sort();

  /** A buyer whose 1000 GEM are disputed, 300 of them waiting in an ESCROWED escrow, cancelled while the dispute is open. */
  async function cancelledWhileOpen() {
    const { buyer, invoice, card, gem } = await buyerWithTokens();
    const seller = await party(client);
    const escrow = await escrowOf(buyer, seller, 300, false);
    const d = await openDispute(invoice, card);
    assert.deepEqual(traceOf(d), [
      ['escrow', 'escrowed', 'GEM', 300, 0, 0, 0],
      ['purchase', 'in_wallet', 'GEM', 700, 700, 0, 0],
    ]);
    assert.equal(await held(gem), 700);
    const cancel = await write('POST', `/v2/escrow/${escrow.id}/cancel`);
    assert.equal(cancel.status, 200, cancel.text);
    assert.equal(cancel.body.payload.status, 'CANCELLED');
    return { buyer, gem, d, escrow, seller };
  }

  it('an escrow cancel holds what it returns to the buyer while the dispute is open; the held value cannot be spent; WON releases it', async () => {
    const { buyer, gem, d, seller } = await cancelledWhileOpen();
    assert.equal(await stored(gem), 1000, 'the cancel gave the 300 back');
    assert.equal(await held(gem), 1000, 'and they are held');
    const shown = (await call('GET', `/v2/disputes/${d.dispute_id}`, { token: client.token })).body.payload;
    assert.deepEqual(traceOf(shown), [
      ['escrow', 'in_wallet', 'GEM', 300, 300, 0, 0],
      ['purchase', 'in_wallet', 'GEM', 700, 700, 0, 0],
    ]);
    const listed = (await call('GET', `/v1/${buyer.account_id}/balances`, { token: client.token })).body.payload.balances;
    const gemBalance = listed.find((b: any) => b.currency === 'GEM' && b.held > 0);
    assert.equal(gemBalance.held, 1000);
    assert.equal(gemBalance.spendable, 0);
    // Held: a new escrow paying from it fails.
    assert.equal((await escrowOf(buyer, seller, 100, false)).status, 'ESCROW-FAILED');
    await clean();

    const won = await close(d.dispute_id, 'won');
    assert.deepEqual(traceOf(won), [
      ['escrow', 'in_wallet', 'GEM', 300, 0, 300, 0],
      ['purchase', 'in_wallet', 'GEM', 700, 0, 700, 0],
    ]);
    assert.equal(await held(gem), 0);
    assert.equal(await balance(gem), 1000, 'released: spendable again');
    assert.equal((await escrowOf(buyer, seller, 100, false)).status, 'ESCROWED');
    await clean();
  });

  it('LOST claws back what an escrow cancel returned, as any hold', async () => {
    const { gem, d } = await cancelledWhileOpen();
    const issuance = await systemBalance('token_issuance', 'GEM');
    const lost = await close(d.dispute_id, 'lost');
    assert.deepEqual(traceOf(lost), [
      ['escrow', 'in_wallet', 'GEM', 300, 0, 0, 300],
      ['purchase', 'in_wallet', 'GEM', 700, 0, 0, 700],
    ]);
    assert.deepEqual(lost.unrecovered, {});
    assert.equal(await stored(gem), 0);
    assert.equal(await held(gem), 0);
    assert.equal((await systemBalance('token_issuance', 'GEM')) - issuance, 1000, 'the tokens went back to issuance');
    assert.equal((await postings(`dispute:${d.dispute_id}:clawback:%`)).length, 2);
    await clean();
  });

  it('an escrow cancelled after its dispute was LOST: what it returns is clawed back at once and leaves `unrecovered`', async () => {
    const { buyer, invoice, card, gem } = await buyerWithTokens();
    const seller = await party(client);
    const escrow = await escrowOf(buyer, seller, 300, false);
    const d = await openDispute(invoice, card);
    const lost = await close(d.dispute_id, 'lost');
    assert.deepEqual(lost.unrecovered, { GEM: 300 }, 'the value waiting in the escrow is not recovered yet');
    const issuance = await systemBalance('token_issuance', 'GEM');
    const cancel = await write('POST', `/v2/escrow/${escrow.id}/cancel`);
    assert.equal(cancel.body.payload.status, 'CANCELLED', cancel.text);
    assert.equal(await stored(gem), 0, 'the 300 came back and went on to issuance');
    assert.equal(await held(gem), 0);
    assert.equal((await systemBalance('token_issuance', 'GEM')) - issuance, 300);
    const after = (await call('GET', `/v2/disputes/${d.dispute_id}`, { token: client.token })).body.payload;
    assert.equal(after.status, 'LOST');
    assert.deepEqual(after.unrecovered, {});
    assert.deepEqual(traceOf(after), [
      ['escrow', 'in_wallet', 'GEM', 300, 0, 0, 300],
      ['purchase', 'in_wallet', 'GEM', 700, 0, 0, 700],
    ]);
    const updated = await events('dispute-updated', d.dispute_id);
    assert.deepEqual(updated.at(-1).unrecovered, {}, 'dispute-updated tells the integrator');
    await clean();
  });

  it('an escrow a WON dispute traced is cancelled as usual: the buyer gets it back free', async () => {
    const { buyer, invoice, card, gem } = await buyerWithTokens();
    const escrow = await escrowOf(buyer, await party(client), 300, false);
    const d = await openDispute(invoice, card);
    await close(d.dispute_id, 'won');
    assert.equal((await write('POST', `/v2/escrow/${escrow.id}/cancel`)).body.payload.status, 'CANCELLED');
    assert.equal(await held(gem), 0);
    assert.equal(await balance(gem), 1000);
    await clean();
  });

  /** A seller paid the buyer's 1000 GEM, who converts them (USD 10.00) and asks for a USD 6.00 payout, not yet sent. */
  async function sellerWithWaitingPayout() {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
    await escrowOf(buyer, seller, 1000, true);
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
    assert.equal(requested.body.payload.payout_status, 'FUNDS-IN-ESCROW', requested.text);
    const payoutId: string = requested.body.payload.payout_status_id;
    const d = await openDispute(invoice, card);
    assert.deepEqual(traceOf(d), [
      ['conversion', 'in_wallet', 'USD', 400, 400, 0, 0],
      ['payout', 'payout_waiting', 'USD', 600, 0, 0, 0],
    ]);
    return { seller, payoutId, d, usd: seller.wallets['USD:fiat'].wallet };
  }

  it('LOST reverses a traced payout not yet sent (SUPPORT-REVERSED), then claws back what it returned; nothing unrecovered', async () => {
    const { seller, payoutId, d, usd } = await sellerWithWaitingPayout();
    const publisher = await systemBalance('publisher_wallet', 'USD');
    const lost = await close(d.dispute_id, 'lost');
    assert.deepEqual(traceOf(lost), [
      ['conversion', 'in_wallet', 'USD', 400, 0, 0, 400],
      ['payout', 'in_wallet', 'USD', 600, 0, 0, 600],
    ]);
    assert.deepEqual(lost.unrecovered, {});
    const payout = (await call('GET', `/v2/${seller.account_id}/payout/${payoutId}`, { token: client.token })).body.payload;
    assert.equal(payout.payout_status, 'SUPPORT-REVERSED');
    assert.deepEqual(await postings(`payout:${payoutId}:%`), [`payout:${payoutId}:hold`, `payout:${payoutId}:reverse`]);
    assert.equal((await postings(`dispute:${d.dispute_id}:clawback:%`)).length, 2);
    assert.equal(await stored(usd), 0);
    assert.equal(await held(usd), 0);
    // The dispute's loss (USD 10.00 to losses) and the clawback (USD 10.00 back to the integrator's wallet).
    assert.equal((await systemBalance('publisher_wallet', 'USD')) - publisher, 1000);
    const completed = await events('payout-complete', payoutId);
    assert.equal(completed.at(-1).payout_status, 'SUPPORT-REVERSED', 'the payout’s own event');
    // The reversed payout cannot be approved any more.
    const approve = await write('PATCH', `/v2/${seller.account_id}/payout/${payoutId}`);
    assert.equal(approve.status, 409, approve.text);
    await clean();
  });

  it('a traced payout its owner reverses while the dispute is open comes back held; LOST then claws it back', async () => {
    const { seller, payoutId, d, usd } = await sellerWithWaitingPayout();
    const reversed = await write('DELETE', `/v2/${seller.account_id}/payout/${payoutId}`);
    assert.equal(reversed.status, 200, reversed.text);
    assert.equal(reversed.body.payload.payout_status, 'USER-REVERSED');
    assert.equal(await stored(usd), 1000);
    assert.equal(await held(usd), 1000, 'the 600 came back held');
    const shown = (await call('GET', `/v2/disputes/${d.dispute_id}`, { token: client.token })).body.payload;
    assert.deepEqual(traceOf(shown), [
      ['conversion', 'in_wallet', 'USD', 400, 400, 0, 0],
      ['payout', 'in_wallet', 'USD', 600, 600, 0, 0],
    ]);
    await clean();
    const lost = await close(d.dispute_id, 'lost');
    assert.deepEqual(lost.unrecovered, {});
    assert.equal(await stored(usd), 0);
    assert.deepEqual(await postings(`payout:${payoutId}:%`), [`payout:${payoutId}:hold`, `payout:${payoutId}:reverse`]);
    await clean();
  });

  it('LOST reversing the payout of a token conversion claws back the tokens the reversal gives back', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const seller = await party(client);
    await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
    await escrowOf(buyer, seller, 1000, true);
    const quote = await write('POST', '/v2/token/convert', { account_id: seller.account_id, amount: 1000, currency: 'GEM' });
    const exchangeId = quote.body.payload.token_exchange_id;
    assert.equal((await write('POST', `/v2/token/convert/${exchangeId}`)).body.payload.status, 'EXECUTED');
    const paypal = await write('POST', `/v1/${seller.account_id}/payment_methods`, {
      type: 'paypal',
      paypal: { email: `${unique('p')}@example.com` },
    });
    const requested = await write('POST', `/v2/${seller.account_id}/payout`, {
      source_payment_method_id: seller.wallets['USD:fiat'].pm,
      destination_payment_method_id: paypal.body.payload.id,
      amount: 1000,
      currency: 'USD',
      token_exchange_id: exchangeId,
    });
    assert.equal(requested.body.payload.payout_status, 'FUNDS-IN-ESCROW', requested.text);
    const payoutId = requested.body.payload.payout_status_id;
    const d = await openDispute(invoice, card);
    assert.deepEqual(traceOf(d), [['payout', 'payout_waiting', 'USD', 1000, 0, 0, 0]]);
    const issuance = await systemBalance('token_issuance', 'GEM');
    const publisher = await systemBalance('publisher_wallet', 'USD');
    const lost = await close(d.dispute_id, 'lost');
    // The reversal gave the tokens back to the convertible wallet (the conversion reversed): they are what is clawed back.
    assert.deepEqual(traceOf(lost), [['payout', 'in_wallet', 'GEM', 1000, 0, 0, 1000]]);
    assert.equal(lost.traced[0].wallet_id, seller.wallets['GEM:convertible'].wallet);
    assert.deepEqual(lost.unrecovered, {});
    assert.deepEqual(await postings(`exchange:${exchangeId}:%`), [`exchange:${exchangeId}:execute`, `exchange:${exchangeId}:reverse`]);
    // The conversion's reversal took the 1000 GEM from issuance and gave the USD 10.00 back to the integrator; the clawback returned the GEM.
    assert.equal(await systemBalance('token_issuance', 'GEM'), issuance);
    assert.equal((await systemBalance('publisher_wallet', 'USD')) - publisher, 1000);
    assert.equal(await stored(seller.wallets['GEM:convertible'].wallet), 0);
    assert.equal(await stored(seller.wallets['USD:fiat'].wallet), 0);
    const payout = (await call('GET', `/v2/${seller.account_id}/payout/${payoutId}`, { token: client.token })).body.payload;
    assert.equal(payout.payout_status, 'SUPPORT-REVERSED');
    await clean();
  });

  it('the trace locks each escrow it finds ESCROWED and refuses one that moved after it read the ledger (the opening is run again)', async () => {
    const { buyer, invoice, card } = await buyerWithTokens();
    const escrow = await escrowOf(buyer, await party(client), 300, false);
    const d = await openDispute(invoice, card);
    const db = pooled(h().orm.em.fork());
    const dispute = (await disputeOfCharge(db, invoice, card))!;
    const purchase = (await readInvoice(db, invoice))!;
    const asked: string[] = [];
    // A cancel that committed after the trace read the ledger: the locked row says so.
    await assert.rejects(
      db.transaction((tx) =>
        traceAndHold(tx, { ...dispute, id: unique('dsp') }, purchase, async () => buyer.account_id, {
          escrow: async (_db, id) => {
            asked.push(id);
            return 'CANCELLED';
          },
          payoutStatus: lockPayoutStatus,
        }),
      ),
      /moved \(CANCELLED\) while a dispute traced it/,
    );
    assert.deepEqual(asked, [escrow.id]);
    // The real lock: the escrow's row, `for share`, until the transaction ends — a move of it (another connection) waits.
    await db.transaction(async (tx) => {
      assert.equal(await lockEscrowStatus(tx, escrow.id), 'ESCROWED');
      await assert.rejects(
        db.execute('select id from escrow where id = ? for update nowait', [escrow.id]),
        (err: any) => err.code === '55P03' || /could not obtain lock/.test(String(err.message)),
      );
    });
    assert.equal((await db.execute<Array<{ id: string }>>('select id from escrow where id = ? for update nowait', [escrow.id])).length, 1);
    await close(d.dispute_id, 'won');
    await clean();
  });
});
