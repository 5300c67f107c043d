/**
 * Ending an account's user sessions. Apart from user-session.service (which checks blocks before
 * it opens a session), so that issuing a login block can end sessions without a cycle. The
 * access tokens already issued need nothing here: one issued before the account's latest login
 * block is refused (`userSessionState`), even once the block is lifted.
 */
import type { Db } from '../db/sql.js';
import { revokeAccountRefreshTokens } from './user-session.repository.js';

/** Ends every user session of an account (its refresh tokens), in the caller's transaction. */
export async function revokeUserSessions(db: Db, accountId: string): Promise<void> {
  await revokeAccountRefreshTokens(db, accountId);
}
