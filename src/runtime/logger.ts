/**
 * The process logger: pino JSON lines. Credentials never reach it: authorization headers,
 * secrets and tokens are redacted wherever they appear in a logged object.
 */
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string, name: string): Logger {
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
  });
}
