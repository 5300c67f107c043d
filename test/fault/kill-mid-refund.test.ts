import assert from 'node:assert/strict';
import { Queue } from 'bullmq';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { fundIntegrator, integratorWallets } from '../../src/payment-methods/integrator-wallet.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { completedJob, until, worker, restartedWorker } from '../support/workers.js';
import { call, h, newClient, startExtraApp, TEST_QUEUE_PREFIX, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** The integrator's default USD wallet balance. */
async function integratorBalance(client: TestClient): Promise<number> {
  const { wallets } = await integratorWallets(h().orm.em.fork(), client.integrator);
  return wallets.find((w) => w.currency === 'USD')?.balance ?? 0;
}

/** The references of the integrator's refund postings (each case has an integrator of its own). */
async function refundPostings(integratorId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ reference: string }>>(
      `select reference from ledger_posting where integrator_id = ? and reference like 'invoice:%:refund' order by reference`,
      [integratorId],
    );
  return rows.map((r) => r.reference);
}

/** The buyer's refund invoices, as `GET /v2/invoice/account/{account_id}` lists them. */
async function refundInvoices(client: TestClient, accountId: string): Promise<any[]> {
  const res = await call('GET', `/v2/invoice/account/${accountId}?invoice_types=user_refund&limit=100`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.body.payload.total, res.body.payload.invoices.length);
  return res.body.payload.invoices;
}

/** The buyer's events of one type, as `GET /v2/events` lists them. */
async function eventsOf(client: TestClient, accountId: string, type: string): Promise<any[]> {
  const res = await call('GET', `/v2/events?type=${type}&account_id=${accountId}&limit=100`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.events;
}

describe('fault: a worker killed with SIGKILL in the middle of a refund', function () {
  this.timeout(60_000);

  // The refund writes its invoice, events, postings and the command's result in one
  // transaction: a crash before the posting rolls all of it back; a crash after the commit leaves
  // all of it written and the job not yet finished in Redis. Either way the restarted worker
  // ends with the purchase refunded once. Each purchase is 1000 USD, by card or split 400 from
  // the buyer's wallet + 600 by card; the line-item refund asks 500 back, wallet first.
  const cases = [
    { failpoint: 'refund.before-post', committed: false, split: false, lineItem: false },
    { failpoint: 'refund.before-post', committed: false, split: true, lineItem: false },
    { failpoint: 'refund.after-commit', committed: true, split: false, lineItem: false },
    { failpoint: 'refund.after-commit', committed: true, split: true, lineItem: false },
    { failpoint: 'refund.before-post', committed: false, split: true, lineItem: true },
  ];
  for (const c of cases) {
    const what = c.lineItem ? 'a partial line-item refund' : 'a full refund';
    const paidBy = c.split ? 'a wallet + card split' : 'card';
    it(`${c.failpoint}, ${what} of a purchase paid by ${paidBy}: the restarted worker refunds exactly once`, async () => {
      const prefix = `${TEST_QUEUE_PREFIX}-${unique('fault')}`;
      const bus = new CommandBus(h().redisUrl, prefix);
      const jobs = new Queue(QueueName.Commands, { connection: h().redis, prefix });
      const app = await startExtraApp({ bus, syncWaitMs: 0 });
      const first = worker(prefix, { HOLDFAST_FAILPOINTS: c.failpoint });
      try {
        const client = await newClient();
        const buyer: Party = await party(client, true);
        const wallet = buyer.wallets['USD:fiat'];
        if (c.split) await fund(buyer, 'USD:fiat', 400);
        const created = await call('POST', '/v2/invoice', {
          token: client.token,
          body: {
            account_id: buyer.account_id,
            payment_methods: c.split
              ? [{ payment_method_id: wallet.pm, amount: 400 }, { payment_method_id: buyer.card }]
              : [{ payment_method_id: buyer.card, amount: 0 }],
            line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' }],
          },
        });
        assert.equal(created.status, 201, created.text);
        const invoiceId = created.body.payload.invoice_id;
        const lineItemId: string = Object.values<any>(created.body.payload.line_items)[0].line_item_id;
        const paid = await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token });
        assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
        // Enough for a second refund: only exactly-once keeps the wallet from paying twice.
        await fundIntegrator(h().orm.em.fork(), client.integrator, 'USD', 5000);
        const integratorBefore = await integratorBalance(client);
        const walletBefore = await balance(wallet.wallet);
        const amount = c.lineItem ? 500 : 1000;
        const expectedMethods = c.split
          ? [
              { payment_method_id: wallet.pm, amount: 400, status: 'succeeded' },
              { payment_method_id: buyer.card!, amount: amount - 400, status: 'succeeded' },
            ]
          : [{ payment_method_id: buyer.card!, amount, status: 'succeeded' }];

        const reason = { reason: 'product_related', note: c.failpoint };
        const accepted = c.lineItem
          ? await call('POST', '/v2/line-item/refund', {
              token: client.token,
              baseUrl: app.baseUrl,
              headers: { prefer: 'respond-async' },
              body: { line_item_id: lineItemId, amount, payment_methods: [wallet.pm, buyer.card], ...reason },
            })
          : await call('POST', '/v2/refund', {
              token: client.token,
              baseUrl: app.baseUrl,
              headers: { prefer: 'respond-async' },
              body: { invoice_id: invoiceId, ...reason },
            });
        assert.equal(accepted.status, 202, accepted.text);
        const commandId = accepted.headers.get('x-command-id') ?? '';
        assert.ok(commandId, 'the 202 names its command');

        const death = await first.exited;
        assert.equal(death.signal, 'SIGKILL', first.output());
        const command = (await call('GET', `/v2/commands/${commandId}`, { token: client.token })).body.payload;
        const midway = (await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: client.token })).body.payload;
        const midwayPostings = await refundPostings(buyer.integrator_id);
        assert.equal((await refundInvoices(client, buyer.account_id)).length, c.committed ? 1 : 0);
        if (c.committed) {
          // All of it committed: the refund invoice, its posting, its events, the command's result.
          assert.equal(command.state, 'done');
          assert.equal(midway.refunds.length, 1);
          assert.equal(midway.refunds[0].status, 'REFUND-SUCCESS');
          assert.deepEqual(midwayPostings, [`invoice:${midway.refunds[0].refund_invoice_id}:refund`]);
          assert.equal(await integratorBalance(client), integratorBefore - amount);
          assert.equal((await eventsOf(client, buyer.account_id, 'refund-completed')).length, 1);
        } else {
          // Rolled back: no refund invoice, no posting, no event; the command still to run.
          assert.notEqual(command.state, 'done');
          assert.deepEqual(midway.refunds, []);
          assert.deepEqual(midway.refundable, { USD: 1000 });
          assert.deepEqual(midwayPostings, []);
          assert.equal(await integratorBalance(client), integratorBefore);
          assert.equal(await balance(wallet.wallet), walletBefore);
          assert.deepEqual(await eventsOf(client, buyer.account_id, 'refund-completed'), []);
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
          // The job itself ends in Redis too (after-commit: the rerun answers the stored result).
          const job = await completedJob(jobs, commandId, second.output);
          assert.equal(job!.returnvalue.status, 200, JSON.stringify(job!.returnvalue));
          assert.equal(done.result.status, 200, JSON.stringify(done.result));

          const summary = (await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: client.token })).body.payload;
          assert.deepEqual(done.result.body.payload, summary, 'the command answers the summary as it stands');
          assert.equal(summary.is_fully_refunded, !c.lineItem);
          assert.deepEqual(summary.refunded, { USD: amount });
          assert.deepEqual(summary.refundable, { USD: 1000 - amount });
          assert.equal(summary.refunds.length, 1, 'exactly one refund invoice');
          const [refund] = summary.refunds;
          assert.equal(refund.status, 'REFUND-SUCCESS');
          assert.equal(refund.amount, amount);
          assert.equal(refund.line_item_id, c.lineItem ? lineItemId : null);
          assert.deepEqual(
            [...refund.payment_methods].sort((a: any, b: any) => a.payment_method_id.localeCompare(b.payment_method_id)),
            expectedMethods.sort((a, b) => a.payment_method_id.localeCompare(b.payment_method_id)),
          );
          if (c.committed) assert.equal(refund.refund_invoice_id, midway.refunds[0].refund_invoice_id, 'the committed refund kept');
          assert.deepEqual(
            (await refundInvoices(client, buyer.account_id)).map((i) => [i.invoice_id, i.state]),
            [[refund.refund_invoice_id, 'SUCCESS']],
          );

          assert.deepEqual(await refundPostings(buyer.integrator_id), [`invoice:${refund.refund_invoice_id}:refund`], 'one posting');
          assert.equal(await integratorBalance(client), integratorBefore - amount, 'the integrator paid once');
          assert.equal(await balance(wallet.wallet), walletBefore + (c.split ? 400 : 0), 'the wallet part came back once');

          const completed = await eventsOf(client, buyer.account_id, 'refund-completed');
          assert.equal(completed.length, 1, JSON.stringify(completed));
          assert.equal(completed[0].payload.message.invoice_id, refund.refund_invoice_id);
          assert.equal(completed[0].payload.message.payment_invoice_id, invoiceId);
          assert.deepEqual(completed[0].payload.message.failed_refunds, []);
          assert.equal(
            completed[0].payload.message.successful_refunds.reduce((sum: number, p: { amount: number }) => sum + p.amount, 0),
            amount,
          );
          const invoiceEvents = await eventsOf(client, buyer.account_id, 'invoice-completed');
          assert.equal(invoiceEvents.filter((e) => e.payload.message.invoice_id === refund.refund_invoice_id).length, 1);
          assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

          if (c.lineItem) {
            // What the crash left refundable is still whole: the rest of the purchase comes back once.
            const rest = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: invoiceId, ...reason } });
            assert.equal(rest.status, 200, rest.text);
            assert.equal(rest.body.payload.is_fully_refunded, true);
            assert.deepEqual(rest.body.payload.refunded, { USD: 1000 });
            assert.deepEqual(rest.body.payload.refundable, { USD: 0 });
            assert.equal(rest.body.payload.refunds.length, 2);
            assert.equal((await refundPostings(buyer.integrator_id)).length, 2);
            assert.equal(await integratorBalance(client), integratorBefore - 1000);
            assert.equal(await balance(wallet.wallet), walletBefore + 400);
            assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
          }
        } finally {
          await second.stop();
        }
      } finally {
        first.child.kill('SIGKILL');
        await app.close();
        await jobs.close();
        await bus.close();
      }
    });
  }
});
