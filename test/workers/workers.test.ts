import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { Queue, QueueEvents } from 'bullmq';
import { createRedis } from '../../src/queues/connection.js';
import { MaintenanceJob, QueueName } from '../../src/queues/names.js';
import { createLogger } from '../../src/runtime/logger.js';
import { startWorkers } from '../../workers/index.js';
import { h, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';

describe('workers', () => {
  it('purges idempotency keys older than 24 hours, and only those', async () => {
    const conn = h().orm.em.fork().getConnection();
    const oldKey = unique('old-');
    const newKey = unique('new-');
    await conn.execute(
      `insert into idempotency_key (client_id, key, request_hash, state, created_at) values ('cli_w', ?, 'h', 'done', now() - interval '25 hours'), ('cli_w', ?, 'h', 'done', now())`,
      [oldKey, newKey],
    );
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('w')}`;
    const running = await startWorkers({
      orm: h().orm,
      redisUrl: h().redisUrl,
      queuePrefix: prefix,
      logger: createLogger('silent', 't'),
      commandSweepAfterMs: 30_000,
    });
    const connection = createRedis(h().redisUrl, 'worker');
    const queue = new Queue(QueueName.Maintenance, { connection, prefix });
    const events = new QueueEvents(QueueName.Maintenance, { connection: createRedis(h().redisUrl, 'worker'), prefix });
    try {
      await events.waitUntilReady();
      const job = await queue.add(MaintenanceJob.PurgeIdempotencyKeys, {}, { removeOnComplete: { age: 60 } });
      const result = await job.waitUntilFinished(events, 10_000);
      // The schedule's first run may have purged the old key already; either way only it is gone.
      assert.equal(typeof result.purged, 'number');
      const left = await conn.execute<Array<{ key: string }>>('select key from idempotency_key where key in (?, ?)', [oldKey, newKey]);
      assert.deepEqual(
        left.map((r) => r.key),
        [newKey],
      );
      assert.ok(await queue.getJobScheduler(MaintenanceJob.PurgeIdempotencyKeys), 'the hourly schedule is registered');
    } finally {
      await running.close();
      await queue.close();
      await events.close();
      await connection.quit();
    }
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`the worker process stops cleanly on ${signal} and exits 0`, async function () {
      this.timeout(60_000);
      const child = spawn(process.execPath, ['--import', 'tsx', 'workers/index.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: h().databaseUrl,
          REDIS_URL: h().redisUrl,
          QUEUE_PREFIX: `${TEST_QUEUE_PREFIX}-${unique('p')}`,
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
      });
      child.stderr.on('data', (d) => {
        out += d;
      });
      const deadline = Date.now() + 40_000;
      while (!out.includes('workers started')) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`worker did not start: ${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const code = await new Promise<number | null>((resolve) => {
        child.once('exit', (c) => resolve(c));
        child.kill(signal);
      });
      assert.equal(code, 0, out);
      assert.match(out, /workers stopped/);
    });
  }
});
