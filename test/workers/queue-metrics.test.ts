import assert from 'node:assert/strict';
import { Queue, Worker } from 'bullmq';
import { Registry } from 'prom-client';
import { QueueName } from '../../src/queues/names.js';
import { closeRedis, createRedis } from '../../src/queues/connection.js';
import { jobDuration, jobWait, observeJobs, registerQueueGauges } from '../../src/runtime/metrics.js';
import { h, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';

/** The scraped value of a gauge per label set, as `/metrics` would print it. */
async function scrape(registry: Registry, name: string): Promise<Map<string, number>> {
  const metric = registry.getSingleMetric(name);
  assert.ok(metric, `${name} is registered`);
  const { values } = await metric.get();
  return new Map(values.map((v) => [Object.values(v.labels).join('/'), v.value]));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('metrics: queue depth and the age of the oldest waiting job, for autoscaling', function () {
  this.timeout(20_000);

  it('reads, with no worker running, each queue’s waiting jobs and how long the oldest has waited', async () => {
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('qm')}`;
    const queues = Object.values(QueueName).map((name) => new Queue(name, { connection: h().redis, prefix }));
    const registry = new Registry();
    registerQueueGauges(queues, registry);
    const [commands, , webhooks] = queues;
    assert.equal(commands.name, QueueName.Commands);
    assert.equal(webhooks.name, QueueName.Webhooks);
    try {
      const empty = await scrape(registry, 'holdfast_queue_oldest_waiting_seconds');
      assert.deepEqual(
        [...empty.entries()],
        [
          ['commands', 0],
          ['maintenance', 0],
          ['webhooks', 0],
        ],
      );

      await commands.add('commands', { n: 1 });
      await sleep(300);
      await commands.addBulk([2, 3].map((n) => ({ name: 'commands', data: { n } })));
      await webhooks.add('webhooks', { n: 1 });
      // Delayed: not waiting yet, so neither in the depth nor in the age.
      await webhooks.add('webhooks', { n: 2 }, { delay: 60_000 });
      await sleep(200);

      const depth = await scrape(registry, 'holdfast_queue_jobs');
      assert.equal(depth.get('commands/waiting'), 3);
      assert.equal(depth.get('webhooks/waiting'), 1);
      assert.equal(depth.get('webhooks/delayed'), 1);
      assert.equal(depth.get('maintenance/waiting'), 0);

      const first = await scrape(registry, 'holdfast_queue_oldest_waiting_seconds');
      // The oldest command waited 500 ms or so (not the 200 ms of the newest), the webhook 200 ms.
      assert.ok(first.get('commands')! >= 0.45 && first.get('commands')! < 5, `commands: ${first.get('commands')}`);
      assert.ok(first.get('webhooks')! >= 0.15 && first.get('webhooks')! < first.get('commands')!, `webhooks: ${first.get('webhooks')}`);
      assert.equal(first.get('maintenance'), 0);

      await sleep(400);
      const later = await scrape(registry, 'holdfast_queue_oldest_waiting_seconds');
      assert.ok(later.get('commands')! >= first.get('commands')! + 0.35, 'the age grows while nobody takes the job');

      // Once the oldest is taken, the age is the next one's.
      const [oldest] = await commands.getJobs(['waiting'], 0, 0, true);
      assert.deepEqual(oldest.data, { n: 1 });
      await oldest.remove();
      const next = await scrape(registry, 'holdfast_queue_oldest_waiting_seconds');
      assert.ok(next.get('commands')! < later.get('commands')! - 0.25, `after the oldest left: ${next.get('commands')}`);
      assert.equal((await scrape(registry, 'holdfast_queue_jobs')).get('commands/waiting'), 2);
    } finally {
      for (const queue of queues) await queue.obliterate({ force: true });
      await Promise.all(queues.map((q) => q.close()));
    }
  });

  it('serves the age per queue at /metrics', async () => {
    const text = await (await fetch(`${h().baseUrl}/metrics`)).text();
    for (const queue of Object.values(QueueName)) {
      assert.match(text, new RegExp(`^holdfast_queue_oldest_waiting_seconds\\{queue="${queue}"\\} [0-9.e-]+$`, 'm'));
    }
    assert.match(text, /^# TYPE holdfast_queue_oldest_waiting_seconds gauge$/m);
  });
});

/** A histogram's count and sum for one label set. */
async function histogram(
  name: 'holdfast_job_wait_seconds' | 'holdfast_job_duration_seconds',
  labels: Record<string, string>,
): Promise<{ count: number; sum: number }> {
  const { values } = await (name === 'holdfast_job_wait_seconds' ? jobWait : jobDuration).get();
  const match = (metricName: string) =>
    values.find(
      (v) => v.metricName === metricName && Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l),
    )?.value ?? 0;
  return { count: match(`${name}_count`), sum: match(`${name}_sum`) };
}

describe('metrics: job wait and run time per queue, for dyno sizing', function () {
  this.timeout(20_000);

  it('records how long each job waited for a worker and how long the worker spent on it', async () => {
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('jm')}`;
    // A queue of its own: the suite's workers record their queues' jobs meanwhile.
    const name = unique('jobs');
    const queue = new Queue(name, { connection: h().redis, prefix });
    const waitBefore = await histogram('holdfast_job_wait_seconds', { queue: name });
    const ranBefore = await histogram('holdfast_job_duration_seconds', { queue: name, outcome: 'completed' });
    const failedBefore = await histogram('holdfast_job_duration_seconds', { queue: name, outcome: 'failed' });
    await queue.addBulk([
      { name: 'ok', data: {} },
      { name: 'boom', data: {} },
    ]);
    await sleep(300);
    const connection = createRedis(h().redisUrl, 'worker');
    const worker = new Worker(
      name,
      async (job) => {
        await sleep(100);
        if (job.name === 'boom') throw new Error('boom');
      },
      { connection, prefix },
    );
    observeJobs(worker, name);
    try {
      for (
        let i = 0;
        i < 50 && (await histogram('holdfast_job_duration_seconds', { queue: name, outcome: 'failed' })).count === failedBefore.count;
        i++
      )
        await sleep(100);
      const wait = await histogram('holdfast_job_wait_seconds', { queue: name });
      assert.equal(wait.count - waitBefore.count, 2);
      assert.ok(wait.sum - waitBefore.sum >= 0.55, `both waited 300 ms or more: ${wait.sum - waitBefore.sum}`);
      const ran = await histogram('holdfast_job_duration_seconds', { queue: name, outcome: 'completed' });
      assert.equal(ran.count - ranBefore.count, 1);
      assert.ok(ran.sum - ranBefore.sum >= 0.09, `ran 100 ms: ${ran.sum - ranBefore.sum}`);
      const failed = await histogram('holdfast_job_duration_seconds', { queue: name, outcome: 'failed' });
      assert.equal(failed.count - failedBefore.count, 1);
    } finally {
      await worker.close();
      await closeRedis(connection);
      await queue.obliterate({ force: true });
      await queue.close();
    }
  });
});
