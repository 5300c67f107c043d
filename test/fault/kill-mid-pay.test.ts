import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { addCard, call, h, newClient, register, startExtraApp, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';
import { until, worker, restartedWorker } from '../support/workers.js';

describe('fault: a worker killed with SIGKILL in the middle of pay', function () {
  this.timeout(90_000);

  // Pay writes its charge, the escrow's new state, its invoice, events and the command's result
  // in one statement: a crash lands before it (nothing written) or after it (all written, the
  // job not yet finished in Redis). Both are tried; the restarted worker ends the pay once.
  const cases = [
    { failpoint: 'escrow.pay.before-charge', after: 'OPEN', postings: 0 },
    { failpoint: 'escrow.pay.after-charge', after: 'ESCROWED', postings: 1 },
  ];
  for (const c of cases) {
    it(`${c.failpoint}: leaves nothing half-done, and the restarted worker finishes the pay exactly once`, async () => {
      const prefix = `${TEST_QUEUE_PREFIX}-${unique('fault')}`;
      const bus = new CommandBus(h().redisUrl, prefix);
      const app = await startExtraApp({ bus, syncWaitMs: 0 });
      const first = worker(prefix, { HOLDFAST_FAILPOINTS: c.failpoint });
      try {
        const client = await newClient();
        const buyer = await register(client);
        const card = await addCard(client, buyer.account_id);
        const created = await call('POST', '/v2/escrow', {
          token: client.token,
          body: {
            account_id: buyer.account_id,
            payment_methods: [{ payment_method_id: card, amount: 0 }],
            line_items: [{ amount: 777, currency: 'USD', transaction_type: 'user_to_integrator' }],
          },
        });
        const escrowId = created.body.payload.id;
        const accepted = await call('POST', `/v2/escrow/${escrowId}/pay`, {
          token: client.token,
          baseUrl: app.baseUrl,
          headers: { prefer: 'respond-async' },
        });
        assert.equal(accepted.status, 202);
        const commandId = accepted.headers.get('x-command-id');

        const death = await first.exited;
        assert.equal(death.signal, 'SIGKILL', first.output());
        // Charge and state change are one statement: both there, or neither.
        assert.equal((await call('GET', `/v2/escrow/${escrowId}`, { token: client.token })).body.payload.status, c.after);
        const postingsNow = await h()
          .orm.em.fork()
          .execute('select 1 from ledger_posting where reference = ?', [`escrow:${escrowId}:pay`]);
        assert.equal(postingsNow.length, c.postings);
        assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

        const second = await restartedWorker(prefix);
        try {
          const command = await until('the restarted worker to finish the command', async () => {
            const r = await call('GET', `/v2/commands/${commandId}`, { token: client.token });
            return r.body.payload.state === 'done' ? r.body.payload : undefined;
          });
          assert.equal(command.result.status, 200);
          assert.equal(command.result.body.payload.status, 'ESCROWED');
          assert.equal((await call('GET', `/v2/escrow/${escrowId}`, { token: client.token })).body.payload.status, 'ESCROWED');
          const postings = await h()
            .orm.em.fork()
            .execute('select 1 from ledger_posting where reference = ?', [`escrow:${escrowId}:pay`]);
          assert.equal(postings.length, 1, 'charged exactly once');
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
