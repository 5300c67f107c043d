/**
 * Ending an account's user sessions. Apart from user-session.service (which checks blocks before
 * it opens a session), so that issuing a login block can end sessions without a cycle.
 */
import type { Executor } from '../db/sql.js';

/** Ends every user session of an account (its refresh tokens), in the caller's transaction. */
export async function revokeUserSessions(db: Executor, accountId: string): Promise<void> {
  await db.execute('update refresh_token set revoked_at = now() where account_id = ? and revoked_at is null', [accountId]);
}
