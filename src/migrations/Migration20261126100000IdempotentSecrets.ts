import { Migration } from '@mikro-orm/migrations';

/**
 * Answers that carry a secret (a user password token, a session nonce) are never kept for an
 * Idempotency-Key replay: the key keeps what the route chose to keep (the ids a retry needs),
 * marked `reissue`, and a replay runs the route again on those, with fresh secrets.
 */
export class Migration20261126100000IdempotentSecrets extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table idempotency_key add column reissue boolean not null default false;`);
  }
}
