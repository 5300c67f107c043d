/**
 * Ending an account's user sessions. Apart from user-session.service (which checks blocks before
 * it opens a session), so that issuing a login block can end sessions without a cycle. The
 * access tokens already issued need nothing here: one issued before the account's latest login
 * block is refused (`userSessionState`), even once the block is lifted.
 */
import type { Db } from '../db/sql.js';
import { expireAccountSessionNonces, revokeAccountRefreshTokens } from './user-session.repository.js';

/**
 * Ends every user session of an account, in the caller's transaction: its refresh tokens, and
 * the redirect links (hosted-page and widget nonces) not yet opened, which would otherwise open a
 * fresh session once the block is lifted.
 */
export async function revokeUserSessions(db: Db, accountId: string): Promise<void> {
  await revokeAccountRefreshTokens(db, accountId);
  await expireAccountSessionNonces(db, accountId);
}
