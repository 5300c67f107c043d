/**
 * What of an unexpected error may be logged: its type, a code, and its message unless the
 * error comes from the database driver (whose messages carry SQL text). Never a stack trace.
 */
export function describeError(err: unknown): { type: string; code?: string; message?: string } {
  if (!(err instanceof Error)) return { type: typeof err };
  const e = err as Error & { code?: unknown; sqlState?: unknown };
  const code = typeof e.code === 'string' ? e.code : typeof e.sqlState === 'string' ? e.sqlState : undefined;
  const fromDatabase = e.name.endsWith('Exception') || e.sqlState !== undefined || /^[0-9A-Z]{5}$/.test(code ?? '');
  return { type: e.name, code, message: fromDatabase ? undefined : e.message.slice(0, 300) };
}
