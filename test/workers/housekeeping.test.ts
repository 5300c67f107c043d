import assert from 'node:assert/strict';
import type { Job } from 'bullmq';
import { purgeFinishedCommands } from '../../src/commands/command.service.js';
import { db } from '../../src/db/sql.js';
import { purgeExpiredIdempotencyKeys } from '../../src/idempotency/idempotency.repository.js';
import { MaintenanceJob } from '../../src/queues/names.js';
import pg from 'pg';
import { purgeWebhookHistory } from '../../src/webhooks/relay.service.js';
import { drain, maintenanceProcessor } from '../../workers/maintenance.processor.js';
import { h, newClient, unique } from '../support/harness.js';

/** Housekeeping at size: each purge deletes in short batches, and a run keeps going until nothing is due. */
describe('housekeeping in batches', () => {
  const conn = () => h().orm.em.fork().getConnection();
  const run = (name: MaintenanceJob) =>
    maintenanceProcessor(h().orm, h().bus, h().workers.webhookBus, { commandSweepAfterMs: 30_000, deliverySweepAfterMs: 30_000 })({
      name,
    } as Job);

  it('purges expired idempotency keys at most a batch per statement, and all of them in one run', async () => {
    const client = unique('cli_hk');
    await conn().execute(
      `insert into idempotency_key (client_id, key, request_hash, state, created_at)
       select ?, 'k' || g, 'h', 'done', now() - interval '25 hours' from generate_series(1, 12000) g`,
      [client],
    );
    await conn().execute(
      `insert into idempotency_key (client_id, key, request_hash, state, created_at) values (?, 'fresh', 'h', 'done', now())`,
      [client],
    );
    assert.equal(await purgeExpiredIdempotencyKeys(db(h().orm.em), 1000), 1000, 'one batch');
    const result = await run(MaintenanceJob.PurgeIdempotencyKeys);
    assert.ok(result.purged >= 11_000, `purged ${result.purged}`);
    const left = await conn().execute<Array<{ key: string }>>('select key from idempotency_key where client_id = ?', [client]);
    assert.deepEqual(
      left.map((r) => r.key),
      ['fresh'],
    );
  });

  it('purges finished commands past their retention, never a pending or a recent one', async () => {
    const target = unique('tgt_');
    const client = await newClient();
    const [integrator] = await conn().execute<Array<{ id: string }>>('select id from integrator where name = ?', [client.integrator]);
    const insert = (state: 'pending' | 'done', age: string, n: number) =>
      conn().execute(
        `insert into command (id, integrator_id, kind, target_id, state, input_key, result_status, result_body, updated_at)
         select ? || g, ?, 'escrow.pay', ?, ?, ? || g, ?, ?::jsonb, now() - ?::interval from generate_series(1, ?) g`,
        [
          unique(`cmd_${state}_`),
          integrator.id,
          target,
          state,
          unique('k'),
          state === 'done' ? 200 : null,
          state === 'done' ? '{}' : null,
          age,
          n,
        ],
      );
    await insert('done', '31 days', 7000);
    await insert('done', '29 days', 3);
    await insert('pending', '40 days', 2);
    assert.equal(await purgeFinishedCommands(h().orm.em.fork(), 30, 1000), 1000, 'one batch');
    const result = await run(MaintenanceJob.PurgeCommands);
    assert.ok(result.purged >= 6000, `purged ${result.purged}`);
    const left = await conn().execute<Array<{ state: string; n: string }>>(
      'select state, count(*) as n from command where target_id = ? group by state order by state',
      [target],
    );
    assert.deepEqual(
      left.map((r) => [r.state, Number(r.n)]),
      [
        ['done', 3],
        ['pending', 2],
      ],
    );
  });

  it('a run stops when a batch finds nothing, or when its time budget is spent', async () => {
    let calls = 0;
    assert.equal(await drain(async () => (++calls <= 3 ? 10 : 0)), 30);
    assert.equal(calls, 4);
    calls = 0;
    const total = await drain(async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 20));
      return 5;
    }, 50);
    assert.ok(calls >= 2 && calls <= 5, `${calls} batches in a 50 ms budget`);
    assert.equal(total, calls * 5);
  });

  /** An endpoint of a new integrator, and a way to write its old events and finished deliveries. */
  async function webhookHistory() {
    const client = await newClient();
    const [integrator] = await conn().execute<Array<{ id: string }>>('select id from integrator where name = ?', [client.integrator]);
    const endpoint = unique('whe_hk');
    await conn().execute(
      `insert into webhook_endpoint (id, integrator_id, url, events, secret, status) values (?, ?, 'https://example.com/h', '{x}', 's', 'enabled')`,
      [endpoint, integrator.id],
    );
    const event = async (relayedDaysAgo: number) => {
      const id = unique('evt_hk');
      await conn().execute(
        `insert into outbox (id, integrator_id, event_name, message, created_at, relayed_at)
         values (?, ?, 'x', '{}', now() - ? * interval '1 day', now() - ? * interval '1 day')`,
        [id, integrator.id, relayedDaysAgo, relayedDaysAgo],
      );
      return id;
    };
    const delivery = async (eventId: string, finishedDaysAgo: number) => {
      const id = unique('whd_hk');
      await conn().execute(
        `insert into webhook_delivery (id, event_id, endpoint_id, integrator_id, state, job_id, finished_at)
         values (?, ?, ?, ?, 'delivered', ?, now() - ? * interval '1 day')`,
        [id, eventId, endpoint, integrator.id, id, finishedDaysAgo],
      );
      return id;
    };
    const exists = async (table: 'outbox' | 'webhook_delivery', id: string) =>
      (await conn().execute<unknown[]>(`select 1 from ${table} where id = ?`, [id])).length === 1;
    return { event, delivery, exists };
  }

  it('purges relayed events past their retention, skipping (not waiting on) an older one a delivery still needs', async () => {
    const w = await webhookHistory();
    // The oldest event was replayed: its delivery finished yesterday, so it stays another month.
    const needed = await w.event(5002);
    await w.delivery(needed, 1);
    const free = await w.event(5001);
    // One event per call: the one no delivery needs goes, behind the one that must wait.
    await purgeWebhookHistory(h().orm.em.fork(), 30, 1);
    assert.deepEqual([await w.exists('outbox', needed), await w.exists('outbox', free)], [true, false]);
  });

  it('purges finished deliveries without waiting on one locked meanwhile (a replay making it pending)', async () => {
    const w = await webhookHistory();
    const locked = await w.delivery(await w.event(6002), 6002);
    const other = await w.delivery(await w.event(6001), 6001);
    const replay = new pg.Client({ connectionString: h().databaseUrl });
    await replay.connect();
    try {
      await replay.query('begin');
      await replay.query('select 1 from webhook_delivery where id = $1 for update', [locked]);
      // Two a call: the locked one is skipped, the other goes; the call does not wait for the lock.
      await purgeWebhookHistory(h().orm.em.fork(), 30, 2);
      assert.deepEqual([await w.exists('webhook_delivery', locked), await w.exists('webhook_delivery', other)], [true, false]);
    } finally {
      await replay.query('rollback');
      await replay.end();
    }
  });
});
