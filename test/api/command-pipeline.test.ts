import assert from 'node:assert/strict';
import { db } from '../../src/db/sql.js';
import { commandResult, runCommandWith, submitCommand } from '../../src/commands/command.service.js';
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
});
