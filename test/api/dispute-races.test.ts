import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { fundPublisherWallet, systemAccount } from '../../src/ledger/ledger.service.js';
import { addCard, call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { fund, party, type Party } from '../support/money.js';

/**
 * A dispute opening fired at the same time as each way the disputed value can move on: a payout
 * request, a payout's execution, a conversion, an escrow commit, an account merge (a refund of
 * the same charge: disputes.test.ts). Whichever goes first, the other sees it: the value is held
 * where it is, or the trace follows it to where it went (and what waits there waits for the
 * dispute), or the move is refused — never both, never neither. Each round fires the two
 * requests together; the rounds let either win. `ledger verify` is clean after each race.
 */
const ROUNDS = 4;

describe('disputes racing the moves of the value they trace', () => {
  let client: TestClient;
  let integratorId: string;

  before(async () => {
    const name = unique('races-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 })).id;
    client = await newClient({ integrator: name });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 10_000_000 });
  });

  const write = (method: string, path: string, body?: unknown) =>
    call(method as 'POST', path, { token: client.token, body, headers: { 'idempotency-key': unique('k') } });
  const ledgerRow = async (wallet: string) => {
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ balance: string; held: string }>>('select balance, held from ledger_account where id = ?', [wallet]);
    return { balance: Number(row!.balance), held: Number(row!.held) };
  };
  const openDispute = (invoice: string, card: string) =>
    write('POST', '/v2/sandbox/disputes', { invoice_id: invoice, payment_method_id: card });
  const close = (id: string, outcome: 'won' | 'lost') => write('POST', `/v2/sandbox/disputes/${id}/close`, { outcome });
  const clean = async () => assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

  async function buyerWithCard(): Promise<{ buyer: Party; card: string }> {
    const buyer = await party(client);
    await addCard(client, buyer.account_id, '4242424242424242');
    const methods = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload;
    return { buyer, card: methods.find((m: any) => m.provider === 'card').id };
  }

  async function seller(kyc = true): Promise<{ seller: Party; paypal: string }> {
    const s = await party(client);
    if (kyc) await decideKyc(h().orm.em.fork(), s.account_id, 'ACCEPT', false);
    const paypal = await write('POST', `/v1/${s.account_id}/payment_methods`, {
      type: 'paypal',
      paypal: { email: `${unique('p')}@example.com` },
    });
    assert.equal(paypal.status, 201, paypal.text);
    return { seller: s, paypal: paypal.body.payload.id };
  }

  /** The buyer's card pays an invoice whose one line gives `amount` USD to the seller's fiat wallet. */
  async function cardPaidSale(buyer: Party, card: string, to: Party, amount: number): Promise<string> {
    const created = await write('POST', '/v2/invoice', {
      account_id: buyer.account_id,
      payment_methods: [{ payment_method_id: card, amount: 0 }],
      line_items: [
        {
          amount,
          currency: 'USD',
          transaction_type: 'user_to_user',
          recipients: [{ amount, currency: 'USD', destination_wallet_id: to.wallets['USD:fiat'].wallet }],
        },
      ],
    });
    assert.equal(created.status, 201, created.text);
    const paid = await write('POST', `/v2/invoice/${created.body.payload.invoice_id}/pay`);
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    return created.body.payload.invoice_id;
  }

  it('the same notice several times at once: one dispute, its money moved once', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { buyer, card } = await buyerWithCard();
      const { seller: s } = await seller(false);
      const invoice = await cardPaidSale(buyer, card, s, 400);
      const holding = await systemAccount(h().orm.em.fork(), integratorId, 'dispute_holding', 'USD');
      const before = await ledgerRow(holding);
      const notices = await Promise.all([1, 2, 3, 4].map(() => openDispute(invoice, card)));
      for (const n of notices) assert.equal(n.status, 200, n.text);
      assert.equal(new Set(notices.map((n) => n.body.payload.dispute_id)).size, 1, 'one dispute');
      assert.equal((await ledgerRow(holding)).balance - before.balance, 400, 'moved once');
      assert.deepEqual(await ledgerRow(s.wallets['USD:fiat'].wallet), { balance: 400, held: 400 }, 'held once');
      assert.equal((await close(notices[0]!.body.payload.dispute_id, 'won')).status, 200);
      await clean();
    }
  });

  const requestPayout = (s: Party, paypal: string, amount: number) =>
    write('POST', `/v2/${s.account_id}/payout`, {
      source_payment_method_id: s.wallets['USD:fiat'].pm,
      destination_payment_method_id: paypal,
      amount,
      currency: 'USD',
    });

  it('a payout request: the wallet is held and the payout refused, or the payout waits for the dispute', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { buyer, card } = await buyerWithCard();
      const { seller: s, paypal } = await seller();
      const invoice = await cardPaidSale(buyer, card, s, 1000);
      const [disputed, payout] = await Promise.all([openDispute(invoice, card), requestPayout(s, paypal, 1000)]);
      assert.equal(disputed.status, 200, disputed.text);
      const d = disputed.body.payload;
      const wallet = await ledgerRow(s.wallets['USD:fiat'].wallet);
      if (payout.status === 201) {
        // The payout went first: the trace found the value in it, and it waits.
        const payoutId = payout.body.payload.payout_status_id;
        assert.deepEqual(wallet, { balance: 0, held: 0 });
        assert.deepEqual(
          d.traced.map((t: any) => [t.state, t.reference_id, t.amount]),
          [['payout_waiting', payoutId, 1000]],
          `round ${round}: ${JSON.stringify(d.traced)}`,
        );
        const sent = await write('PATCH', `/v2/${s.account_id}/payout/${payoutId}`);
        assert.equal(sent.status, 409, sent.text);
        assert.deepEqual(sent.body.codes, ['DISPUTE_OPEN']);
      } else {
        // The dispute went first: all of it is held, nothing can be paid out.
        assert.equal(payout.status, 400, payout.text);
        assert.deepEqual(payout.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] });
        assert.deepEqual(wallet, { balance: 1000, held: 1000 }, `round ${round}: ${JSON.stringify(d.traced)}`);
      }
      assert.equal((await close(d.dispute_id, 'lost')).status, 200);
      await clean();
    }
  });

  /**
   * The trace locks the payout's row (`for share`) and reads its status: an execution's claim
   * (which locks the row `for update`) either came first — the payout is on its way to the rail
   * and the trace says paid out — or waits for the opening and then finds the payout waiting.
   */
  it('a payout’s execution: it is sent (the trace says paid out) or it waits for the dispute (409 DISPUTE_OPEN), never both', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { buyer, card } = await buyerWithCard();
      const { seller: s, paypal } = await seller();
      const invoice = await cardPaidSale(buyer, card, s, 800);
      const requested = await requestPayout(s, paypal, 800);
      assert.equal(requested.status, 201, requested.text);
      const payoutId = requested.body.payload.payout_status_id;
      const [disputed, sent] = await Promise.all([openDispute(invoice, card), write('PATCH', `/v2/${s.account_id}/payout/${payoutId}`)]);
      assert.equal(disputed.status, 200, disputed.text);
      const [row] = disputed.body.payload.traced;
      assert.equal(disputed.body.payload.traced.length, 1, JSON.stringify(disputed.body.payload.traced));
      const payout = (await call('GET', `/v2/${s.account_id}/payout/${payoutId}`, { token: client.token })).body.payload;
      if (sent.status === 200) {
        assert.equal(payout.payout_status, 'SUCCESS');
        assert.deepEqual([row.state, row.reference_id, row.held], ['paid_out', payoutId, 0], `round ${round}`);
      } else {
        assert.equal(sent.status, 409, sent.text);
        assert.deepEqual(sent.body.codes, ['DISPUTE_OPEN']);
        assert.equal(payout.payout_status, 'FUNDS-IN-ESCROW');
        assert.deepEqual([row.state, row.reference_id], ['payout_waiting', payoutId], `round ${round}`);
      }
      // LOST: paid out, the 800 is unrecovered; still waiting, the payout is reversed and the money clawed back.
      const lost = await close(disputed.body.payload.dispute_id, 'lost');
      assert.deepEqual(lost.body.payload.unrecovered, sent.status === 200 ? { USD: 800 } : {}, `round ${round}`);
      if (sent.status !== 200) {
        const reversed = (await call('GET', `/v2/${s.account_id}/payout/${payoutId}`, { token: client.token })).body.payload;
        assert.equal(reversed.payout_status, 'SUPPORT-REVERSED', `round ${round}`);
      }
      await clean();
    }
  });

  it('a conversion: the tokens are held and the conversion refused, or the conversion’s money is held in the fiat wallet', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      // The buyer buys 1000 GEM with the card and pays them to the seller in a committed escrow.
      const { buyer, card } = await buyerWithCard();
      const { seller: s } = await seller();
      const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 1000, currency: 'USD' });
      assert.equal(bought.status, 201, bought.text);
      const escrow = await write('POST', '/v2/escrow', {
        account_id: buyer.account_id,
        line_items: [
          {
            amount: 1000,
            currency: 'GEM',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 1000, currency: 'GEM', destination_wallet_id: s.wallets['GEM:convertible'].wallet }],
          },
        ],
      });
      assert.equal((await write('POST', `/v2/escrow/${escrow.body.payload.id}/pay`)).body.payload.status, 'ESCROWED');
      assert.equal((await write('POST', `/v2/escrow/${escrow.body.payload.id}/commit`)).body.payload.status, 'COMMITTED');
      const quote = await write('POST', '/v2/token/convert', { account_id: s.account_id, amount: 1000, currency: 'GEM' });
      assert.equal(quote.status, 201, quote.text);
      const [disputed, executed] = await Promise.all([
        openDispute(bought.body.payload.invoice_id, card),
        write('POST', `/v2/token/convert/${quote.body.payload.token_exchange_id}`),
      ]);
      assert.equal(disputed.status, 200, disputed.text);
      const tokens = await ledgerRow(s.wallets['GEM:convertible'].wallet);
      const fiat = await ledgerRow(s.wallets['USD:fiat'].wallet);
      const what = `round ${round}: ${executed.status} ${JSON.stringify(disputed.body.payload.traced)}`;
      if (executed.status === 200) {
        // The conversion went first: the trace followed it to the fiat wallet, held there.
        assert.equal(executed.body.payload.status, 'EXECUTED');
        assert.deepEqual(
          [tokens, fiat],
          [
            { balance: 0, held: 0 },
            { balance: 1000, held: 1000 },
          ],
          what,
        );
      } else {
        assert.equal(executed.status, 400, executed.text);
        assert.deepEqual(executed.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] });
        assert.deepEqual(
          [tokens, fiat],
          [
            { balance: 1000, held: 1000 },
            { balance: 0, held: 0 },
          ],
          what,
        );
      }
      assert.equal((await close(disputed.body.payload.dispute_id, 'lost')).status, 200);
      await clean();
    }
  });

  it('the buyer’s own conversion: executed before the dispute opened, or 409 DISPUTE_OPEN', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { buyer, card } = await buyerWithCard();
      await decideKyc(h().orm.em.fork(), buyer.account_id, 'ACCEPT', false);
      const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 500, currency: 'USD' });
      // Convertible tokens of the buyer's own, not the disputed purchase's.
      await fund(buyer, 'GEM:convertible', 300);
      const quote = await write('POST', '/v2/token/convert', { account_id: buyer.account_id, amount: 300, currency: 'GEM' });
      assert.equal(quote.status, 201, quote.text);
      const [disputed, executed] = await Promise.all([
        openDispute(bought.body.payload.invoice_id, card),
        write('POST', `/v2/token/convert/${quote.body.payload.token_exchange_id}`),
      ]);
      assert.equal(disputed.status, 200, disputed.text);
      const converted = await ledgerRow(buyer.wallets['USD:fiat'].wallet);
      if (executed.status === 200) assert.deepEqual(converted, { balance: 300, held: 0 });
      else {
        assert.equal(executed.status, 409, executed.text);
        assert.deepEqual(executed.body.codes, ['DISPUTE_OPEN']);
        assert.deepEqual(converted, { balance: 0, held: 0 });
      }
      assert.deepEqual(await ledgerRow(buyer.wallets['GEM:standard'].wallet), { balance: 500, held: 500 });
      assert.equal((await close(disputed.body.payload.dispute_id, 'won')).status, 200);
      await clean();
    }
  });

  /**
   * The escrow commit: the trace finds the escrow ESCROWED and the commit then answers 409
   * DISPUTE_OPEN, or it finds it committed and holds the seller's share. A commit that lands
   * between the trace's read and its commit must not leave the escrow committed with its value
   * traced as "escrowed" and nothing held.
   */
  // One interleaving is still a known gap (docs/money.md, "Not yet"): a commit that read the
  // escrow before the opening committed and writes after it commits as it decided — the value
  // is traced "escrowed", nothing is held, and LOST counts it unrecovered. Money still moves once:
  // the sellers are paid once, the integrator's wallet gives the amount to dispute holding once.
  it('an escrow commit: 409 DISPUTE_OPEN with the value waiting in the escrow, or committed with the seller’s share held', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { buyer, card } = await buyerWithCard();
      const { seller: s } = await seller(false);
      const created = await write('POST', '/v2/escrow', {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: card, amount: 0 }],
        line_items: [
          {
            amount: 1000,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 600, currency: 'USD', destination_wallet_id: s.wallets['USD:fiat'].wallet }],
          },
        ],
      });
      assert.equal(created.status, 201, created.text);
      const escrow = created.body.payload;
      assert.equal((await write('POST', `/v2/escrow/${escrow.id}/pay`)).body.payload.status, 'ESCROWED');
      const [disputed, committed] = await Promise.all([
        openDispute(escrow.escrow_invoice_id, card),
        write('POST', `/v2/escrow/${escrow.id}/commit`),
      ]);
      assert.equal(disputed.status, 200, disputed.text);
      const d = disputed.body.payload;
      const share = await ledgerRow(s.wallets['USD:fiat'].wallet);
      const what = `round ${round}: commit ${committed.status}, ${JSON.stringify(d.traced)}`;
      if (committed.status === 200 && d.traced.some((t: any) => t.state === 'escrowed')) {
        // The known gap: committed as decided before the opening; nothing held, the share paid once.
        assert.equal(committed.body.payload.status, 'COMMITTED');
        assert.deepEqual(share, { balance: 600, held: 0 }, what);
        assert.deepEqual(
          d.traced.map((t: any) => [t.state, t.reference_id, t.held]),
          [['escrowed', escrow.id, 0]],
          what,
        );
      } else if (committed.status === 200) {
        assert.equal(committed.body.payload.status, 'COMMITTED');
        assert.deepEqual(share, { balance: 600, held: 600 }, what);
        assert.deepEqual(
          d.traced.map((t: any) => [t.state, t.amount, t.held]),
          [['in_wallet', 600, 600]],
          what,
        );
      } else {
        assert.equal(committed.status, 409, committed.text);
        assert.deepEqual(committed.body.codes, ['DISPUTE_OPEN']);
        assert.deepEqual(share, { balance: 0, held: 0 }, what);
        assert.deepEqual(
          d.traced.map((t: any) => [t.state, t.reference_id]),
          [['escrowed', escrow.id]],
          what,
        );
      }
      assert.equal((await close(d.dispute_id, 'lost')).status, 200);
      await clean();
    }
  });

  /**
   * A merge that goes first moves the tokens to the destination's wallet before the trace reads
   * them; the trace does not follow merges (docs/money.md, "Not yet"): nothing is held. What it
   * must never do is hold nothing while the tokens are still in the source, or hold them after
   * the merge took them.
   */
  it('an account merge: refused while the value is held, or merged before the dispute, never half of each', async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const { buyer, card } = await buyerWithCard();
      const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 700, currency: 'USD' });
      assert.equal(bought.status, 201, bought.text);
      const target = await party(client);
      const [disputed, merged] = await Promise.all([
        openDispute(bought.body.payload.invoice_id, card),
        write('POST', '/v2/merge-accounts', { source_account_id: buyer.account_id, destination_account_id: target.account_id }),
      ]);
      assert.equal(disputed.status, 200, disputed.text);
      const d = disputed.body.payload;
      const source = await ledgerRow(buyer.wallets['GEM:standard'].wallet);
      const destination = await ledgerRow(target.wallets['GEM:standard'].wallet);
      const what = `round ${round}: merge ${merged.status}, ${JSON.stringify(d.traced)}`;
      if (merged.status === 200) {
        assert.deepEqual(
          [source, destination],
          [
            { balance: 0, held: 0 },
            { balance: 700, held: 0 },
          ],
          what,
        );
        assert.ok(
          d.traced.every((t: any) => t.state !== 'in_wallet'),
          what,
        );
      } else {
        assert.equal(merged.status, 409, merged.text);
        assert.deepEqual(merged.body.codes, ['ACCOUNT_MERGE_ERROR']);
        assert.deepEqual(
          [source, destination],
          [
            { balance: 700, held: 700 },
            { balance: 0, held: 0 },
          ],
          what,
        );
      }
      assert.equal((await close(d.dispute_id, 'lost')).status, 200);
      await clean();
    }
  });
});
