import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, register, startExtraApp, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';
import { until, worker } from '../support/workers.js';

describe('fault: a worker on Stripe killed with SIGKILL between the provider refund and the outcome commit', function () {
  this.timeout(90_000);
  let fake: StripeFake;
  before(async () => {
    fake = await startStripeFake();
  });
  after(async () => {
    await fake?.stop();
  });

  // refund.after-provider: the refund's plan is committed (PROCESSING, its money posted), Stripe
  // has refunded, nothing of its answer is recorded. The restarted worker resumes the plan: one
  // Refund, one posting, REFUND-SUCCESS.
  it('refund.after-provider: the restarted worker records the refund, refunded once', async () => {
    const env = {
      CARD_PROCESSOR: 'stripe',
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_API_BASE: fake.url,
      STRIPE_WEBHOOK_SECRET: 'whsec_test_refund_fault_fake',
    };
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('stripe-refund-fault')}`;
    const bus = new CommandBus(h().redisUrl, prefix);
    const app = await startExtraApp({
      bus,
      syncWaitMs: 20_000,
      cards: ((c) => cardProcessorFor(c.rails.cards, c.stripeApi))(loadConfig(env)),
    });
    // Commands only: this worker's sweeper must not take the suite's sandbox commands.
    const workerEnv = { ...env, WORKER_QUEUES: 'commands' };
    const first = worker(prefix, { ...workerEnv, HOLDFAST_FAILPOINTS: 'refund.after-provider' });
    try {
      const client = await newClient();
      const api = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        call(method, path, { token: client.token, baseUrl: app.baseUrl, body, headers });
      const buyer = await register(client);
      const added = await api('POST', `/v1/${buyer.account_id}/payment_methods`, {
        type: 'card',
        card: { stripe_payment_method: 'pm_card_visa' },
      });
      assert.equal(added.status, 201, added.text);
      const card = added.body.payload.id;
      const created = await api('POST', '/v2/invoice', {
        account_id: buyer.account_id,
        reference_type: 'order',
        reference_id: unique('o'),
        payment_methods: [{ payment_method_id: card, amount: 0 }],
        line_items: [{ amount: 777, currency: 'USD', transaction_type: 'user_to_integrator' }],
      });
      assert.equal(created.status, 201, created.text);
      const invoiceId = created.body.payload.invoice_id;
      const paid = await api('POST', `/v2/invoice/${invoiceId}/pay`);
      assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
      const intent = [...fake.api.paymentIntents.values()].find(
        (pi: any) => pi.metadata?.holdfast_ref === `invoice:${invoiceId}:charge:${card}`,
      );
      assert.ok(intent);

      const accepted = await api('POST', '/v2/refund', { invoice_id: invoiceId, reason: 'product_related' }, { prefer: 'respond-async' });
      assert.equal(accepted.status, 202, accepted.text);
      const commandId = accepted.headers.get('x-command-id');
      const death = await first.exited;
      assert.equal(death.signal, 'SIGKILL', first.output());
      const refunds = () => [...fake.api.refunds.values()].filter((r: any) => r.payment_intent === intent.id);
      assert.equal(refunds().length, 1, 'Stripe refunded before the crash');
      const during = await api('GET', `/v2/invoice/${invoiceId}/refunds`);
      assert.deepEqual(
        during.body.payload.refunds.map((r: any) => r.status),
        ['REFUND-PROCESSING'],
        'the plan was committed, its outcome not',
      );

      const second = worker(prefix, workerEnv);
      try {
        const command = await until(
          'the command to be done',
          async () => {
            const r = await call('GET', `/v2/commands/${commandId}`, { token: client.token });
            return r.body.payload.state === 'done' ? r.body.payload : undefined;
          },
          second.output,
        );
        const [r] = command.result.body.payload.refunds;
        assert.deepEqual([r.status, r.payment_methods[0].status], ['REFUND-SUCCESS', 'succeeded']);
        assert.equal(refunds().length, 1, 'one Stripe Refund');
        const asked = fake.requestsTo('POST', '/v1/refunds').filter((x) => x.idempotencyKey === `${commandId}:refund:${card}`);
        assert.ok(asked.length >= 2, 'asked again after the crash');
        assert.ok(
          asked.slice(1).every((x) => x.replayed),
          'under the same key, answered from Stripe’s replay',
        );
        const postings = await h()
          .orm.em.fork()
          .execute('select reference from ledger_posting where reference like ?', [`invoice:${r.refund_invoice_id}:%`]);
        assert.deepEqual(
          postings.map((p: any) => p.reference),
          [`invoice:${r.refund_invoice_id}:refund`],
          'posted exactly once',
        );
        const refundsOfInvoice = await h().orm.em.fork().execute('select id from invoice where refunded_invoice_id = ?', [invoiceId]);
        assert.equal(refundsOfInvoice.length, 1, 'one refund invoice: the plan was resumed, not made again');
        assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
    } finally {
      first.child.kill('SIGKILL');
      await app.close();
      await bus.close();
    }
  });
});
