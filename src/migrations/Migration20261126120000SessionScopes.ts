import { Migration } from '@mikro-orm/migrations';

/**
 * A user session remembers the scopes of the token that opened it, so that no access token of
 * the session (the first, each refresh, a hosted-page link's) ever holds a scope that token was
 * not granted. Rows written before this migration keep `scopes` null, which means "the client's
 * scopes", as those sessions were minted until then: they end on their own (a nonce in 24 h, a
 * refresh-token family in 30 days), and the opening token's scopes were never recorded.
 */
export class Migration20261126120000SessionScopes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table refresh_token add column scopes text[] null;`);
    this.addSql(`alter table user_session_nonce add column scopes text[] null;`);
  }
}
