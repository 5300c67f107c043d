import { Migration } from '@mikro-orm/migrations';

/**
 * KYC that stays decided: each check records who decided its state (operator, verifier or
 * user), so that an operator's CANCEL is final while a user's abandoned verification is not;
 * why and when an operator reopened it; and the identity verifier's session and its latest
 * outcome (never the documents). Every CANCEL so far was an operator's (`holdfast kyc decide`
 * was the only way to one); the deciders of other existing states are unknown and stay null.
 */
export class Migration20261128110000KycFinality extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table kyc_check
        add column decided_by varchar(16) null check (decided_by in ('operator', 'verifier', 'user')),
        add column verifier_session_id varchar(255) null,
        add column verifier_outcome varchar(16) null check (verifier_outcome in ('verified', 'requires_input', 'canceled', 'processing')),
        add column verifier_error varchar(100) null,
        add column reopen_reason varchar(500) null,
        add column reopened_at timestamptz null;`);
    this.addSql(`update kyc_check set decided_by = 'operator' where state = 'CANCEL';`);
  }
}
