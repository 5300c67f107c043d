import { Migration } from '@mikro-orm/migrations';

/**
 * Indexes for reading events through the API (`GET /v2/events`, `GET /v2/events/{id}`): an
 * integrator's events by time, by the account they name (`message->>'account_id'`) and time, and
 * a delivery's attempts. Without them a list scans the whole outbox and an event's attempts the
 * whole attempt table.
 */
export class Migration20261126210555EventLookups extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index outbox_integrator_created_idx on outbox (integrator_id, created_at, id);`);
    this.addSql(`create index outbox_integrator_account_idx on outbox (integrator_id, (message ->> 'account_id'), created_at, id);`);
    this.addSql(`create index webhook_attempt_delivery_idx on webhook_attempt (delivery_id, attempted_at);`);
  }
}
