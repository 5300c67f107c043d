/**
 * What a user session's access tokens may hold: the scopes of the token that opened the session,
 * as far as the client still holds them. A user token therefore never does more than the token
 * that opened its session, nor than its client can do now.
 */

/**
 * The scopes of an access token minted for a session. `opened` is what the session recorded
 * (the opening token's scopes); null for a session recorded before sessions kept them, which
 * gets the client's scopes, as such sessions always did. `client` is what the client holds now.
 */
export function sessionTokenScopes(opened: readonly string[] | null, client: readonly string[]): string[] {
  if (opened === null) return [...new Set(client)];
  const held = new Set(client);
  return [...new Set(opened)].filter((scope) => held.has(scope));
}
