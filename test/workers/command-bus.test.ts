import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { CommandBus } from '../../src/queues/command-bus.js';
import { h, TEST_QUEUE_PREFIX, unique } from '../support/harness.js';

/** A probe that never finds the command done: only the worker's announcement can answer the wait. */
const never = async () => null;

describe('command results reach the waiting request', () => {
  it('from a worker of the same process, without Redis in between', async () => {
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('bus')}`;
    const web = new CommandBus(h().redisUrl, prefix);
    const worker = new CommandBus(h().redisUrl, prefix);
    try {
      const waiting = web.waitFor('cmd_local', 5_000, never);
      worker.finished('cmd_local', { status: 200, body: { payload: 'done here' } });
      assert.deepEqual(await waiting, { status: 200, body: { payload: 'done here' } });
    } finally {
      await web.close();
      await worker.close();
    }
  });

  it('from a worker of another process (announced through Redis)', async function () {
    this.timeout(30_000);
    const prefix = `${TEST_QUEUE_PREFIX}-${unique('bus')}`;
    const web = new CommandBus(h().redisUrl, prefix);
    try {
      const waiting = web.waitFor('cmd_remote', 20_000, never);
      await new Promise((resolve) => setTimeout(resolve, 300)); // the subscription is made
      const script = `
        const { CommandBus } = await import('./src/queues/command-bus.ts');
        const bus = new CommandBus(process.env.REDIS_URL, process.env.PREFIX);
        bus.finished('cmd_remote', { status: 201, body: { payload: 'done elsewhere' } });
        await new Promise((resolve) => setTimeout(resolve, 100));
        await bus.close();`;
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, REDIS_URL: h().redisUrl, PREFIX: prefix },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr!.on('data', (d) => {
        stderr += d;
      });
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 0, stderr);
      assert.deepEqual(await waiting, { status: 201, body: { payload: 'done elsewhere' } });
    } finally {
      await web.close();
    }
  });

  it('a wait whose command is never announced ends with what the probe finds', async () => {
    const bus = new CommandBus(h().redisUrl, `${TEST_QUEUE_PREFIX}-${unique('bus')}`);
    try {
      assert.equal(await bus.waitFor('cmd_silent', 300, never), null);
      let looks = 0;
      const found = await bus.waitFor('cmd_polled', 5_000, async () => (++looks >= 2 ? { status: 200, body: 'from the row' } : null));
      assert.deepEqual(found, { status: 200, body: 'from the row' });
    } finally {
      await bus.close();
    }
  });
});
