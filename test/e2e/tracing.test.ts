/**
 * Tracing as the user runs it: Holdfast started as `npm start` starts it, with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at an OTLP/HTTP receiver in this process
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`). One escrow pay is one trace across the HTTP request,
 * the command's worker, PostgreSQL and the webhook delivery; a command requeued by the sweeper
 * joins the trace of the request that made it; without the variable nothing is sent.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { Queue } from 'bullmq';
import { call, dropDatabase, h, scratchDatabase, unique, withDatabase } from '../support/harness.js';
import { removeFolders, type Started, startHoldfast, until } from '../support/holdfast-process.js';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  service: string;
}

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
const anyValue = (v: AnyValue) => v.stringValue ?? v.intValue ?? v.boolValue ?? v.doubleValue;
const attrs = (list: KeyValue[] = []) => Object.fromEntries(list.map((a) => [a.key, anyValue(a.value)]));

/** An OTLP/HTTP receiver (JSON): every span posted to /v1/traces. */
async function startReceiver(): Promise<{ server: Server; url: string; spans: Span[]; posts: () => number }> {
  const spans: Span[] = [];
  let posts = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => {
      body += d;
    });
    req.on('end', () => {
      posts++;
      if (req.url === '/v1/traces' && req.method === 'POST') {
        const parsed = JSON.parse(body) as {
          resourceSpans: Array<{
            resource: { attributes: KeyValue[] };
            scopeSpans: Array<{ spans: Array<Omit<Span, 'attributes' | 'service'> & { attributes: KeyValue[] }> }>;
          }>;
        };
        for (const rs of parsed.resourceSpans ?? []) {
          const service = String(attrs(rs.resource.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({ ...s, parentSpanId: s.parentSpanId || undefined, attributes: attrs(s.attributes), service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return { server, url: `http://127.0.0.1:${port}`, spans, posts: () => posts };
}

/** A webhook receiver counting deliveries. */
async function startHooks(): Promise<{ server: Server; url: string; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume().on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, received: () => received };
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function up(holdfast: Started): Promise<void> {
  await Promise.race([
    until('the banner', () => (holdfast.stdout().includes('Holdfast is up') ? true : undefined), 90_000),
    holdfast.exited.then((code) => {
      throw new Error(`Holdfast exited (${code}) before its banner: ${holdfast.stderr()}`);
    }),
  ]);
}

/** A token of the staging demo client the banner prints. */
async function demoToken(holdfast: Started, base: string): Promise<string> {
  const id = /CLIENT_ID=(\S+)/.exec(holdfast.stdout())?.[1];
  const secret = /CLIENT_SECRET=(\S+)/.exec(holdfast.stdout())?.[1];
  assert.ok(id && secret, 'the banner names the demo client');
  const res = await call('POST', '/token', {
    baseUrl: base,
    rawBody: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.status, 200, res.text);
  return res.body.access_token;
}

/** A buyer with a card and a seller's wallet; an escrow of the buyer's paying the seller. */
async function openEscrow(base: string, token: string): Promise<string> {
  const api = (method: string, path: string, body?: unknown) => call(method, path, { baseUrl: base, token, body });
  const n = unique('t');
  const buyer = (await api('POST', '/register', { username: `buyer-${n}`, email: { address: `buyer-${n}@example.com` } })).body.payload;
  const seller = (await api('POST', '/register', { username: `seller-${n}`, email: { address: `seller-${n}@example.com` } })).body.payload;
  const card = await api('POST', `/v1/${buyer.account_id}/payment_methods`, {
    type: 'card',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
  });
  assert.equal(card.status, 201, card.text);
  const methods = await api('GET', `/v1/${seller.account_id}/payment_methods`);
  const wallet = methods.body.payload.find((m: { provider: string }) => m.provider === 'wallet').provider_data.wallet_id;
  const escrow = await api('POST', '/v2/escrow', {
    account_id: buyer.account_id,
    reference_type: 'order',
    reference_id: n,
    payment_methods: [{ payment_method_id: card.body.payload.id, amount: 0 }],
    line_items: [
      {
        amount: 1550,
        currency: 'USD',
        transaction_type: 'user_to_user',
        product_sku: 'sword-1',
        recipients: [{ amount: 1200, currency: 'USD', destination_wallet_id: wallet }],
      },
    ],
  });
  assert.equal(escrow.status, 201, escrow.text);
  return escrow.body.payload.id;
}

const isPostgres = (s: Span) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql';
const SERVER = 2;

/** Whether `span` descends from `ancestor` among `spans`. */
function under(spans: Span[], span: Span, ancestor: Span): boolean {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (let s: Span | undefined = span; s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined)
    if (s.spanId === ancestor.spanId) return true;
  return false;
}

describe('tracing (OpenTelemetry, OTLP/HTTP)', function () {
  this.timeout(180_000);
  const database = scratchDatabase('tracing');
  const env = () => ({ DATABASE_URL: withDatabase(h().databaseUrl, database), REDIS_URL: h().redisUrl, LOG_LEVEL: 'info' });
  const started: Started[] = [];
  const servers: Server[] = [];

  after(async () => {
    for (const s of started) await s.stop();
    for (const s of servers) s.close();
    removeFolders();
    await dropDatabase(database);
  });

  it('one escrow pay is one trace: HTTP, the command worker, PostgreSQL, the webhook delivery; logs carry its ids', async () => {
    const otlp = await startReceiver();
    const hooks = await startHooks();
    servers.push(otlp.server, hooks.server);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const holdfast = startHoldfast(
      {
        ...env(),
        PORT: String(port),
        PUBLIC_URL: base,
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '200',
      },
      170_000,
    );
    started.push(holdfast);
    await up(holdfast);
    const token = await demoToken(holdfast, base);
    const hook = await call('POST', '/v2/webhooks', {
      baseUrl: base,
      token,
      body: { url: hooks.url, events: ['escrow-transaction-update'] },
    });
    assert.equal(hook.status, 201, hook.text);
    const escrowId = await openEscrow(base, token);
    const paid = await call('POST', `/v2/escrow/${escrowId}/pay`, { baseUrl: base, token });
    assert.equal(paid.status, 200, paid.text);
    const requestId = paid.headers.get('x-request-id');
    await until('a webhook delivery', () => (hooks.received() > 0 ? true : undefined), 30_000);

    const found = await until(
      'the pay trace with its delivery',
      () => {
        const server = otlp.spans.find((s) => s.kind === SERVER && s.attributes['holdfast.request_id'] === requestId);
        if (!server) return undefined;
        const trace = otlp.spans.filter((s) => s.traceId === server.traceId);
        const command = trace.find((s) => s.name === 'command escrow.pay');
        const delivery = trace.find((s) => s.name === 'webhook delivery');
        return command && delivery ? { server, trace, command, delivery } : undefined;
      },
      30_000,
    );
    const { server, trace, command, delivery } = found;
    assert.ok(under(trace, command, server), 'the command runs under the request');
    assert.ok(
      trace.some((s) => isPostgres(s) && under(trace, s, command)),
      `a PostgreSQL span in the command's run: ${trace.map((s) => s.name).join(', ')}`,
    );
    assert.ok(
      trace.some((s) => s.name === 'outbox relay'),
      'the outbox relay',
    );
    assert.equal(delivery.attributes['holdfast.outcome'], 'delivered');
    // Express gives the route's handler a span, not each middleware and router it passes (twenty-odd).
    const express = trace.filter((s) => s.attributes['express.type'] !== undefined).map((s) => `${s.attributes['express.type']} ${s.name}`);
    assert.ok(express.length > 0 && express.every((name) => name.startsWith('request_handler')), express.join(', '));
    assert.ok(
      trace.some((s) => isPostgres(s) && under(trace, s, server)),
      'the request itself reads and writes PostgreSQL in its trace',
    );
    // Log lines written inside the trace carry its ids.
    await until('a log line of the trace', () => (holdfast.stdout().includes(`"trace_id":"${server.traceId}"`) ? true : undefined), 10_000);
  });

  it('a command requeued by the sweeper joins the trace of the request that made it', async () => {
    const otlp = await startReceiver();
    servers.push(otlp.server);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const prefix = `{holdfast-trace-${unique('q')}}`;
    const tracing = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      QUEUE_PREFIX: prefix,
      COMMAND_SWEEP_AFTER_MS: '1000',
      COMMAND_SWEEP_EVERY_MS: '300',
    };
    // No worker serves commands here: the pay's job waits until the test loses it.
    const web = startHoldfast(
      { ...env(), ...tracing, PORT: String(port), PUBLIC_URL: base, WORKER_QUEUES: 'maintenance,webhooks' },
      170_000,
    );
    started.push(web);
    await up(web);
    const token = await demoToken(web, base);
    const escrowId = await openEscrow(base, token);
    const paid = await call('POST', `/v2/escrow/${escrowId}/pay`, { baseUrl: base, token, headers: { prefer: 'respond-async' } });
    assert.equal(paid.status, 202, paid.text);
    const commandId = paid.headers.get('x-command-id')!;
    const requestId = paid.headers.get('x-request-id');
    const queue = new Queue('commands', { connection: { url: h().redisUrl }, prefix });
    try {
      for (let i = 0; i < 50 && !(await queue.getJob(commandId)); i++) await new Promise((r) => setTimeout(r, 100));
      // The job is lost (a flush, a failover): only the command row says it is pending.
      await queue.remove(commandId);
    } finally {
      await queue.close();
    }
    const worker = startHoldfast({ ...env(), ...tracing, ROLE: 'worker', WORKER_QUEUES: 'commands' }, 170_000);
    started.push(worker);
    const found = await until(
      'the requeued command in the request trace',
      () => {
        const server = otlp.spans.find((s) => s.kind === SERVER && s.attributes['holdfast.request_id'] === requestId);
        const command = otlp.spans.find((s) => s.name === 'command escrow.pay' && s.attributes['holdfast.command_id'] === commandId);
        return server && command ? { server, command } : undefined;
      },
      60_000,
    );
    assert.equal(found.command.traceId, found.server.traceId);
    assert.equal(found.command.service, 'holdfast-worker');
  });

  it('without an OTLP endpoint nothing is sent', async () => {
    const otlp = await startReceiver();
    servers.push(otlp.server);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const holdfast = startHoldfast({ ...env(), PORT: String(port), PUBLIC_URL: base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, 170_000);
    started.push(holdfast);
    await up(holdfast);
    const token = await demoToken(holdfast, base);
    const escrowId = await openEscrow(base, token);
    assert.equal((await call('POST', `/v2/escrow/${escrowId}/pay`, { baseUrl: base, token })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(otlp.posts(), 0);
    assert.doesNotMatch(holdfast.stdout(), /"trace_id"/);
  });
});
