import assert from 'node:assert/strict';
import { createRedis } from '../../src/queues/connection.js';
import { call, startExtraApp } from '../support/harness.js';

describe('operations endpoints', () => {
  it('GET /healthz answers 200', async () => {
    const res = await call('GET', '/healthz');
    assert.equal(res.status, 200);
  });

  it('GET /readyz answers 200 when PostgreSQL and Redis answer', async () => {
    const res = await call('GET', '/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.payload.checks, { postgresql: 'ok', redis: 'ok' });
  });

  it('GET /readyz answers 503 when Redis does not answer', async () => {
    const deadRedis = createRedis('redis://127.0.0.1:1', 'producer', { retryStrategy: () => null, lazyConnect: true });
    deadRedis.on('error', () => {});
    const app = await startExtraApp({ redis: deadRedis });
    try {
      const res = await call('GET', '/readyz', { baseUrl: app.baseUrl });
      assert.equal(res.status, 503);
      assert.deepEqual(res.body.payload.checks, { postgresql: 'ok', redis: 'down' });
    } finally {
      await app.close();
      deadRedis.disconnect();
    }
  });

  it('echoes a safe X-Request-Id and makes one up otherwise', async () => {
    const given = await call('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(given.headers.get('x-request-id'), 'abc-123');
    const unsafe = await call('GET', '/healthz', { headers: { 'x-request-id': 'bad id <script>' } });
    assert.match(unsafe.headers.get('x-request-id') ?? '', /^req_[0-9A-Z]{26}$/);
    const none = await call('GET', '/healthz');
    assert.match(none.headers.get('x-request-id') ?? '', /^req_/);
  });

  it('serves the OpenAPI documents as written and the reference page', async () => {
    for (const name of ['accounts', 'auth', 'common']) {
      const res = await call('GET', `/openapi/${name}.yaml`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /yaml/);
      assert.match(res.text, /^openapi: 3\.1\.0/);
    }
    const docs = await call('GET', '/docs/', { unchecked: true });
    assert.equal(docs.status, 200);
    assert.match(docs.text, /swagger-ui/i);
  });
});
