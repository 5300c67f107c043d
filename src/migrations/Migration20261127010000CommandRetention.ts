import { Migration } from '@mikro-orm/migrations';

/** Finished commands are purged after their retention: found oldest first by this index. */
export class Migration20261127010000CommandRetention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index command_done_idx on command (updated_at) where state = 'done';`);
  }
}
