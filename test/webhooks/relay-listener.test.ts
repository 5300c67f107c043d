import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ensureDatabase, migrate, openOrm } from '../../src/db/orm.js';
import { createRedis } from '../../src/queues/connection.js';
import { WebhookBus } from '../../src/queues/webhook-bus.js';
import { LISTEN_RETRY_MS, LISTENER_NAME, startOutboxRelay } from '../../workers/outbox-relay.js';
import { dropDatabase, h, scratchDatabase, TEST_QUEUE_PREFIX, unique, withDatabase } from '../support/harness.js';

const DATABASE = scratchDatabase('relay');

describe('outbox relay listener', function () {
  this.timeout(60_000);

  it('listens again after its connection is lost (a PostgreSQL restart, a failover), saying so once each way', async () => {
    // A relay of its own on a database of its own: the suite's relay keeps listening undisturbed.
    await dropDatabase(DATABASE);
    const url = withDatabase(h().databaseUrl, DATABASE);
    await ensureDatabase(url);
    const orm = await openOrm(url, 2);
    await migrate(orm);
    const lines: Array<{ msg: string }> = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _enc, done) {
          lines.push(JSON.parse(String(chunk)));
          done();
        },
      }),
    );
    const redis = createRedis(h().redisUrl, 'producer');
    const bus = new WebhookBus(redis, `${TEST_QUEUE_PREFIX}-${unique('relay')}`);
    const relay = await startOutboxRelay(orm, url, bus, logger);
    const db = h().orm.em.fork().getConnection();
    const listeners = async () =>
      (
        await db.execute<Array<{ pid: number }>>(
          `select pid from pg_stat_activity where datname = ? and application_name = ? and query = 'listen holdfast_outbox'`,
          [DATABASE, LISTENER_NAME],
        )
      ).map((r) => r.pid);
    try {
      const before = await listeners();
      assert.equal(before.length, 1, 'the relay listens');
      await db.execute('select pg_terminate_backend(?)', [before[0]]);
      const deadline = Date.now() + LISTEN_RETRY_MS * 3;
      let after: number[] = [];
      while (Date.now() < deadline) {
        after = (await listeners()).filter((pid) => !before.includes(pid));
        if (after.length && lines.some((l) => l.msg === 'outbox listener back')) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      assert.equal(after.length, 1, 'a new connection listens');
      assert.equal(lines.filter((l) => l.msg === 'outbox listener lost; polling until it is back').length, 1);
      assert.equal(lines.filter((l) => l.msg === 'outbox listener back').length, 1);
    } finally {
      await relay.close();
      await bus.close();
      await redis.quit();
      await orm.close();
      await dropDatabase(DATABASE);
    }
  });
});
