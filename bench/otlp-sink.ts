/**
 * A stand-in OpenTelemetry collector for `BENCH_TRACING=1` (bench/support.ts): an OTLP/HTTP
 * receiver on 127.0.0.1 that answers every export with 200 and an empty response, as a collector
 * that accepted it does, and counts exports and bytes (and spans, when they come as
 * `http/json`, by scope and span name). `GET /received` answers the counts. Child mode only: prints `{"port":…}`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const counts = { exports: 0, bytes: 0, spans: null as number | null, byName: {} as Record<string, number> };

/** Counts the spans of a JSON export, by scope and name (`express: middleware - query`). */
function spansOf(body: Buffer): number {
  const parsed = JSON.parse(body.toString('utf8')) as {
    resourceSpans?: Array<{ scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<{ name?: string }> }> }>;
  };
  let n = 0;
  for (const resource of parsed.resourceSpans ?? [])
    for (const scope of resource.scopeSpans ?? [])
      for (const span of scope.spans ?? []) {
        n++;
        const key = `${(scope.scope?.name ?? '').replace('@opentelemetry/instrumentation-', '')}: ${span.name ?? ''}`;
        counts.byName[key] = (counts.byName[key] ?? 0) + 1;
      }
  return n;
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    if (req.method === 'GET' && req.url === '/received') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(counts));
      return;
    }
    const body = Buffer.concat(chunks);
    counts.exports++;
    counts.bytes += body.length;
    const json = (req.headers['content-type'] ?? '').includes('json');
    if (json) counts.spans = (counts.spans ?? 0) + spansOf(body);
    res.setHeader('content-type', json ? 'application/json' : 'application/x-protobuf');
    res.end(json ? '{}' : '');
  });
});

if (process.argv.includes('--serve')) {
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
  // Gone with the bench that started it, however that one ended (its end of the pipe closes).
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
