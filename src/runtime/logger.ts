/**
 * The process logger: pino JSON lines. Credentials never reach it: authorization headers,
 * secrets and tokens are redacted wherever they appear in a logged object (access lines, whose
 * fields are fixed and hold none, go through a logger that skips that work). Errors are logged
 * without their stacks.
 */
import { pino, type Logger } from 'pino';
import { describeError } from './describe-error.js';
import { tracingHooks } from './tracing-hooks.js';

export type { Logger };

/** The access logger of each logger `createLogger` made (same stream, no redaction). */
const accessLoggers = new WeakMap<Logger, Logger>();

/**
 * A pino logger writing JSON lines to `destination` (stdout by default). Lines are buffered
 * and written asynchronously, at least every half second (a write per line costs a tenth of a
 * cheap request's time); pino flushes what is pending when the process exits.
 */
export function createLogger(level: string, name: string, destination: number | string = 1): Logger {
  const stream = pino.destination({ dest: destination, sync: false, minLength: 4096 });
  setInterval(() => {
    try {
      stream.flush();
    } catch {
      // Not ready yet (the file is still opening): the next tick writes it.
    }
  }, 500).unref();
  // With tracing on, each line names the span it was written in (`trace_id`, `span_id`); off, no mixin at all.
  const hooks = tracingHooks();
  const mixin = hooks ? () => hooks.ids() ?? {} : undefined;
  const logger = pino(
    {
      name,
      level,
      base: { pid: process.pid },
      mixin,
      // An error is logged as `describeError` says (type, code, message; never a stack), and an
      // already described one as it is: pino's own serializer would call it an `Object`.
      serializers: { err: (err: unknown) => (err instanceof Error ? describeError(err) : err) },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          '*.client_secret',
          '*.secret',
          '*.access_token',
          '*.password',
          'client_secret',
          'secret',
          'access_token',
          'password',
        ],
        censor: '[redacted]',
      },
    },
    stream,
  );
  accessLoggers.set(logger, pino({ name, level, base: { pid: process.pid }, mixin }, stream));
  return logger;
}

/**
 * Where a process writes its access lines: the same stream, without redaction. An access line
 * has fixed fields (request id, method, path without its query, status, duration) that no
 * credential can be in, and redaction cost a cheap request about 6% of its CPU. For a logger
 * made elsewhere, that logger.
 */
export function accessLogger(logger: Logger): Logger {
  return accessLoggers.get(logger) ?? logger;
}
