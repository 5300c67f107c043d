import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { accessLogger, createLogger } from '../../src/runtime/logger.js';
import { describeError } from '../../src/runtime/describe-error.js';

describe('the process logger', () => {
  it('redacts credentials, and writes access lines to the same stream through a logger without redaction', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'hf-log-')), 'out.log');
    const logger = createLogger('info', 'holdfast-test', file);
    const access = accessLogger(logger);
    assert.notEqual(access, logger);
    logger.info({ client_secret: 's3cr3t-value', req: { headers: { authorization: 'Bearer t0ken-value' } } }, 'with credentials');
    access.info({ req_id: 'req_1', method: 'GET', path: '/v1/user-info/acct_1', status: 200, ms: 1.5 }, 'request');
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    await new Promise<void>((resolve, reject) => access.flush((err) => (err ? reject(err) : resolve())));
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /s3cr3t-value|t0ken-value/);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.equal(lines.find((l) => l.msg === 'with credentials')?.client_secret, '[redacted]');
    assert.deepEqual(
      lines.filter((l) => l.msg === 'request').map(({ name, req_id, path: p, status }) => ({ name, req_id, path: p, status })),
      [{ name: 'holdfast-test', req_id: 'req_1', path: '/v1/user-info/acct_1', status: 200 }],
    );
  });

  it('logs an error as its type, code and message, never its stack, and keeps an already described one as it is', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'hf-log-')), 'out.log');
    const logger = createLogger('info', 'holdfast-test', file);
    logger.error({ err: Object.assign(new TypeError('boom'), { code: 'E_BOOM' }) }, 'raw error');
    logger.warn({ err: describeError(new RangeError('described')) }, 'described error');
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /stack|logger\.test\.ts/);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines.find((l) => l.msg === 'raw error')?.err, { type: 'TypeError', code: 'E_BOOM', message: 'boom' });
    assert.deepEqual(lines.find((l) => l.msg === 'described error')?.err, { type: 'RangeError', message: 'described' });
  });

  it('gives a logger made elsewhere itself as its access logger', () => {
    const other = createLogger('info', 'x', '/dev/null').child({});
    assert.equal(accessLogger(other), other);
  });
});
