/**
 * What the rest of Holdfast sees of tracing, without importing OpenTelemetry: when tracing is
 * off (no `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) nothing installs
 * the hooks and every function here is one read of an absent global. When it is on,
 * src/runtime/tracing.ts installs them before the app loads (the `--import` hook,
 * src/runtime/tracing-register.ts). Trace context travels between processes as a W3C
 * `traceparent` string: in the command row and job, the outbox row and the delivery job.
 */

/** Span attribute values Holdfast sets. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** Adds attributes to the span `inSpan` made (nothing when tracing is off). */
export type Annotate = (attributes: SpanAttributes) => void;

const NO_ANNOTATION: Annotate = () => {};

export interface TracingHooks {
  /** The active span's W3C traceparent, if a span is active. */
  traceparent(): string | undefined;
  /** The active span's ids, for log lines. */
  ids(): { trace_id: string; span_id: string } | undefined;
  /**
   * Runs `fn` in a new span named `name`: a child of `parent` (a traceparent) when given, else of
   * the active span. Ends it when `fn` settles (an error is recorded on it).
   */
  inSpan<T>(
    name: string,
    parent: string | null | undefined,
    attributes: SpanAttributes,
    fn: (annotate: Annotate) => Promise<T>,
  ): Promise<T>;
  /** BullMQ's telemetry (`bullmq-otel`), for the `telemetry` option of queues and workers. */
  bullmq: unknown;
  /** The port with each of its calls in a span `<name>.<method>` (see `tracedPort`). */
  tracePort<T extends object>(port: T, name: string): T;
  /** Exports what is buffered and stops the SDK (a process about to exit). */
  flush(): Promise<void>;
}

const KEY = Symbol.for('holdfast.tracing');

/** The installed hooks, or undefined when tracing is off. */
export function tracingHooks(): TracingHooks | undefined {
  return (globalThis as { [KEY]?: TracingHooks })[KEY];
}

/** Installs the hooks (src/runtime/tracing.ts, once, before the app loads). */
export function installTracingHooks(hooks: TracingHooks): void {
  (globalThis as { [KEY]?: TracingHooks })[KEY] = hooks;
}

/** The active span's traceparent to carry along with work (a command, an event), or undefined. */
export function currentTraceparent(): string | undefined {
  return tracingHooks()?.traceparent();
}

/** `fn` in a span (see `TracingHooks.inSpan`); just `fn()` when tracing is off. */
export function inSpan<T>(
  name: string,
  parent: string | null | undefined,
  attributes: SpanAttributes,
  fn: (annotate: Annotate) => Promise<T>,
): Promise<T> {
  const hooks = tracingHooks();
  return hooks ? hooks.inSpan(name, parent, attributes, fn) : fn(NO_ANNOTATION);
}

/**
 * A provider port (card processor, identity verifier, payout rail) whose calls are spans named
 * `<name>.<method>` (the HTTP instrumentation's client spans of the provider's API nest inside);
 * the port itself when tracing is off.
 */
export function tracedPort<T extends object>(port: T, name: string): T {
  const hooks = tracingHooks();
  return hooks ? hooks.tracePort(port, name) : port;
}

/** The `telemetry` option of a BullMQ queue or worker: BullMQ's own spans when tracing is on. */
export function queueTelemetry<T>(): { telemetry?: T } {
  const hooks = tracingHooks();
  return hooks ? { telemetry: hooks.bullmq as T } : {};
}

/** Sends the spans still buffered, when tracing is on (before a process exits). */
export async function flushTracing(): Promise<void> {
  await tracingHooks()?.flush();
}

/**
 * Whether the environment turns tracing on: an OTLP endpoint is set (traces' own or the
 * general one) and `OTEL_SDK_DISABLED` is not `true`. Unlike the SDK's default, no endpoint
 * means nothing is sent anywhere.
 */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint?.trim()) && env.OTEL_SDK_DISABLED?.trim().toLowerCase() !== 'true' && env.OTEL_TRACES_EXPORTER?.trim() !== 'none';
}
