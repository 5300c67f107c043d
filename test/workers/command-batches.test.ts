import assert from 'node:assert/strict';
import { Queue, Worker } from 'bullmq';
import { commandRegistry } from '../../src/commands/command.registry.js';
import { inCommandTransaction, submitCommand } from '../../src/commands/command.service.js';
import { db } from '../../src/db/sql.js';
import { escrowCommands } from '../../src/escrow/escrow.commands.js';
import { CommandBus } from '../../src/queues/command-bus.js';
import { closeRedis, createRedis } from '../../src/queues/connection.js';
import { QueueName } from '../../src/queues/names.js';
import { railAdapters } from '../../src/rails/rail-adapters.js';
import { commandRunners, commandsProcessor } from '../../workers/commands.processor.js';
import { h, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';

/**
 * Commands enqueued in one turn of the event loop travel as one BullMQ job; the worker runs
 * them at once, and a batch that fails part-way runs again without doing anything twice (each
 * command's row decides). A queue prefix of its own, so the suite's workers cannot take the jobs.
 */
describe('workers: commands enqueued together share a job', function () {
  this.timeout(30_000);
  const prefix = `${TEST_QUEUE_PREFIX}-${unique('batch')}`;
  let bus: CommandBus;
  let queue: Queue;
  let integratorId: string;

  before(async () => {
    bus = new CommandBus(h().redisUrl, prefix);
    queue = new Queue(QueueName.Commands, { connection: h().redis, prefix });
    integratorId = unique('int_');
    await h().orm.em.fork().execute('insert into integrator (id, name) values (?, ?)', [integratorId, integratorId]);
  });
  after(async () => {
    await queue.obliterate({ force: true });
    await queue.close();
    await bus.close();
  });

  const submit = () => submitCommand(db(h().orm.em.fork()), { integratorId, kind: 'escrow.pay', targetId: unique('esc_') });

  it('one command alone is its own job, under its id', async () => {
    const id = await submit();
    assert.ok(await bus.enqueue(id, 'escrow.pay'));
    const job = await queue.getJob(id);
    assert.deepEqual(job?.data, { commandId: id, kind: 'escrow.pay' });
    await job!.remove();
  });

  it('a requeued command is a job of its own under its id, even beside other enqueues of its turn', async () => {
    const [a, b, c] = [await submit(), await submit(), await submit()];
    await Promise.all([a, b, c].map((id) => bus.requeue(id, 'escrow.pay')));
    for (const id of [a, b, c])
      assert.deepEqual((await queue.getJob(id))?.data, { commandId: id, kind: 'escrow.pay' }, 'the sweeper finds it by id next time');
    // Found, it is not added again.
    await bus.requeue(a, 'escrow.pay');
    const all = await queue.getJobs(['waiting']);
    assert.equal(
      all.filter((j) => j.id === a || (j.data as { commands?: Array<{ commandId: string }> }).commands?.some((r) => r.commandId === a))
        .length,
      1,
    );
    await queue.obliterate({ force: true });
  });

  it('runs a batch at once; a failure runs it again, and each command takes effect once', async () => {
    const ids = [await submit(), await submit(), await submit()];
    const runs = new Map<string, number>();
    const effects = new Map<string, number>();
    const failOnce = new Set([ids[1]]);
    const registry = commandRegistry({
      ...commandRunners(railAdapters({ cards: 'sandbox', identity: 'sandbox', payouts: 'sandbox' })),
      escrow: {
        ...escrowCommands,
        // A stand-in pay: its effect is counted, and the second command's first run fails as a
        // lost connection would (not a refusal), after the others of its batch have started.
        'escrow.pay': (em, commandId) => {
          runs.set(commandId, (runs.get(commandId) ?? 0) + 1);
          return inCommandTransaction(em, commandId, async () => {
            if (failOnce.delete(commandId)) throw new Error('connection lost');
            effects.set(commandId, (effects.get(commandId) ?? 0) + 1);
            return { status: 200, body: { paid: commandId } };
          });
        },
      },
    });
    const answers = ids.map((id) => bus.waitFor(id, 20_000, async () => null));
    // One turn: the three (and the first again, as two requests sharing its command would).
    const enqueued = await Promise.all([...ids, ids[0]].map((id) => bus.enqueue(id, 'escrow.pay')));
    assert.deepEqual(enqueued, [true, true, true, true]);
    const waiting = await queue.getJobs(['waiting']);
    assert.equal(waiting.length, 1, 'one job for the turn');
    assert.equal(waiting[0].name, 'batch');
    assert.deepEqual(
      waiting[0].data.commands.map((c: { commandId: string }) => c.commandId),
      ids,
      'each command once',
    );

    const connection = createRedis(h().redisUrl, 'worker');
    const worker = new Worker(QueueName.Commands, commandsProcessor(h().orm, bus, registry), {
      connection,
      prefix,
      concurrency: 4,
    });
    try {
      const results = await Promise.all(answers);
      assert.deepEqual(
        results,
        ids.map((id) => ({ status: 200, body: { paid: id } })),
      );
      for (const id of ids) assert.equal(effects.get(id), 1, `${id} took effect once`);
      assert.equal(runs.get(ids[1]), 2, 'the failed command ran again');
      const job = await queue.getJob(waiting[0].id!);
      await waitUntil(async () => (await job!.getState()) === 'completed');
      assert.equal((await queue.getJob(waiting[0].id!))!.attemptsMade, 2, 'the batch job ran twice');
    } finally {
      await worker.close();
      await closeRedis(connection);
    }
  });
});

async function waitUntil(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}
