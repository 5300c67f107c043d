import assert from 'node:assert/strict';
import { loadConfig } from '../../config/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { cardProcessorFor } from '../../src/rails/card-processor.js';
import { type StripeFake, startStripeFake } from '../support/fakes/stripe/stripe-fake.js';
import { call, h, newClient, register, startExtraApp, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';
import { until, worker } from '../support/workers.js';

describe('fault: a worker on Stripe killed with SIGKILL between the provider call and the commit', function () {
  this.timeout(90_000);
  let fake: StripeFake;
  before(async () => {
    fake = await startStripeFake();
  });
  after(async () => {
    await fake?.stop();
  });

  // before-charge: the card is authorized at Stripe, nothing written in Holdfast. after-charge:
  // the pay is written, its authorization not yet captured. Either way the restarted worker ends
  // the pay with one PaymentIntent, captured once.
  for (const failpoint of ['escrow.pay.before-charge', 'escrow.pay.after-charge']) {
    it(`${failpoint}: the restarted worker finishes the pay, charged once`, async () => {
      const env = {
        CARD_PROCESSOR: 'stripe',
        STRIPE_SECRET_KEY: fake.secretKey,
        STRIPE_API_BASE: fake.url,
        STRIPE_WEBHOOK_SECRET: 'whsec_test_fault_fake',
      };
      const prefix = `${TEST_QUEUE_PREFIX}-${unique('stripe-fault')}`;
      const bus = new CommandBus(h().redisUrl, prefix);
      const app = await startExtraApp({
        bus,
        syncWaitMs: 0,
        cards: ((c) => cardProcessorFor(c.rails.cards, c.stripeApi))(loadConfig(env)),
      });
      // Commands only: this worker's sweeper must not take the suite's sandbox commands.
      const workerEnv = { ...env, WORKER_QUEUES: 'commands' };
      const first = worker(prefix, { ...workerEnv, HOLDFAST_FAILPOINTS: failpoint });
      try {
        const client = await newClient();
        const buyer = await register(client);
        const added = await call('POST', `/v1/${buyer.account_id}/payment_methods`, {
          token: client.token,
          baseUrl: app.baseUrl,
          body: { type: 'card', card: { stripe_payment_method: 'pm_card_visa' } },
        });
        assert.equal(added.status, 201, added.text);
        const card = added.body.payload.id;
        const created = await call('POST', '/v2/escrow', {
          token: client.token,
          body: {
            account_id: buyer.account_id,
            payment_methods: [{ payment_method_id: card, amount: 0 }],
            line_items: [{ amount: 777, currency: 'USD', transaction_type: 'user_to_integrator' }],
          },
        });
        const { id: escrowId, escrow_invoice_id: invoiceId } = created.body.payload;
        const accepted = await call('POST', `/v2/escrow/${escrowId}/pay`, {
          token: client.token,
          baseUrl: app.baseUrl,
          headers: { prefer: 'respond-async' },
        });
        assert.equal(accepted.status, 202);
        const commandId = accepted.headers.get('x-command-id');
        const death = await first.exited;
        assert.equal(death.signal, 'SIGKILL', first.output());
        const ref = `invoice:${invoiceId}:charge:${card}`;
        const intents = () => [...fake.api.paymentIntents.values()].filter((pi: any) => pi.metadata?.holdfast_ref === ref);
        assert.equal(intents().length, 1, 'authorized before the crash');
        assert.equal(intents()[0].status, 'requires_capture', 'not captured before the commit');

        const second = worker(prefix, workerEnv);
        try {
          await until(
            'the restarted worker to capture the charge',
            async () => (intents()[0].status === 'succeeded' ? true : undefined),
            second.output,
          );
          const command = await until('the command to be done', async () => {
            const r = await call('GET', `/v2/commands/${commandId}`, { token: client.token });
            return r.body.payload.state === 'done' ? r.body.payload : undefined;
          });
          assert.equal(command.result.body.payload.status, 'ESCROWED');
          assert.equal(intents().length, 1, 'one PaymentIntent');
          const creates = fake.requestsTo('POST', '/v1/payment_intents').filter((r) => r.idempotencyKey === `${commandId}:charge:${card}`);
          assert.ok(
            creates.slice(1).every((r) => r.replayed),
            'asked again under the same key, answered from Stripe’s replay',
          );
          assert.equal(fake.requestsTo('POST', `/v1/payment_intents/${intents()[0].id}/capture`).filter((r) => !r.replayed).length, 1);
          const postings = await h()
            .orm.em.fork()
            .execute('select 1 from ledger_posting where reference = ?', [`escrow:${escrowId}:pay`]);
          assert.equal(postings.length, 1, 'posted exactly once');
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
  }
});
