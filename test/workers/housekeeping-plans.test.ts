import assert from 'node:assert/strict';
import { purgeFinishedCommandRows } from '../../src/commands/command.repository.js';
import { purgeExpiredIdempotencyKeys } from '../../src/idempotency/idempotency.repository.js';
import { purgeHistory } from '../../src/webhooks/delivery.repository.js';
import { nodes, type PlanNode, plansOf } from '../support/plans.js';

/**
 * The batch is taken by `index`, and the rows deleted by `how` — their key (the primary key, `=
 * any`) or their address (a TID scan) — never by a join over the whole table.
 */
function assertBatchDelete(plan: PlanNode, table: string, index: string, how: 'key' | 'address') {
  const all = nodes(plan);
  assert.ok(
    all.some((n) => n['Index Name'] === index),
    `the batch is found by ${index}: ${all.map((n) => `${n['Node Type']} ${n['Index Name'] ?? n['Relation Name'] ?? ''}`).join(', ')}`,
  );
  assert.ok(!all.some((n) => n['Node Type'] === 'Seq Scan'), 'no sequential scan');
  const deleted = all.find((n) => n['Node Type'] === 'ModifyTable' && n['Relation Name'] === table);
  assert.ok(deleted, `a delete from ${table}`);
  const target = deleted.Plans?.find((n) => n['Parent Relationship'] !== 'InitPlan');
  assert.ok(target, 'the rows to delete');
  const found = nodes(target);
  if (how === 'key')
    assert.ok(
      found.some((n) => n['Index Name'] === `${table}_pkey` && /ANY/.test(n['Index Cond'] ?? '')) &&
        !found.some((n) => n['Index Name']?.startsWith(`${table}_`) && n['Index Name'] !== `${table}_pkey`),
      `deleted by key: ${found.map((n) => `${n['Node Type']} ${n['Index Name'] ?? ''}`).join(', ')}`,
    );
  else assert.equal(target['Node Type'], 'Tid Scan', `deleted by address: ${target['Node Type']}`);
}

describe('housekeeping keeps its cost per batch as tables grow (plans)', () => {
  const webhookPurge = () => plansOf((db) => purgeHistory(db, 30, 10_000));

  it('the webhook history purge takes its attempts oldest first by webhook_attempt_attempted_idx', async () => {
    const plans = await webhookPurge();
    assert.equal(plans.length, 3, 'three statements: attempts, deliveries, events');
    assertBatchDelete(plans[0], 'webhook_attempt', 'webhook_attempt_attempted_idx', 'key');
  });

  it('the webhook history purge takes its finished deliveries oldest first by webhook_delivery_finished_idx', async () => {
    const deliveries = (await webhookPurge())[1];
    assertBatchDelete(deliveries, 'webhook_delivery', 'webhook_delivery_finished_idx', 'key');
    // A delivery with attempts left stays: checked by the attempts' delivery index.
    assert.ok(nodes(deliveries).some((n) => n['Index Name'] === 'webhook_attempt_delivery_idx'));
  });

  it('the webhook history purge takes its relayed events oldest first by outbox_relayed_idx', async () => {
    const events = (await webhookPurge())[2];
    assertBatchDelete(events, 'outbox', 'outbox_relayed_idx', 'key');
    // An event a delivery still needs is skipped by the delivery's key, not by reading deliveries.
    assert.ok(nodes(events).some((n) => n['Index Name'] === 'webhook_delivery_event_id_endpoint_id_key'));
  });

  it('the finished-command purge takes its batch by command_done_idx', async () => {
    const [plan] = await plansOf((db) => purgeFinishedCommandRows(db, 30, 5_000));
    assertBatchDelete(plan, 'command', 'command_done_idx', 'key');
  });

  it('the idempotency-key purge takes its batch by idempotency_key_created_idx', async () => {
    const [plan] = await plansOf((db) => purgeExpiredIdempotencyKeys(db, 5_000));
    assertBatchDelete(plan, 'idempotency_key', 'idempotency_key_created_idx', 'address');
  });
});
