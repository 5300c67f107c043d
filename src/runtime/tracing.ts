/**
 * OpenTelemetry tracing, loaded only when tracing is on (src/runtime/tracing-register.ts decides):
 * the Node SDK with the HTTP, Express, PostgreSQL (`pg`) and ioredis instrumentations and
 * BullMQ's own telemetry (`bullmq-otel`), exporting over OTLP. Everything is configured by the
 * standard `OTEL_*` variables: the endpoint, `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`,
 * `http/json` or `grpc`), headers, `OTEL_SERVICE_NAME` (default `holdfast`, or `holdfast-worker`
 * for ROLE=worker), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER`… docs/operations.md lists them.
 */
import { register } from 'node:module';
import { context, propagation, ROOT_CONTEXT, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { installTracingHooks, type SpanAttributes } from './tracing-hooks.js';

/** The modules the instrumentations patch. */
const INSTRUMENTED = ['http', 'https', 'node:http', 'node:https', 'express', 'pg', 'pg-pool', 'ioredis'];

/** Paths whose requests are not traced: probes and scrapes, every few seconds. */
const UNTRACED = /^\/(healthz|readyz|metrics)(\?|$)/;

function traceparentOf(span: Span | undefined): string | undefined {
  const sc = span?.spanContext();
  if (!sc || !trace.isSpanContextValid(sc)) return undefined;
  return `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1) === 1 ? '01' : '00'}`;
}

/** Starts the SDK and installs the hooks; resolves once the instrumentations are in place. */
export async function startTracing(): Promise<void> {
  // ES modules are patched through import-in-the-middle's loader hooks (only the modules the
  // instrumentations patch: wrapping every module breaks some, MikroORM's among them); CommonJS
  // through require.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url, { data: { include: INSTRUMENTED } });
  const [
    { NodeSDK },
    { HttpInstrumentation },
    { ExpressInstrumentation, ExpressLayerType },
    { PgInstrumentation },
    { IORedisInstrumentation },
    { BullMQOtel },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('bullmq-otel'),
  ]);
  if (!process.env.OTEL_SERVICE_NAME) process.env.OTEL_SERVICE_NAME = process.env.ROLE === 'worker' ? 'holdfast-worker' : 'holdfast';
  const sdk = new NodeSDK({
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? ''),
        // The request id every answer carries (X-Request-Id): a 5xx's id, from a log line or the
        // client, finds its trace.
        applyCustomAttributesOnSpan: (span, _req, res) => {
          const id = 'getHeader' in res ? res.getHeader('x-request-id') : undefined;
          if (typeof id === 'string') span.setAttribute('holdfast.request_id', id);
        },
      }),
      // The handler's span only: a span per middleware and router (twenty-odd per request, most
      // of them a router that does not match) made up four spans in five and most of tracing's cost.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // Only inside a trace: the relay's poll and BullMQ's Redis loop would otherwise each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  const tracer = trace.getTracer('holdfast');
  installTracingHooks({
    traceparent: () => traceparentOf(trace.getActiveSpan()),
    ids() {
      const sc = trace.getActiveSpan()?.spanContext();
      return sc && trace.isSpanContextValid(sc) ? { trace_id: sc.traceId, span_id: sc.spanId } : undefined;
    },
    inSpan(name, parent, attributes: SpanAttributes, fn) {
      const base = parent ? propagation.extract(ROOT_CONTEXT, { traceparent: parent }) : context.active();
      return tracer.startActiveSpan(name, { attributes }, base, async (span) => {
        try {
          return await fn((more) => span.setAttributes(more));
        } catch (err) {
          span.recordException(err as Error);
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw err;
        } finally {
          span.end();
        }
      });
    },
    bullmq: new BullMQOtel({ tracerName: 'holdfast-bullmq' }),
    tracePort(port, name) {
      return new Proxy(port, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver);
          if (typeof value !== 'function' || typeof key !== 'string' || key === 'constructor') return value;
          return (...args: unknown[]) => {
            const span = tracer.startSpan(`${name}.${key}`, { attributes: { 'holdfast.rail': name } });
            const end = (err?: unknown) => {
              if (err !== undefined) {
                span.recordException(err as Error);
                span.setStatus({ code: SpanStatusCode.ERROR });
              }
              span.end();
            };
            let result: unknown;
            try {
              result = context.with(trace.setSpan(context.active(), span), () => value.apply(target, args));
            } catch (err) {
              end(err);
              throw err;
            }
            if (result instanceof Promise)
              return result.then(
                (v) => {
                  end();
                  return v;
                },
                (err) => {
                  end(err);
                  throw err;
                },
              );
            end();
            return result;
          };
        },
      });
    },
    // What is still buffered goes out before the process exits (a stop calls this, then exits).
    flush: () => sdk.shutdown().catch(() => undefined),
  });
}
