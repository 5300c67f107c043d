/**
 * What went wrong reaching PostgreSQL, in one line for people: the errors a start path throws and
 * the wording of each connection failure (the cause and the variable to look at, never a stack
 * or SQL text).
 */

export class ServiceUnavailableError extends Error {}

/** The database named by the URL does not exist (and this process may not create it). */
export class DatabaseMissingError extends ServiceUnavailableError {}

/** Where a PostgreSQL URL points, for people: `host:port` or `Unix socket DIR (port N)`. */
export function postgresServer(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  const host = decodeURIComponent(url.hostname) || 'localhost';
  return host.startsWith('/') ? `Unix socket ${host} (port ${url.port || 5432})` : `${host}:${url.port || 5432}`;
}

/** Why a connection could not be made, by the network error code Node reports. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  ENOENT: 'no such socket',
  EACCES: 'permission denied on the socket',
};

/**
 * One line for a failure to connect to PostgreSQL: the cause and the variable to look at, never
 * a stack or SQL text. Undefined when the error is not about connecting (a failing query).
 * Every start path (npm start under each ROLE, the CLI) reports connection failures through this.
 */
export function describePostgresFailure(err: unknown, databaseUrl: string, variable = 'DATABASE_URL'): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as Error & { code?: unknown; errors?: Array<{ code?: unknown }> };
  // Node reports a host with several addresses (localhost: ::1 and 127.0.0.1) as an AggregateError.
  const code = typeof e.code === 'string' ? e.code : typeof e.errors?.[0]?.code === 'string' ? e.errors[0].code : undefined;
  const server = postgresServer(databaseUrl);
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const refused = (why: string) => `PostgreSQL refused the connection (${variable}): ${why}`;
  if (code && UNREACHABLE[code]) return `cannot reach PostgreSQL at ${server} (${variable}): ${UNREACHABLE[code]}`;
  if (/connection timeout/i.test(e.message))
    return `cannot reach PostgreSQL at ${server} (${variable}): no answer within ${CONNECT_TIMEOUT_MS / 1000} s`;
  if (/client password must be a string/.test(e.message)) return refused('the server asks for a password and the URL has none');
  if (/does not support SSL/i.test(e.message)) return refused('the server does not support SSL (drop sslmode from the URL)');
  if (/Connection terminated unexpectedly/.test(e.message)) return `PostgreSQL at ${server} closed the connection at once (${variable})`;
  switch (code) {
    case '3D000':
      return `database "${database}" does not exist on ${server} (${variable})`;
    case '57P03':
      return `PostgreSQL at ${server} is not accepting connections yet (${variable}): ${e.message}`;
    case '53300':
      return `PostgreSQL at ${server} has no connection slot left (${variable}): ${e.message}`;
    default:
      // 28000 (unknown role, no pg_hba.conf entry), 28P01 (wrong password), and the rest of the
      // authorization and connection classes: PostgreSQL's own sentence says which.
      if (code && /^(28|08)/.test(code)) return refused(e.message);
      return undefined;
  }
}

/** How long a PostgreSQL connection attempt may take before it counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** Whether PostgreSQL aborted a transaction for contention (deadlock, serialization failure): run it again. */
export function isContention(err: unknown): boolean {
  const code = (err as { code?: string })?.code;
  return code === '40P01' || code === '40001';
}
