import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeRedisError, isConnectionFailure, queueErrors } from '../../src/queues/connection.js';
import { createLogger } from '../../src/runtime/logger.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('Redis connection failures', () => {
  const failures: Array<[string, Error]> = [
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED')],
    ['a closed connection', new Error('Connection is closed.')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a timeout', withCode('connect ETIMEDOUT', 'ETIMEDOUT')],
    ['an unknown host', withCode('getaddrinfo ENOTFOUND redis', 'ENOTFOUND')],
    ['retries given up', Object.assign(new Error('Reached the max retries per request limit'), { name: 'MaxRetriesPerRequestError' })],
  ];
  for (const [what, err] of failures) {
    it(`counts ${what} as Redis being unreachable`, () => assert.equal(isConnectionFailure(err), true));
  }

  it('does not count other errors', () => {
    assert.equal(isConnectionFailure(new Error('Missing key for job 1. moveToFinished')), false);
    assert.equal(isConnectionFailure(withCode('ERR unknown command', 'ERR')), false);
  });

  it('leaves connection failures to the outage report and logs the rest, without a stack', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'hf-log-')), 'out.log');
    const logger = createLogger('info', 'holdfast-test', file);
    const onError = queueErrors(logger, 'commands');
    onError(withCode('read ECONNRESET', 'ECONNRESET'));
    onError(new Error('Missing key for job 1. moveToFinished'));
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.msg, l.queue, l.err]),
      [['queue error', 'commands', { type: 'Error', message: 'Missing key for job 1. moveToFinished' }]],
    );
  });

  it("says why a cluster reached none of its nodes: the last node's error, which ioredis keeps aside", () => {
    const refused = Object.assign(new Error('WRONGPASS invalid username-password pair or user is disabled.'), { name: 'ReplyError' });
    const allFailed = Object.assign(new Error('Failed to refresh slots cache.'), { name: 'ClusterAllFailedError', lastNodeError: refused });
    assert.deepEqual(describeRedisError(allFailed), {
      type: 'ClusterAllFailedError',
      code: undefined,
      message: 'Failed to refresh slots cache. Last node error: WRONGPASS invalid username-password pair or user is disabled.',
    });
    assert.deepEqual(describeRedisError(refused), {
      type: 'ReplyError',
      code: undefined,
      message: 'WRONGPASS invalid username-password pair or user is disabled.',
    });
  });
});
