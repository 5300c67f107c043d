import assert from 'node:assert/strict';
import { latestDeliveries } from '../../src/webhooks/delivery.repository.js';
import { newClient } from '../support/harness.js';
import { nodes, plansOf } from '../support/plans.js';

/** The index each read of `table` goes through in these plans (sequential scans off: the plan at size). */
function indexesOn(plans: Parameters<typeof nodes>[0][], table: string): string[] {
  return plans
    .flatMap(nodes)
    .filter((n) => n['Relation Name'] === table)
    .map((n) => n['Index Name'] ?? n['Node Type']);
}

describe("the console's webhooks page reads deliveries by index (plans)", () => {
  it("an endpoint's failed deliveries by the index of failed ones alone; its latest by the endpoint's index", async () => {
    const client = await newClient();
    const failed = await plansOf((db) => latestDeliveries(db, client.integrator, { perEndpoint: 10, failedOnly: true }));
    assert.deepEqual(indexesOn(failed, 'webhook_delivery'), ['webhook_delivery_failed_idx']);
    const latest = await plansOf((db) => latestDeliveries(db, client.integrator, { perEndpoint: 10, failedOnly: false }));
    assert.deepEqual(indexesOn(latest, 'webhook_delivery'), ['webhook_delivery_endpoint_idx']);
  });
});
