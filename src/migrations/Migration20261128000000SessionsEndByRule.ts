import { Migration } from '@mikro-orm/migrations';

/**
 * A login block no longer revokes the account's refresh tokens row by row: a session's tokens and
 * links issued before the latest login block are refused by rule. The index that found an
 * account's live refresh tokens for that update serves no query any more and only costs writes.
 */
export class Migration20261128000000SessionsEndByRule extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index if exists refresh_token_account_idx;');
  }
}
