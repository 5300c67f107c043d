import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { Queue } from 'bullmq';
import type { MikroORM } from '@mikro-orm/postgresql';
import { submitCommand } from '../../src/commands/command.service.js';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { db } from '../../src/db/sql.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { QueueName } from '../../src/queues/names.js';
import { dropDatabase, h, scratchDatabase, TEST_QUEUE_PREFIX, unique, withDatabase } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

/**
 * Worker processes started with WORKER_QUEUES serve those queues and their side jobs only. A
 * scratch database of its own (so the suite's outbox relay cannot take the events) and a queue
 * prefix of its own (so the suite's workers cannot take the jobs).
 */
describe('workers: WORKER_QUEUES chooses what a worker process serves', function () {
  this.timeout(60_000);
  const name = scratchDatabase('wq');
  const url = () => withDatabase(h().databaseUrl, name);
  const prefix = `${TEST_QUEUE_PREFIX}-${unique('wq')}`;
  let orm: MikroORM;
  let receiver: Receiver;
  let bus: CommandBus;
  const started: Array<{ child: ChildProcess; exited: Promise<unknown> }> = [];

  before(async () => {
    await dropDatabase(name);
    await ensureDatabase(url());
    orm = await openOrm(url(), 4);
    await migrate(orm);
    receiver = await startReceiver();
    bus = new CommandBus(h().redisUrl, prefix);
  });
  after(async () => {
    for (const w of started) {
      w.child.kill('SIGKILL');
      await w.exited;
    }
    await bus.close();
    await receiver.close();
    await orm.close();
    await dropDatabase(name);
  });

  function worker(queues: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/index.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: url(),
        REDIS_URL: h().redisUrl,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'info',
        WORKER_QUEUES: queues,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        DATABASE_POOL_SIZE: '3',
        COMMANDS_CONCURRENCY: '2',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    started.push({ child, exited });
    return { child, output: () => out, exited };
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, output: () => string, ms = 20_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  const commandState = async (id: string) =>
    (await orm.em.fork().execute<Array<{ state: string }>>('select state from command where id = ?', [id]))[0].state;
  const relayed = async (eventId: string) =>
    (await orm.em.fork().execute<Array<{ relayed_at: Date | null }>>('select relayed_at from outbox where id = ?', [eventId]))[0]
      .relayed_at !== null;

  it('a webhooks worker delivers events and leaves commands pending; a commands worker runs them and relays nothing', async () => {
    const em = orm.em.fork();
    const integrator = unique('int_');
    await em.execute('insert into integrator (id, name) values (?, ?)', [integrator, integrator]);
    await em.execute(
      `insert into webhook_endpoint (id, integrator_id, url, events, secret, status) values (?, ?, ?, '{invoice-completed}', 'whsec_c2VjcmV0', 'enabled')`,
      [unique('whe_'), integrator, receiver.url],
    );
    const event = async () => {
      const id = unique('evt_');
      await orm.em
        .fork()
        .execute(`insert into outbox (id, integrator_id, event_name, message) values (?, ?, 'invoice-completed', ?::jsonb)`, [
          id,
          integrator,
          JSON.stringify({ invoice_id: id }),
        ]);
      return id;
    };
    // A pay of an escrow that does not exist: a command any commands worker finishes (with 404).
    const commandId = await submitCommand(db(orm.em.fork()), { integratorId: integrator, kind: 'escrow.pay', targetId: unique('esc_') });
    assert.ok(await bus.enqueue(commandId, 'escrow.pay'));

    const hooks = worker('webhooks');
    const first = await event();
    await until(
      'the webhooks worker to deliver the event',
      async () => (receiver.received.some((r) => r.headers['webhook-id'] === first) ? true : undefined),
      hooks.output,
    );
    // It served webhooks only: the command's job still waits, its row is pending, and no
    // maintenance schedule was written (the sweepers run where `maintenance` is served).
    const commands = new Queue(QueueName.Commands, { connection: h().redis, prefix });
    const maintenance = new Queue(QueueName.Maintenance, { connection: h().redis, prefix });
    try {
      assert.equal(await (await commands.getJob(commandId))?.getState(), 'waiting');
      assert.equal(await commandState(commandId), 'pending');
      assert.deepEqual(await maintenance.getJobSchedulers(), []);

      hooks.child.kill('SIGTERM');
      assert.equal(await hooks.exited, 0, hooks.output());

      const cmds = worker('commands');
      await until(
        'the commands worker to run the command',
        async () => ((await commandState(commandId)) === 'done' ? true : undefined),
        cmds.output,
      );
      // No relay there: an event written now stays unrelayed while the commands worker runs.
      const second = await event();
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await relayed(second), false, 'a commands-only worker runs no outbox relay');
      assert.deepEqual(await maintenance.getJobSchedulers(), []);
      cmds.child.kill('SIGTERM');
      assert.equal(await cmds.exited, 0, cmds.output());
    } finally {
      await commands.close();
      await maintenance.close();
    }
  });

  it('refuses an unknown queue name at boot with one line naming WORKER_QUEUES', async () => {
    const bad = worker('commands,payments');
    assert.equal(await bad.exited, 1);
    assert.equal(
      bad.output().trim(),
      'holdfast worker: WORKER_QUEUES must list queues among commands, maintenance, webhooks, comma-separated (got "commands,payments")',
    );
  });
});
