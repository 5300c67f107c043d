import assert from 'node:assert/strict';
import { db } from '../../src/db/sql.js';
import {
  CONTENTION_ATTEMPTS,
  commandResult,
  inCommandTransaction,
  runCommandWith,
  submitCommand,
} from '../../src/commands/command.service.js';
import { post, systemAccount } from '../../src/ledger/ledger.service.js';
import { AppError } from '../../src/errors.js';
import { invoiceCommands } from '../../src/invoices/invoice.commands.js';
import { mergeCommands } from '../../src/merge/merge.commands.js';
import { h, newClient, unique } from '../support/harness.js';

async function pendingCommand(kind: 'invoice.pay' | 'account.merge', targetId: string, input?: Record<string, unknown>): Promise<string> {
  const client = await newClient();
  const [integrator] = await h()
    .orm.em.fork()
    .execute<Array<{ id: string }>>('select integrator_id as id from client where id = ?', [client.clientId]);
  return submitCommand(db(h().orm.em), { integratorId: integrator.id, kind, targetId, input, inputKey: unique('key') });
}

describe('command pipeline', () => {
  it('stores the AppError a runner throws as the command result, as its request would get it', async () => {
    const commandId = await pendingCommand('invoice.pay', unique('inv_gone'));
    const expected = {
      status: 404,
      body: { status: 'Failure', message: ['Invoice not found.'], codes: ['INVOICE_GET_ERROR'], payload: null },
    };
    assert.deepEqual(await runCommandWith(invoiceCommands['invoice.pay']!, h().orm.em.fork(), commandId), expected);
    assert.deepEqual(await commandResult(db(h().orm.em), commandId), expected);
    const merge = await pendingCommand('account.merge', unique('acct_gone'), { destination_account_id: unique('acct_gone') });
    assert.deepEqual(await runCommandWith(mergeCommands['account.merge']!, h().orm.em.fork(), merge), {
      status: 404,
      body: { status: 'Failure', message: ['Account not found.'], codes: ['ACCOUNT_GET_ERROR'], payload: null },
    });
  });

  it('keeps the result of a command done meanwhile rather than the refusal of a late run', async () => {
    const commandId = await pendingCommand('invoice.pay', unique('inv_gone'));
    const first = await runCommandWith(invoiceCommands['invoice.pay']!, h().orm.em.fork(), commandId);
    const late = await runCommandWith(
      async () => {
        throw new AppError('conflict', 'Too late.', { codes: ['LATE'] });
      },
      h().orm.em.fork(),
      commandId,
    );
    assert.deepEqual(late, first);
    assert.deepEqual(await commandResult(db(h().orm.em), commandId), first);
  });

  it('leaves the command pending when its runner fails otherwise, so its job retries', async () => {
    const commandId = await pendingCommand('invoice.pay', unique('inv_gone'));
    await assert.rejects(
      runCommandWith(
        async () => {
          throw new Error('connection reset');
        },
        h().orm.em.fork(),
        commandId,
      ),
      /connection reset/,
    );
    assert.equal(await commandResult(db(h().orm.em), commandId), null);
  });

  describe('the one command transaction (inCommandTransaction)', () => {
    /** A pending command of a new integrator, and that integrator's id. */
    async function commandOfNewIntegrator(): Promise<{ commandId: string; integratorId: string }> {
      const client = await newClient();
      const [{ id: integratorId }] = await h()
        .orm.em.fork()
        .execute<Array<{ id: string }>>('select integrator_id as id from client where id = ?', [client.clientId]);
      const commandId = await submitCommand(db(h().orm.em), {
        integratorId,
        kind: 'invoice.pay',
        targetId: unique('inv_t'),
        inputKey: unique('key'),
      });
      return { commandId, integratorId };
    }

    it('runs the work once: a done command answers its stored result and its work does not run again', async () => {
      const { commandId } = await commandOfNewIntegrator();
      let runs = 0;
      const work = async () => {
        runs++;
        return { status: 201, body: { made: runs } };
      };
      assert.deepEqual(await inCommandTransaction(h().orm.em.fork(), commandId, work), { status: 201, body: { made: 1 } });
      assert.deepEqual(await inCommandTransaction(h().orm.em.fork(), commandId, work), { status: 201, body: { made: 1 } });
      assert.equal(runs, 1);
      assert.deepEqual(await commandResult(db(h().orm.em), commandId), { status: 201, body: { made: 1 } });
    });

    it('rolls back everything the work wrote when it refuses; the refusal is then the stored result', async () => {
      const { commandId, integratorId } = await commandOfNewIntegrator();
      const reference = unique('test:refused');
      const card = await systemAccount(h().orm.em.fork(), integratorId, 'card_clearing', 'USD');
      const wallet = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
      const result = await runCommandWith(
        (em, id) =>
          inCommandTransaction(em, id, async (tx) => {
            await post(tx, {
              integratorId,
              reference,
              description: 'written, then refused',
              entries: [
                { account: card, currency: 'USD', amount: -5 },
                { account: wallet, currency: 'USD', amount: 5 },
              ],
            });
            throw new AppError('conflict', 'No.', { codes: ['NO'] });
          }),
        h().orm.em.fork(),
        commandId,
      );
      assert.equal(result?.status, 409);
      const [{ n }] = await h()
        .orm.em.fork()
        .execute<Array<{ n: string }>>('select count(*) as n from ledger_posting where reference = ?', [reference]);
      assert.equal(Number(n), 0, 'the posting was rolled back with the refusal');
    });

    it('writes the postings the work returns after its result, and fails the command when one was made before', async () => {
      const { commandId, integratorId } = await commandOfNewIntegrator();
      const card = await systemAccount(h().orm.em.fork(), integratorId, 'card_clearing', 'USD');
      const wallet = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
      const posting = (reference: string) => ({
        integratorId,
        reference,
        description: 'a command posting',
        entries: [
          { account: card, currency: 'USD', amount: -7 },
          { account: wallet, currency: 'USD', amount: 7 },
        ],
      });
      const taken = unique('test:taken');
      await post(db(h().orm.em), posting(taken));
      const fresh = unique('test:fresh');
      await assert.rejects(
        inCommandTransaction(h().orm.em.fork(), commandId, async () => ({
          status: 200,
          body: {},
          postings: [posting(fresh), posting(taken)],
        })),
        /a posting it makes was made before/,
      );
      assert.equal(await commandResult(db(h().orm.em), commandId), null, 'still pending: its job retries');
      const count = async (reference: string) =>
        Number(
          (
            await h()
              .orm.em.fork()
              .execute<Array<{ n: string }>>('select count(*) as n from ledger_posting where reference = ?', [reference])
          )[0].n,
        );
      assert.equal(await count(fresh), 0, 'nothing of it was written');
      assert.deepEqual(
        await inCommandTransaction(h().orm.em.fork(), commandId, async () => ({ status: 200, body: {}, postings: [posting(fresh)] })),
        {
          status: 200,
          body: {},
        },
      );
      assert.equal(await count(fresh), 1);
    });

    it('runs a transaction PostgreSQL aborts for a deadlock again at once, so both commands of the deadlock finish', async function () {
      this.timeout(20_000);
      const a = await commandOfNewIntegrator();
      const b = await commandOfNewIntegrator();
      let attempts = 0;
      // Each locks its own command row (inCommandTransaction), then the other's: a deadlock that
      // PostgreSQL breaks by aborting one of the two, which must run again, not fail its job.
      const crossing = (other: string) => async (tx: { execute: (sql: string, params: unknown[]) => Promise<unknown> }) => {
        attempts++;
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.execute('select id from command where id = ? for update', [other]);
        return { status: 200, body: { other } };
      };
      const [ra, rb] = await Promise.all([
        inCommandTransaction(h().orm.em.fork(), a.commandId, crossing(b.commandId)),
        inCommandTransaction(h().orm.em.fork(), b.commandId, crossing(a.commandId)),
      ]);
      assert.deepEqual(ra, { status: 200, body: { other: b.commandId } });
      assert.deepEqual(rb, { status: 200, body: { other: a.commandId } });
      assert.ok(attempts >= 3, `one of them ran again (${attempts} runs)`);
    });

    it(`gives up after ${CONTENTION_ATTEMPTS} aborted runs, leaving the command pending for its job's retry`, async () => {
      const { commandId } = await commandOfNewIntegrator();
      let runs = 0;
      await assert.rejects(
        inCommandTransaction(h().orm.em.fork(), commandId, async () => {
          runs++;
          throw Object.assign(new Error('could not serialize access'), { code: '40001' });
        }),
        /could not serialize/,
      );
      assert.equal(runs, CONTENTION_ATTEMPTS);
      assert.equal(await commandResult(db(h().orm.em), commandId), null);
    });
  });
});
