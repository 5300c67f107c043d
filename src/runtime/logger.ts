/**
 * The process logger: pino JSON lines. Credentials never reach it: authorization headers,
 * secrets and tokens are redacted wherever they appear in a logged object.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

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
  return pino({
    name,
    level,
    base: { pid: process.pid },
    redact: {
      paths: [
        'req.headers.authorization', 'req.headers.cookie', '*.client_secret', '*.secret', '*.access_token',
        '*.password', 'client_secret', 'secret', 'access_token', 'password',
      ],
      censor: '[redacted]',
    },
  }, stream);
}
