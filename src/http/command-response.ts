/** How every command route answers: waits or not (`Prefer: respond-async`), then sends the command's result. */
import type { Request, Response } from 'express';
import type { CommandResult } from '../commands/command.registry.js';

/** RFC 7240: does the caller prefer an asynchronous answer? */
export function prefersAsync(req: Request): boolean {
  return String(req.headers.prefer ?? '')
    .split(',')
    .some((p) => p.trim().toLowerCase() === 'respond-async');
}

/** Runs a command with the caller's preference and sends its result (202 says `Preference-Applied`). */
export async function sendCommand(
  req: Request,
  res: Response,
  syncWaitMs: number,
  run: (opts: { respondAsync: boolean; syncWaitMs: number }) => Promise<CommandResult & { headers?: Record<string, string> }>,
): Promise<void> {
  const respondAsync = prefersAsync(req);
  const result = await run({ respondAsync, syncWaitMs });
  if (respondAsync && result.status === 202) res.set('Preference-Applied', 'respond-async');
  res
    .set(result.headers ?? {})
    .status(result.status)
    .json(result.body);
}
