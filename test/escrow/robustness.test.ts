import assert from 'node:assert/strict';
import { db } from '../../src/db/sql.js';
import { submitCommand } from '../../src/commands/command.service.js';
import { runEscrowCommand } from '../../src/escrow/escrow-phases.service.js';
import { balances, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { addCard, call, h, newClient, register, unique } from '../support/harness.js';

describe('escrow robustness', () => {
  it('a command whose job runs several times at once (stalled, retried) moves money once', async () => {
    const client = await newClient();
    const buyer = await register(client);
    const card = await addCard(client, buyer.account_id);
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: card, amount: 0 }],
        line_items: [{ amount: 4321, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const escrowId = created.body.payload.id;
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ integrator_id: string }>>('select integrator_id from escrow where id = ?', [escrowId]);
    const commandId = await submitCommand(db(h().orm.em), { integratorId: row.integrator_id, kind: 'escrow.pay', targetId: escrowId });
    const results = await Promise.all(Array.from({ length: 5 }, () => runEscrowCommand(h().orm.em.fork(), commandId)));
    for (const r of results) assert.equal(r?.status, 200);
    const postings = await h()
      .orm.em.fork()
      .execute('select 1 from ledger_posting where reference = ?', [`escrow:${escrowId}:pay`]);
    assert.equal(postings.length, 1);
    const again = await runEscrowCommand(h().orm.em.fork(), commandId);
    assert.deepEqual(again, results[0], 'a finished command answers its stored result');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('POBO methods are chargeable: pay into escrow, cancel refunds the POBO clearing', async () => {
    const client = await newClient();
    const reg = await call('POST', '/register', {
      token: client.token,
      body: { username: unique('pobo'), external_platforms: { steam: { user_id: unique('st') } } },
    });
    const accountId = reg.body.payload.account_id;
    const pobo = (await call('GET', `/v1/${accountId}/payment_methods`, { token: client.token })).body.payload.find(
      (m: any) => m.provider === 'pobo',
    );
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: accountId,
        payment_methods: [{ payment_method_id: pobo.id, amount: 0 }],
        line_items: [{ amount: 250, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const id = created.body.payload.id;
    const [row] = await h().orm.em.fork().execute<Array<{ integrator_id: string }>>('select integrator_id from escrow where id = ?', [id]);
    const clearing = await systemAccount(h().orm.em.fork(), row.integrator_id, 'pobo_clearing', 'USD');
    assert.equal((await call('POST', `/v2/escrow/${id}/pay`, { token: client.token })).body.payload.status, 'ESCROWED');
    assert.equal((await balances(h().orm.em.fork(), [clearing])).get(clearing), 250);
    assert.equal((await call('POST', `/v2/escrow/${id}/cancel`, { token: client.token })).body.payload.status, 'CANCELLED');
    assert.equal((await balances(h().orm.em.fork(), [clearing])).get(clearing), 0);
  });
});
