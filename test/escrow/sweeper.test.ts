import assert from 'node:assert/strict';
import { db } from '../../src/db/sql.js';
import type { Job } from 'bullmq';
import { submitCommand } from '../../src/commands/command.service.js';
import { MaintenanceJob } from '../../src/queues/names.js';
import { maintenanceProcessor } from '../../workers/maintenance.processor.js';
import { addCard, call, h, newClient, register } from '../support/harness.js';

describe('command sweeper', () => {
  it('finishes a command whose job never reached Redis (or was lost from it)', async () => {
    const client = await newClient();
    const buyer = await register(client);
    const card = { id: await addCard(client, buyer.account_id) };
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: card.id, amount: 0 }],
        line_items: [{ amount: 999, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const escrowId = created.body.payload.id;
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ integrator_id: string }>>('select integrator_id from escrow where id = ?', [escrowId]);
    // The web process wrote the command, then died before enqueuing its job.
    const commandId = await submitCommand(db(h().orm.em), { integratorId: row.integrator_id, kind: 'escrow.pay', targetId: escrowId });
    await h().orm.em.fork().execute(`update command set updated_at = now() - interval '1 minute' where id = ?`, [commandId]);
    assert.equal((await call('GET', `/v2/escrow/${escrowId}`, { token: client.token })).body.payload.status, 'OPEN');

    const sweep = maintenanceProcessor(h().orm, h().bus, h().workers.webhookBus, {
      commandSweepAfterMs: 30_000,
      deliverySweepAfterMs: 30_000,
    });
    const swept = await sweep({ name: MaintenanceJob.SweepCommands } as Job);
    assert.ok(swept.requeued >= 1);
    let status = 'OPEN';
    for (let i = 0; i < 100 && status === 'OPEN'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await call('GET', `/v2/escrow/${escrowId}`, { token: client.token })).body.payload.status;
    }
    assert.equal(status, 'ESCROWED');
    const [command] = await h()
      .orm.em.fork()
      .execute<Array<{ state: string; result_status: number }>>('select state, result_status from command where id = ?', [commandId]);
    assert.deepEqual(command, { state: 'done', result_status: 200 });
  });

  it('leaves recent pending commands alone', async () => {
    const client = await newClient();
    const buyer = await register(client);
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ integrator_id: string }>>('select integrator_id from account where id = ?', [buyer.account_id]);
    const commandId = await submitCommand(db(h().orm.em), {
      integratorId: row.integrator_id,
      kind: 'escrow.pay',
      targetId: 'esc_recent',
    });
    const sweep = maintenanceProcessor(h().orm, h().bus, h().workers.webhookBus, {
      commandSweepAfterMs: 60_000,
      deliverySweepAfterMs: 60_000,
    });
    await sweep({ name: MaintenanceJob.SweepCommands } as Job);
    const job = await (await import('bullmq')).Job.fromId((h().bus as unknown as { queue: import('bullmq').Queue }).queue, commandId);
    assert.equal(job, undefined);
    await h()
      .orm.em.fork()
      .execute(`update command set state = 'done', result_status = 404, result_body = 'null' where id = ?`, [commandId]);
  });
});
