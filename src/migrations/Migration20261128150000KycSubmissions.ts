import { Migration } from '@mikro-orm/migrations';

/**
 * Each check counts the submissions it took, so that a session-based verifier's request is
 * named by the check and the submission's number: a retried submission (its first try not
 * taken) reuses the provider's session, a later one gets a new one. Checks that already hold
 * personal data took one submission at least; more than one cannot be told now, and the
 * count only has to differ from the next one's.
 */
export class Migration20261128150000KycSubmissions extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table kyc_check add column submissions integer not null default 0 check (submissions >= 0);');
    this.addSql('update kyc_check set submissions = 1 where kyc_id in (select kyc_id from kyc_personal_data);');
  }
}
