import assert from 'node:assert/strict';
import { Queue } from 'bullmq';
import { updateIntegrator } from '../../src/integrators/integrator.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, systemAccount } from '../../src/ledger/ledger.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { completedJob, until, worker, restartedWorker } from '../support/workers.js';
import { call, h, newClient, startExtraApp, TEST_QUEUE_PREFIX, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party } from '../support/money.js';

/** The integrator's payout holding or payout clearing balance. */
async function systemBalance(integratorId: string, kind: 'payout_holding' | 'payout_clearing'): Promise<number> {
  const id = await systemAccount(h().orm.em.fork(), integratorId, kind, 'USD');
  return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
}

/** The references of the payout's postings. */
async function payoutPostings(payoutId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ reference: string }>>(`select reference from ledger_posting where reference like ? order by reference`, [
      `payout:${payoutId}:%`,
    ]);
  return rows.map((r) => r.reference);
}

/** The statuses the payout's `payout-complete` events carry, oldest first. */
async function payoutEvents(payoutId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ message: { payout_status: string } }>>(
      `select message from outbox where event_name = 'payout-complete' and message->>'payout_status_id' = ? order by id`,
      [payoutId],
    );
  return rows.map((r) => r.message.payout_status);
}

/** The payout's `payout.execute` commands (id, state, input). */
async function executeCommands(payoutId: string): Promise<Array<{ id: string; state: string; input: { mode?: string } | null }>> {
  return h()
    .orm.em.fork()
    .execute(`select id, state, input from command where kind = 'payout.execute' and target_id = ? order by created_at`, [payoutId]);
}

async function commandOf(client: TestClient, commandId: string): Promise<any> {
  const res = await call('GET', `/v2/commands/${commandId}`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return res.body.payload;
}

async function payoutOf(client: TestClient, accountId: string, payoutId: string): Promise<any> {
  const res = await call('GET', `/v2/${accountId}/payout/${payoutId}`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return res.body.payload;
}

describe('fault: a worker killed with SIGKILL in the middle of a payout execution', function () {
  this.timeout(60_000);

  // The execution commits its attempt (PROCESSING) first, then calls the payout rail, then
  // writes its posting (holding → clearing), the payout's SUCCESS, its event and the command's
  // result in one transaction: a crash before the attempt rolls all of it back (the payout
  // still FUNDS-IN-ESCROW); a crash after the rail's call leaves the attempt PROCESSING and the
  // command pending (the rerun sends the same attempt again); a crash after the commit leaves
  // all of it written and the job not yet finished in Redis. Either way the restarted worker
  // ends with the payout paid out once. The execution is asked for by the staging shortcut
  // (PATCH, respond-async) or follows the request by itself (at or under the integrator's
  // payout_auto_approve_max).
  const cases = [
    { failpoint: 'payout.execute.before-post', committed: 'nothing', via: 'staging' },
    { failpoint: 'payout.execute.after-send', committed: 'attempt', via: 'staging' },
    { failpoint: 'payout.execute.after-commit', committed: 'all', via: 'staging' },
    { failpoint: 'payout.execute.before-post', committed: 'nothing', via: 'auto' },
    { failpoint: 'payout.execute.after-send', committed: 'attempt', via: 'auto' },
    { failpoint: 'payout.execute.after-commit', committed: 'all', via: 'auto' },
  ] as const;
  for (const c of cases) {
    const how = c.via === 'staging' ? 'PATCH (the staging shortcut)' : 'automatic approval';
    it(`${c.failpoint}, executed by ${how}: the restarted worker pays out exactly once`, async () => {
      const prefix = `${TEST_QUEUE_PREFIX}-${unique('fault')}`;
      const bus = new CommandBus(h().redisUrl, prefix);
      const jobs = new Queue(QueueName.Commands, { connection: h().redis, prefix });
      const app = await startExtraApp({ bus, syncWaitMs: 0 });
      const first = worker(prefix, { HOLDFAST_FAILPOINTS: c.failpoint });
      try {
        const client = await newClient();
        const amount = 2500;
        if (c.via === 'auto') {
          await updateIntegrator(h().orm.em.fork(), client.integrator, { payoutAutoApproveMax: amount });
        }
        const seller = await party(client);
        const wallet = seller.wallets['USD:fiat'];
        await fund(seller, 'USD:fiat', 10_000);
        await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
        const method = await call('POST', `/v1/${seller.account_id}/payment_methods`, {
          token: client.token,
          body: { type: 'paypal', paypal: { email: `${seller.account_id.toLowerCase()}@example.com` } },
        });
        assert.ok(method.status === 200 || method.status === 201, method.text);
        const destination = method.body.payload.id;
        const heldBefore = await systemBalance(seller.integrator_id, 'payout_holding');
        const clearedBefore = await systemBalance(seller.integrator_id, 'payout_clearing');

        // The request: the first worker runs it (its failpoints are in the execution only).
        const requested = await call('POST', `/v2/${seller.account_id}/payout`, {
          token: client.token,
          baseUrl: app.baseUrl,
          headers: { prefer: 'respond-async' },
          body: { source_payment_method_id: wallet.pm, destination_payment_method_id: destination, amount, currency: 'USD' },
        });
        assert.equal(requested.status, 202, requested.text);
        const requestCommand = requested.headers.get('x-command-id') ?? '';
        assert.ok(requestCommand, 'the 202 names its command');
        const request = await until(
          'the payout request to be done',
          async () => {
            const cmd = await commandOf(client, requestCommand);
            return cmd.state === 'done' ? cmd : undefined;
          },
          first.output,
        );
        assert.equal(request.result.status, 201, JSON.stringify(request.result));
        const payoutId: string = request.result.body.payload.payout_status_id;
        assert.equal(request.result.body.payload.payout_status, 'FUNDS-IN-ESCROW');

        let commandId: string;
        if (c.via === 'staging') {
          const accepted = await call('PATCH', `/v2/${seller.account_id}/payout/${payoutId}`, {
            token: client.token,
            baseUrl: app.baseUrl,
            headers: { prefer: 'respond-async' },
          });
          assert.equal(accepted.status, 202, accepted.text);
          commandId = accepted.headers.get('x-command-id') ?? '';
          assert.ok(commandId, 'the 202 names its command');
        } else {
          // The request submitted the execution itself (its `next`), with no one asking.
          const [execute, ...others] = await until(
            'the automatic execution to be submitted',
            async () => {
              const rows = await executeCommands(payoutId);
              return rows.length ? rows : undefined;
            },
            first.output,
          );
          assert.deepEqual(others, []);
          assert.equal(execute.input?.mode, 'auto');
          commandId = execute.id;
        }

        const death = await first.exited;
        assert.equal(death.signal, 'SIGKILL', first.output());
        const command = await commandOf(client, commandId);
        const midway = await payoutOf(client, seller.account_id, payoutId);
        assert.equal(await balance(wallet.wallet), 10_000 - amount, 'the request held the money');
        if (c.committed === 'all') {
          // All of it committed: the posting, SUCCESS, its event, the command's result.
          assert.equal(command.state, 'done');
          assert.equal(midway.payout_status, 'SUCCESS');
          assert.deepEqual(await payoutPostings(payoutId), [`payout:${payoutId}:execute`, `payout:${payoutId}:hold`]);
          assert.equal(await systemBalance(seller.integrator_id, 'payout_holding'), heldBefore);
          assert.equal(await systemBalance(seller.integrator_id, 'payout_clearing'), clearedBefore + amount);
          assert.deepEqual(await payoutEvents(payoutId), ['FUNDS-IN-ESCROW', 'SUCCESS']);
        } else {
          // Rolled back, or only the attempt committed (PROCESSING, no event yet): still held,
          // no execute posting; the command still to run.
          assert.notEqual(command.state, 'done');
          assert.equal(midway.payout_status, c.committed === 'attempt' ? 'PROCESSING' : 'FUNDS-IN-ESCROW');
          assert.deepEqual(await payoutPostings(payoutId), [`payout:${payoutId}:hold`]);
          assert.equal(await systemBalance(seller.integrator_id, 'payout_holding'), heldBefore + amount);
          assert.equal(await systemBalance(seller.integrator_id, 'payout_clearing'), clearedBefore);
          assert.deepEqual(await payoutEvents(payoutId), ['FUNDS-IN-ESCROW']);
        }
        assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

        const second = await restartedWorker(prefix);
        try {
          const done = await until(
            'the restarted worker to finish the command',
            async () => {
              const cmd = await commandOf(client, commandId);
              return cmd.state === 'done' ? cmd : undefined;
            },
            second.output,
          );
          // The job itself ends in Redis too (after-commit: the rerun answers the stored result).
          const job = await completedJob(jobs, commandId, second.output);
          assert.equal(job!.returnvalue.status, 200, JSON.stringify(job!.returnvalue));
          assert.equal(done.result.status, 200, JSON.stringify(done.result));
          assert.equal(done.result.body.payload.payout_status, 'SUCCESS');

          const payout = await payoutOf(client, seller.account_id, payoutId);
          assert.equal(payout.payout_status, 'SUCCESS');
          assert.equal(payout.failure_code, '');
          if (c.committed === 'all') assert.equal(payout.updated, midway.updated, 'the committed execution kept');
          assert.deepEqual(await payoutPostings(payoutId), [`payout:${payoutId}:execute`, `payout:${payoutId}:hold`], 'one execution');
          assert.equal(await systemBalance(seller.integrator_id, 'payout_holding'), heldBefore, 'the holding back where it was');
          assert.equal(await systemBalance(seller.integrator_id, 'payout_clearing'), clearedBefore + amount, 'paid out once');
          assert.equal(await balance(wallet.wallet), 10_000 - amount);
          assert.deepEqual(await payoutEvents(payoutId), ['FUNDS-IN-ESCROW', 'SUCCESS'], 'one payout-complete SUCCESS');
          assert.equal((await executeCommands(payoutId)).length, 1, 'one execution command');
          assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

          // Done is done: the staging shortcut now refuses, naming the state.
          const again = await call('PATCH', `/v2/${seller.account_id}/payout/${payoutId}`, { token: client.token });
          assert.equal(again.status, 409, again.text);
          assert.deepEqual(again.body.codes, ['PAYOUT_STATE_ERROR']);
          assert.deepEqual(await payoutPostings(payoutId), [`payout:${payoutId}:execute`, `payout:${payoutId}:hold`]);
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
