/** Who is calling: the verified content of an access token, the tenant every use case acts for. */
export interface Principal {
  clientId: string;
  integratorId: string;
  scopes: string[];
  isOperator: boolean;
  /** The publisher's licence to unblock blocks it issued. */
  canUnblock: boolean;
  /**
   * Set for a user password token: the one account it acts for. Such a token's `scopes` are
   * those of the token that opened its session, as far as the client held them when it was
   * minted; the operations that accept it require them as they do of client tokens.
   */
  accountId?: string;
  /** A user password token's session (`sid`: its refresh-token family), which can be revoked as a whole. */
  sessionId?: string;
  /** When a verified user password token was issued (ms since the epoch, from `iat`). */
  issuedAt?: number;
}
