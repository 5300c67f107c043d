import assert from 'node:assert/strict';
import { db as pooled } from '../../src/db/sql.js';
import { saveProviderObject } from '../../src/rails/provider-object.repository.js';
import { Queue, Worker } from 'bullmq';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { commandRegistry } from '../../src/commands/command.registry.js';
import { runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { db } from '../../src/db/sql.js';
import { createIntegrator, updateIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, fundPublisherWallet, systemAccount } from '../../src/ledger/ledger.service.js';
import { operatorPayoutCommand, payoutCommandRunners } from '../../src/payouts/payout.commands.js';
import { submitPayoutOutcome, type ReportedPayoutOutcome } from '../../src/payouts/payout.service.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { closeRedis, createRedis } from '../../src/queues/connection.js';
import { QueueName } from '../../src/queues/names.js';
import type { PayoutRail, PayoutSendInput } from '../../src/rails/payout-rail.port.js';
import { RailUnavailableError } from '../../src/rails/rail-unavailable.error.js';
import { sandboxPayoutRail } from '../../src/rails/sandbox-payout.adapter.js';
import { sandboxCardProcessor } from '../../src/rails/sandbox-card.adapter.js';
import { commandRunners, commandsProcessor } from '../../workers/commands.processor.js';
import { call, h, holdfastCli, newClient, TEST_QUEUE_PREFIX, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** The sandbox address whose payouts the sandbox rail takes and leaves PROCESSING (unclaimed). */
const UNCLAIMED = 'payout-unclaimed@example.com';

async function addPaypal(client: TestClient, accountId: string, email: string): Promise<string> {
  const res = await call('POST', `/v1/${accountId}/payment_methods`, { token: client.token, body: { type: 'paypal', paypal: { email } } });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  return res.body.payload.id;
}

async function systemBalance(integratorId: string, kind: 'payout_holding' | 'payout_clearing'): Promise<number> {
  const id = await systemAccount(h().orm.em.fork(), integratorId, kind, 'USD');
  return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
}

async function postings(payoutId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ reference: string }>>(`select reference from ledger_posting where reference like ? order by reference`, [
      `payout:${payoutId}:%`,
    ]);
  return rows.map((r) => r.reference.split(':')[2]!);
}

async function events(payoutId: string): Promise<string[]> {
  const rows = await h()
    .orm.em.fork()
    .execute<Array<{ message: { payout_status: string } }>>(
      `select message from outbox where event_name = 'payout-complete' and message->>'payout_status_id' = ? order by id`,
      [payoutId],
    );
  return rows.map((r) => r.message.payout_status);
}

async function stored(payoutId: string) {
  const [row] = await h()
    .orm.em.fork()
    .execute<Array<{ status: string; attempt: number; provider_status: string | null; provider_item_id: string | null }>>(
      'select status, attempt, provider_status, provider_item_id from payout where id = ?',
      [payoutId],
    );
  return row!;
}

/** A rail that records every call and answers as the sandbox does, after `failures` calls that find the provider down. */
function recordingRail(failures = 0): PayoutRail & { calls: PayoutSendInput[] } {
  const calls: PayoutSendInput[] = [];
  let down = failures;
  return {
    name: 'recording',
    calls,
    async send(input) {
      calls.push(input);
      if (down-- > 0) throw new RailUnavailableError('payouts', 'the provider timed out');
      return sandboxPayoutRail.send(input);
    },
  };
}

/** The payout status a command's result answers. */
function statusOf(result: { body: unknown } | null | undefined): string {
  assert.ok(result, 'the command has a result');
  return (result.body as { payload: { payout_status: string } }).payload.payout_status;
}

/** Submits a provider's outcome as the webhook inbox does, and runs its `payout.settle` command here. */
async function report(outcome: ReportedPayoutOutcome) {
  const submitted = await db(h().orm.em.fork()).transaction((tx) => submitPayoutOutcome(tx, outcome));
  if (!submitted) return null;
  return runCommandWith(payoutCommandRunners(sandboxPayoutRail)['payout.settle']!, h().orm.em.fork(), submitted.commandId);
}

describe('payouts on the payout rail: PROCESSING, RETURNED, payout.settle', function () {
  this.timeout(60_000);
  let client: TestClient;

  async function seller(email?: string, c: TestClient = client) {
    const p: Party = await party(c);
    await fund(p, 'USD:fiat', 10_000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(c, p.account_id, email ?? `${p.account_id.toLowerCase()}@example.com`);
    return { ...p, wallet: p.wallets['USD:fiat'], destination };
  }
  type Seller = Awaited<ReturnType<typeof seller>>;

  async function requested(s: Seller, amount: number): Promise<string> {
    const res = await call('POST', `/v2/${s.account_id}/payout`, {
      token: client.token,
      body: { source_payment_method_id: s.wallet.pm, destination_payment_method_id: s.destination, amount, currency: 'USD' },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.payload.payout_status_id;
  }

  /** A payout the (sandbox) rail took and left PROCESSING, through the staging PATCH. */
  async function processing(s: Seller, amount: number): Promise<string> {
    const id = await requested(s, amount);
    const res = await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.payout_status, 'PROCESSING');
    return id;
  }

  const outcome = (s: Seller, id: string, railOutcome: string) =>
    call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token, body: { rail_outcome: railOutcome } });

  before(async () => {
    client = await newClient();
  });

  after(async () => {
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a payout the rail took is PROCESSING: still held, its event emitted, and no longer reversible (DELETE and reject: 409)', async () => {
    const s = await seller(UNCLAIMED);
    const heldBefore = await systemBalance(s.integrator_id, 'payout_holding');
    const id = await processing(s, 700);
    assert.equal(await balance(s.wallet.wallet), 9300);
    assert.equal(await systemBalance(s.integrator_id, 'payout_holding'), heldBefore + 700, 'the money is still in payout holding');
    assert.deepEqual(await postings(id), ['hold']);
    assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'PROCESSING']);
    assert.deepEqual(await stored(id), { status: 'PROCESSING', attempt: 1, provider_status: 'PROCESSING', provider_item_id: null });

    const del = await call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token });
    assert.equal(del.status, 409, del.text);
    assert.deepEqual(del.body.codes, ['PAYOUT_STATE_ERROR']);
    const reject = await operatorPayoutCommand(h().orm.em.fork(), sandboxPayoutRail, id, 'reject');
    assert.equal(reject.status, 409, JSON.stringify(reject));
    assert.deepEqual((reject.body as { codes: string[] }).codes, ['PAYOUT_STATE_ERROR']);
    const cli = await holdfastCli(['payouts', 'reject', id, '--reason', 'checked']);
    assert.equal(cli.status, 1, cli.stdout);
    assert.match(cli.stderr, /PROCESSING/);
    // Nor is it approved or executed a second time while the rail has it.
    const again = await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token });
    assert.equal(again.status, 409, again.text);
    const approve = await operatorPayoutCommand(h().orm.em.fork(), sandboxPayoutRail, id, 'approve');
    assert.equal(approve.status, 409, JSON.stringify(approve));
    assert.equal(await balance(s.wallet.wallet), 9300);
    assert.deepEqual(await postings(id), ['hold']);
    // It counts against the open-payout limit (3 by default) as a held payout does.
    await requested(s, 100);
    await requested(s, 100);
    const fourth = await call('POST', `/v2/${s.account_id}/payout`, {
      token: client.token,
      body: { source_payment_method_id: s.wallet.pm, destination_payment_method_id: s.destination, amount: 100, currency: 'USD' },
    });
    assert.equal(fourth.status, 409, fourth.text);
    assert.deepEqual(fourth.body.codes, ['PAYOUT_LIMIT']);
  });

  it('SUCCEEDED pays a PROCESSING payout out: holding → payout clearing, SUCCESS', async () => {
    const s = await seller(UNCLAIMED);
    const id = await processing(s, 1200);
    const held = await systemBalance(s.integrator_id, 'payout_holding');
    const cleared = await systemBalance(s.integrator_id, 'payout_clearing');
    const res = await outcome(s, id, 'SUCCEEDED');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.payout_status, 'SUCCESS');
    assert.equal(res.body.payload.failure_code, '');
    assert.deepEqual(await postings(id), ['execute', 'hold']);
    assert.equal(await systemBalance(s.integrator_id, 'payout_holding'), held - 1200);
    assert.equal(await systemBalance(s.integrator_id, 'payout_clearing'), cleared + 1200);
    assert.equal(await balance(s.wallet.wallet), 8800);
    assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'SUCCESS']);
  });

  it('FAILED, BLOCKED and DENIED leave it FAILED and held; approval again is attempt 2, sender_batch_id <id>-2', async () => {
    for (const railOutcome of ['FAILED', 'BLOCKED', 'DENIED']) {
      const s = await seller(UNCLAIMED);
      const id = await processing(s, 500);
      const held = await systemBalance(s.integrator_id, 'payout_holding');
      const res = await outcome(s, id, railOutcome);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.payload.payout_status, 'FAILED', railOutcome);
      assert.equal(res.body.payload.failure_code, `payout_${railOutcome.toLowerCase()}`);
      assert.deepEqual(await postings(id), ['hold']);
      assert.equal(await systemBalance(s.integrator_id, 'payout_holding'), held, 'still held');
      assert.equal(await balance(s.wallet.wallet), 9500);
      assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'FAILED']);

      const rail = recordingRail();
      const approved = await operatorPayoutCommand(h().orm.em.fork(), rail, id, 'approve');
      assert.equal(approved.status, 200, JSON.stringify(approved));
      assert.deepEqual(
        rail.calls.map((c) => [c.senderBatchId, c.attempt, c.amount, c.currency, c.receiver]),
        [[`${id}-2`, 2, 500, 'USD', UNCLAIMED]],
      );
      assert.equal((await stored(id)).attempt, 2);
      assert.equal((approved.body as { payload: { payout_status: string; failure_code: string } }).payload.failure_code, '');
    }
  });

  it('RETURNED gives the money back to the wallet (holding → wallet, `return`), RETURNED', async () => {
    const s = await seller(UNCLAIMED);
    const id = await processing(s, 2500);
    const held = await systemBalance(s.integrator_id, 'payout_holding');
    const cleared = await systemBalance(s.integrator_id, 'payout_clearing');
    assert.equal(await balance(s.wallet.wallet), 7500);
    const res = await outcome(s, id, 'RETURNED');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.payout_status, 'RETURNED');
    assert.deepEqual(await postings(id), ['hold', 'return']);
    assert.equal(await balance(s.wallet.wallet), 10_000);
    assert.equal(await systemBalance(s.integrator_id, 'payout_holding'), held - 2500);
    assert.equal(await systemBalance(s.integrator_id, 'payout_clearing'), cleared);
    assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'RETURNED']);
    // Returned is final: no reversal, no new execution, and it no longer counts as open.
    assert.equal((await call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).status, 409);
    assert.equal((await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).status, 409);
    for (let i = 0; i < 3; i++) await requested(s, 100);
  });

  it('UNCLAIMED keeps it PROCESSING: nothing moves, no event; PayPal may still pay or return it', async () => {
    const s = await seller(UNCLAIMED);
    const id = await processing(s, 300);
    const res = await outcome(s, id, 'UNCLAIMED');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.payout_status, 'PROCESSING');
    assert.deepEqual(await postings(id), ['hold']);
    assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'PROCESSING']);
    assert.equal((await stored(id)).provider_status, 'UNCLAIMED');
    const paid = await outcome(s, id, 'SUCCEEDED');
    assert.equal(paid.body.payload.payout_status, 'SUCCESS');
    assert.deepEqual(await postings(id), ['execute', 'hold']);
  });

  it('a rail outcome for a payout that is not PROCESSING is refused by the staging PATCH (409), nothing moved', async () => {
    const s = await seller();
    const id = await requested(s, 400);
    const res = await outcome(s, id, 'SUCCEEDED');
    assert.equal(res.status, 409, res.text);
    assert.deepEqual(res.body.codes, ['PAYOUT_STATE_ERROR']);
    assert.deepEqual(await postings(id), ['hold']);
    const bad = await outcome(s, id, 'REFUNDED');
    assert.equal(bad.status, 400, bad.text);
  });

  it('outcomes from the webhook inbox move money once: duplicates, SUCCEEDED after RETURNED, an older attempt', async () => {
    const s = await seller(UNCLAIMED);
    const id = await processing(s, 800);
    // Not ours, or not an outcome: nothing submitted.
    assert.equal(await report({ status: 'SUCCEEDED', senderBatchId: 'po_NOTOURS-1' }), null);
    assert.equal(await report({ status: 'SUCCEEDED', senderBatchId: 'batch-of-someone-else' }), null);
    assert.equal(await report({ status: 'PENDING', senderBatchId: `${id}-1` }), null);
    assert.equal(await report({ status: 'SUCCEEDED', providerItemId: 'ITEM-UNKNOWN' }), null);

    const returned = { status: 'RETURNED', senderBatchId: `${id}-1`, providerBatchId: 'BATCH-1', providerItemId: `ITEM-${id}` };
    // The inbox stores PayPal's item before it reports the outcome (ledger verify checks the two agree).
    await saveProviderObject(pooled(h().orm.em.fork()), {
      provider: 'paypal',
      objectId: `ITEM-${id}`,
      objectType: 'payout_item',
      integratorId: s.integrator_id,
      holdfastRef: `payout:${id}:1`,
      snapshot: {
        payout_item_id: `ITEM-${id}`,
        transaction_status: 'RETURNED',
        payout_item: { amount: { currency: 'USD', value: '8.00' } },
      },
    });
    const first = await report(returned);
    assert.equal(first?.status, 200, JSON.stringify(first));
    const twice = await Promise.all([report(returned), report(returned)]);
    for (const r of twice) assert.equal(r?.status, 200, JSON.stringify(r));
    const late = await report({ status: 'SUCCEEDED', providerItemId: `ITEM-${id}` });
    assert.equal(statusOf(late), 'RETURNED');
    const unclaimed = await report({ status: 'UNCLAIMED', senderBatchId: `${id}-1` });
    assert.equal(statusOf(unclaimed), 'RETURNED');
    assert.deepEqual(await postings(id), ['hold', 'return']);
    assert.equal(await balance(s.wallet.wallet), 10_000);
    assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'PROCESSING', 'RETURNED']);
    const row = await stored(id);
    assert.deepEqual([row.status, row.provider_item_id], ['RETURNED', `ITEM-${id}`]);

    // Attempt 1 failed, attempt 2 is out: a late outcome of attempt 1 changes nothing.
    const t = await seller(UNCLAIMED);
    const other = await processing(t, 600);
    await report({ status: 'FAILED', senderBatchId: `${other}-1`, failureCode: 'RECEIVER_UNREGISTERED' });
    assert.equal((await stored(other)).status, 'FAILED');
    assert.equal((await operatorPayoutCommand(h().orm.em.fork(), sandboxPayoutRail, other, 'approve')).status, 200);
    assert.deepEqual([(await stored(other)).status, (await stored(other)).attempt], ['PROCESSING', 2]);
    for (const stale of ['FAILED', 'RETURNED', 'SUCCEEDED']) await report({ status: stale, senderBatchId: `${other}-1` });
    assert.equal((await stored(other)).status, 'PROCESSING', 'outcomes of attempt 1 ignored');
    assert.deepEqual(await postings(other), ['hold']);
    await report({ status: 'SUCCEEDED', senderBatchId: `${other}-2` });
    await report({ status: 'RETURNED', senderBatchId: `${other}-2` });
    assert.equal((await stored(other)).status, 'SUCCESS');
    assert.deepEqual(await postings(other), ['execute', 'hold']);
    assert.equal(await balance(t.wallet.wallet), 9400);
    assert.deepEqual(await events(other), ['FUNDS-IN-ESCROW', 'PROCESSING', 'FAILED', 'PROCESSING', 'SUCCESS']);
  });

  it('a rail that is down leaves the payout PROCESSING and the command pending; run again it sends the same attempt and pays once', async () => {
    const s = await seller();
    const id = await requested(s, 900);
    const rail = recordingRail(1);
    const first = await operatorPayoutCommand(h().orm.em.fork(), rail, id, 'approve');
    assert.equal(first.status, 202, JSON.stringify(first));
    assert.equal(statusOf(first), 'PROCESSING');
    const [pending] = await h()
      .orm.em.fork()
      .execute<Array<{ state: string }>>(`select state from command where kind = 'payout.execute' and target_id = ?`, [id]);
    assert.equal(pending!.state, 'pending');
    // The rail may have taken it: no reversal meanwhile.
    assert.equal((await call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).status, 409);
    const second = await operatorPayoutCommand(h().orm.em.fork(), rail, id, 'approve');
    assert.equal(second.status, 200, JSON.stringify(second));
    assert.equal(statusOf(second), 'SUCCESS');
    assert.deepEqual(
      rail.calls.map((c) => c.senderBatchId),
      [`${id}-1`, `${id}-1`],
    );
    // The call made again says so: the rail may have the attempt already.
    assert.deepEqual(
      rail.calls.map((c) => c.resend),
      [false, true],
    );
    assert.deepEqual(await postings(id), ['execute', 'hold']);
    assert.equal(await balance(s.wallet.wallet), 9100);
    assert.deepEqual(await events(id), ['FUNDS-IN-ESCROW', 'SUCCESS']);
    assert.equal((await stored(id)).attempt, 1);
  });

  it('a worker retries a command whose rail is down (job backoff), not failing it, and pays once', async () => {
    const s = await seller();
    const id = await requested(s, 350);
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('rail')}`;
    const bus = new CommandBus(h().redisUrl, prefix);
    const queue = new Queue(QueueName.Commands, { connection: h().redis, prefix });
    const connection = createRedis(h().redisUrl, 'worker');
    const rail = recordingRail(2);
    const worker = new Worker(
      QueueName.Commands,
      commandsProcessor(h().orm, bus, commandRegistry(commandRunners({ cards: sandboxCardProcessor, payouts: rail }))),
      {
        connection,
        prefix,
      },
    );
    try {
      const commandId = await submitCommand(db(h().orm.em.fork()), {
        integratorId: s.integrator_id,
        kind: 'payout.execute',
        targetId: id,
        input: { mode: 'approve' },
        inputKey: 'approve',
      });
      const done = bus.waitFor(commandId, 20_000, async () => null);
      await bus.enqueue(commandId, 'payout.execute');
      const result = await done;
      assert.equal(result?.status, 200, JSON.stringify(result));
      assert.equal(statusOf(result), 'SUCCESS');
      assert.deepEqual(
        rail.calls.map((c) => c.senderBatchId),
        [`${id}-1`, `${id}-1`, `${id}-1`],
      );
      // The job's own end in Redis comes just after the command's.
      const end = Date.now() + 10_000;
      while ((await (await queue.getJob(commandId))?.getState()) !== 'completed' && Date.now() < end)
        await new Promise((r) => setTimeout(r, 50));
      assert.equal((await queue.getJob(commandId))?.attemptsMade, 3, 'the job ran three times: twice failed, retried with backoff');
      assert.deepEqual(await postings(id), ['execute', 'hold']);
      assert.equal(await balance(s.wallet.wallet), 9650);
    } finally {
      await worker.close();
      await closeRedis(connection);
      await queue.obliterate({ force: true });
      await queue.close();
      await bus.close();
    }
  });

  it('a returned payout of a token conversion reverses the conversion, as a reversal does', async () => {
    const name = unique('railconv-');
    const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
    await updateIntegrator(h().orm.em.fork(), name, { conversionFeeBps: 300 });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 100_000 });
    const gems = await newClient({ integrator: name });
    const p = await party(gems);
    await fund(p, 'GEM:convertible', 1000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(gems, p.account_id, UNCLAIMED);
    const quote = await call('POST', '/v2/token/convert', {
      token: gems.token,
      body: { account_id: p.account_id, amount: 500, currency: 'GEM' },
    });
    assert.equal(quote.status, 201, quote.text);
    const exchangeId = quote.body.payload.token_exchange_id;
    assert.equal((await call('POST', `/v2/token/convert/${exchangeId}`, { token: gems.token })).status, 200);
    assert.equal(await balance(p.wallets['GEM:convertible'].wallet), 500);
    const paid = await call('POST', `/v2/${p.account_id}/payout`, {
      token: gems.token,
      body: {
        source_payment_method_id: p.wallets['USD:fiat'].pm,
        destination_payment_method_id: destination,
        amount: 194,
        currency: 'USD',
        token_exchange_id: exchangeId,
      },
    });
    assert.equal(paid.status, 201, paid.text);
    const id = paid.body.payload.payout_status_id;
    assert.equal((await call('PATCH', `/v2/${p.account_id}/payout/${id}`, { token: gems.token })).body.payload.payout_status, 'PROCESSING');
    const returned = await call('PATCH', `/v2/${p.account_id}/payout/${id}`, { token: gems.token, body: { rail_outcome: 'RETURNED' } });
    assert.equal(returned.body.payload.payout_status, 'RETURNED', returned.text);
    assert.deepEqual(await postings(id), ['hold', 'return']);
    const exchange = await call('GET', `/v2/token/convert/${exchangeId}`, { token: gems.token });
    assert.equal(exchange.body.payload.status, 'REVERSED', exchange.text);
    assert.equal(await balance(p.wallets['USD:fiat'].wallet), 0, 'the USD went back to the integrator');
    assert.equal(await balance(p.wallets['GEM:convertible'].wallet), 1000, 'the tokens are back');
  });

  it('ledger verify passes on every state and names a payout whose postings are not its state', async () => {
    const s = await seller(UNCLAIMED);
    const id = await processing(s, 100);
    await outcome(s, id, 'RETURNED');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    const broken = new Error('roll back');
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional(async (tx) => {
          // A RETURNED payout marked PROCESSING again: it has a `return` posting, and holding no longer holds it.
          await tx.execute(`update payout set status = 'PROCESSING' where id = ?`, [id]);
          const problems = (await verifyAll(tx)).problems;
          assert.ok(
            problems.some((p) => p.includes(`payout ${id} is PROCESSING but has postings [hold, return]`)),
            problems.join('\n'),
          );
          assert.ok(
            problems.some((p) => p.includes(`payout holding of integrator ${s.integrator_id}`)),
            problems.join('\n'),
          );
          throw broken;
        }),
      broken,
    );
  });
});
