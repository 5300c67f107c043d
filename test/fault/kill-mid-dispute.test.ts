import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { fundPublisherWallet } from '../../src/ledger/ledger.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { until, worker, restartedWorker } from '../support/workers.js';
import { addCard, call, h, newClient, startExtraApp, TEST_QUEUE_PREFIX, unique, type TestClient } from '../support/harness.js';
import { party, type Party } from '../support/money.js';

/** The integrator's dispute postings (each case has an integrator of its own), by reference. */
async function disputePostings(integratorId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ reference: string }>>(
      `select reference from ledger_posting where integrator_id = ? and reference like 'dispute:%' order by reference`,
      [integratorId],
    );
  return rows.map((r) => r.reference.replace(/dsp_[0-9A-Z]+/, 'D').replace(/dhl_[0-9A-Z]+/, 'H'));
}

async function heldOf(wallet: string): Promise<number> {
  const [row] = await h().orm.em.fork().execute<Array<{ held: string }>>('select held from ledger_account where id = ?', [wallet]);
  return Number(row!.held);
}

describe('fault: a worker killed with SIGKILL in the middle of a dispute’s opening, clawback or release', function () {
  this.timeout(90_000);

  // Opening (with its trace and holds) and closing (with its release or clawback) each write
  // everything in one transaction: a crash before the commit rolls all of it back, one after it
  // leaves all of it written and the job unfinished in Redis. The restarted worker ends each
  // exactly once: one opening posting, the holds once, one clawback per hold.
  const cases = [
    { step: 'open', failpoint: 'dispute.before-commit' },
    { step: 'open', failpoint: 'dispute.after-commit' },
    { step: 'lost', failpoint: 'dispute.before-commit' },
    { step: 'lost', failpoint: 'dispute.after-commit' },
    { step: 'won', failpoint: 'dispute.before-commit' },
    { step: 'won', failpoint: 'dispute.after-commit' },
  ] as const;

  for (const c of cases) {
    it(`${c.failpoint} of the ${c.step === 'open' ? 'opening' : c.step === 'lost' ? 'clawback (LOST)' : 'release (WON)'}: the restarted worker finishes it once`, async () => {
      const prefix = `${TEST_QUEUE_PREFIX}-${unique('fault')}`;
      const bus = new CommandBus(h().redisUrl, prefix);
      const app = await startExtraApp({ bus, syncWaitMs: 0 });
      const first = worker(prefix, { HOLDFAST_FAILPOINTS: c.failpoint });
      try {
        const name = unique('kill-dsp-');
        const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 })).id;
        await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 100_000 });
        const client: TestClient = await newClient({ integrator: name });
        const buyer: Party = await party(client);
        await addCard(client, buyer.account_id, '4242424242424242');
        const card = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload.find(
          (m: any) => m.provider === 'card',
        ).id;
        const bought = await call('POST', '/v2/token/purchase', {
          token: client.token,
          body: { payment_method_id: card, amount: 1000, currency: 'USD' },
          headers: { 'idempotency-key': unique('k') },
        });
        assert.equal(bought.status, 201, bought.text);
        const invoice = bought.body.payload.invoice_id;
        const gem = buyer.wallets['GEM:standard'].wallet;

        let disputeId = '';
        const sandbox = (path: string, body: unknown, baseUrl?: string) =>
          call('POST', path, {
            token: client.token,
            body,
            baseUrl,
            headers: { 'idempotency-key': unique('k'), ...(baseUrl ? { prefer: 'respond-async' } : {}) },
          });
        let accepted: Awaited<ReturnType<typeof sandbox>>;
        if (c.step === 'open') {
          accepted = await sandbox('/v2/sandbox/disputes', { invoice_id: invoice, payment_method_id: card }, app.baseUrl);
        } else {
          const opened = await sandbox('/v2/sandbox/disputes', { invoice_id: invoice, payment_method_id: card });
          assert.equal(opened.status, 200, opened.text);
          disputeId = opened.body.payload.dispute_id;
          accepted = await sandbox(`/v2/sandbox/disputes/${disputeId}/close`, { outcome: c.step }, app.baseUrl);
        }
        assert.equal(accepted.status, 202, accepted.text);
        const commandId = accepted.headers.get('x-command-id') ?? '';
        assert.ok(commandId, 'the 202 names its command');

        const death = await first.exited;
        assert.equal(death.signal, 'SIGKILL', first.output());
        const committed = c.failpoint === 'dispute.after-commit';
        const postingsMidway = await disputePostings(integratorId);
        if (c.step === 'open') {
          assert.deepEqual(postingsMidway, committed ? ['dispute:D:open'] : []);
          assert.equal(await heldOf(gem), committed ? 1000 : 0);
        } else {
          const decided =
            c.step === 'lost' ? ['dispute:D:clawback:H', 'dispute:D:lost', 'dispute:D:open'] : ['dispute:D:open', 'dispute:D:won'];
          assert.deepEqual(postingsMidway, committed ? decided : ['dispute:D:open']);
          assert.equal(await heldOf(gem), committed ? 0 : 1000);
        }
        assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

        const second = await restartedWorker(prefix);
        try {
          const done = await until(
            'the restarted worker to finish the command',
            async () => {
              const r = await call('GET', `/v2/commands/${commandId}`, { token: client.token });
              return r.body.payload.state === 'done' ? r.body.payload : undefined;
            },
            second.output,
          );
          assert.equal(done.result.status, 200, JSON.stringify(done.result));
          const disputes = (await call('GET', `/v2/disputes?invoice_id=${invoice}`, { token: client.token })).body.payload.disputes;
          assert.equal(disputes.length, 1, 'one dispute');
          const d = disputes[0];
          const expected = {
            open: { postings: ['dispute:D:open'], held: 1000, status: 'NEEDS_RESPONSE' },
            lost: { postings: ['dispute:D:clawback:H', 'dispute:D:lost', 'dispute:D:open'], held: 0, status: 'LOST' },
            won: { postings: ['dispute:D:open', 'dispute:D:won'], held: 0, status: 'WON' },
          }[c.step];
          assert.equal(d.status, expected.status);
          assert.deepEqual(await disputePostings(integratorId), expected.postings);
          assert.equal(await heldOf(gem), expected.held);
          assert.equal(d.traced.length, 1, 'the trace was written once');
          assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
        } finally {
          await second.stop();
        }
      } finally {
        first.child.kill('SIGKILL');
        await app.close();
        await bus.close();
      }
    });
  }
});

describe('fault: a worker killed with SIGKILL in the middle of a LOST that reverses a waiting payout', function () {
  this.timeout(90_000);

  /** A payout's postings and status. */
  async function payoutState(payoutId: string): Promise<{ postings: string[]; status: string }> {
    const em = h().orm.em.fork();
    const rows = await em.execute<Array<{ reference: string }>>(
      `select reference from ledger_posting where reference like ? order by reference`,
      [`payout:${payoutId}:%`],
    );
    const [payout] = await em.execute<Array<{ status: string }>>('select status from payout where id = ?', [payoutId]);
    return { postings: rows.map((r) => r.reference.replace(payoutId, 'P')), status: payout!.status };
  }

  // The close reverses the payout (its posting, its status, its event), holds what came back and
  // claws it back, all in its one transaction: killed before the commit none of it is written,
  // after it all of it; the restarted worker ends with one reversal and one clawback.
  for (const failpoint of ['dispute.before-commit', 'dispute.after-commit'] as const) {
    it(`${failpoint}: the restarted worker reverses the payout and claws back once`, async () => {
      const prefix = `${TEST_QUEUE_PREFIX}-${unique('fault')}`;
      const bus = new CommandBus(h().redisUrl, prefix);
      const app = await startExtraApp({ bus, syncWaitMs: 0 });
      const first = worker(prefix, { HOLDFAST_FAILPOINTS: failpoint });
      try {
        const name = unique('kill-dsp-payout-');
        const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 })).id;
        await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 100_000 });
        const client: TestClient = await newClient({ integrator: name });
        const write = (method: string, path: string, body?: unknown, baseUrl?: string) =>
          call(method as 'POST', path, {
            token: client.token,
            body,
            baseUrl,
            headers: { 'idempotency-key': unique('k'), ...(baseUrl ? { prefer: 'respond-async' } : {}) },
          });
        // A buyer's card buys 1000 GEM, paid to a seller in an escrow; the seller converts them (USD 10.00) and asks for all of it.
        const buyer: Party = await party(client);
        await addCard(client, buyer.account_id, '4242424242424242');
        const card = (await call('GET', `/v1/${buyer.account_id}/payment_methods`, { token: client.token })).body.payload.find(
          (m: any) => m.provider === 'card',
        ).id;
        const bought = await write('POST', '/v2/token/purchase', { payment_method_id: card, amount: 1000, currency: 'USD' });
        assert.equal(bought.status, 201, bought.text);
        const seller: Party = await party(client);
        await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
        const escrow = await write('POST', '/v2/escrow', {
          account_id: buyer.account_id,
          line_items: [
            {
              amount: 1000,
              currency: 'GEM',
              transaction_type: 'user_to_user',
              recipients: [{ amount: 1000, currency: 'GEM', destination_wallet_id: seller.wallets['GEM:convertible'].wallet }],
            },
          ],
        });
        assert.equal((await write('POST', `/v2/escrow/${escrow.body.payload.id}/pay`)).body.payload.status, 'ESCROWED');
        assert.equal((await write('POST', `/v2/escrow/${escrow.body.payload.id}/commit`)).body.payload.status, 'COMMITTED');
        const quote = await write('POST', '/v2/token/convert', { account_id: seller.account_id, amount: 1000, currency: 'GEM' });
        assert.equal((await write('POST', `/v2/token/convert/${quote.body.payload.token_exchange_id}`)).body.payload.status, 'EXECUTED');
        const paypal = await write('POST', `/v1/${seller.account_id}/payment_methods`, {
          type: 'paypal',
          paypal: { email: `${unique('p')}@example.com` },
        });
        const requested = await write('POST', `/v2/${seller.account_id}/payout`, {
          source_payment_method_id: seller.wallets['USD:fiat'].pm,
          destination_payment_method_id: paypal.body.payload.id,
          amount: 1000,
          currency: 'USD',
        });
        assert.equal(requested.body.payload.payout_status, 'FUNDS-IN-ESCROW', requested.text);
        const payoutId: string = requested.body.payload.payout_status_id;
        const opened = await write('POST', '/v2/sandbox/disputes', { invoice_id: bought.body.payload.invoice_id, payment_method_id: card });
        assert.equal(opened.status, 200, opened.text);
        const disputeId = opened.body.payload.dispute_id;
        assert.deepEqual(
          opened.body.payload.traced.map((t: any) => [t.state, t.amount]),
          [['payout_waiting', 1000]],
        );

        const accepted = await write('POST', `/v2/sandbox/disputes/${disputeId}/close`, { outcome: 'lost' }, app.baseUrl);
        assert.equal(accepted.status, 202, accepted.text);
        const commandId = accepted.headers.get('x-command-id') ?? '';
        const death = await first.exited;
        assert.equal(death.signal, 'SIGKILL', first.output());
        const committed = failpoint === 'dispute.after-commit';
        const usd = seller.wallets['USD:fiat'].wallet;
        assert.deepEqual(
          await disputePostings(integratorId),
          committed ? ['dispute:D:clawback:H', 'dispute:D:lost', 'dispute:D:open'] : ['dispute:D:open'],
        );
        assert.deepEqual(
          await payoutState(payoutId),
          committed
            ? { postings: ['payout:P:hold', 'payout:P:reverse'], status: 'SUPPORT-REVERSED' }
            : { postings: ['payout:P:hold'], status: 'FUNDS-IN-ESCROW' },
        );
        assert.equal(await heldOf(usd), 0);
        assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

        const second = await restartedWorker(prefix);
        try {
          const done = await until(
            'the restarted worker to finish the command',
            async () => {
              const r = await call('GET', `/v2/commands/${commandId}`, { token: client.token });
              return r.body.payload.state === 'done' ? r.body.payload : undefined;
            },
            second.output,
          );
          assert.equal(done.result.status, 200, JSON.stringify(done.result));
          const d = (await call('GET', `/v2/disputes/${disputeId}`, { token: client.token })).body.payload;
          assert.equal(d.status, 'LOST');
          assert.deepEqual(
            d.traced.map((t: any) => [t.state, t.amount, t.held, t.clawed_back]),
            [['in_wallet', 1000, 0, 1000]],
          );
          assert.deepEqual(d.unrecovered, {});
          assert.deepEqual(await disputePostings(integratorId), ['dispute:D:clawback:H', 'dispute:D:lost', 'dispute:D:open']);
          assert.deepEqual(await payoutState(payoutId), { postings: ['payout:P:hold', 'payout:P:reverse'], status: 'SUPPORT-REVERSED' });
          assert.equal(await heldOf(usd), 0);
          const [wallet] = await h()
            .orm.em.fork()
            .execute<Array<{ balance: string }>>('select balance from ledger_account where id = ?', [usd]);
          assert.equal(Number(wallet!.balance), 0, 'the payout came back and was clawed back');
          assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
        } finally {
          await second.stop();
        }
      } finally {
        first.child.kill('SIGKILL');
        await app.close();
        await bus.close();
      }
    });
  }
});
