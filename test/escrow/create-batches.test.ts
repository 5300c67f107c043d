import assert from 'node:assert/strict';
import type { Principal } from '../../src/integrators/principal.js';
import type { AppError } from '../../src/errors.js';
import { createEscrow } from '../../src/escrow/escrow.service.js';
import { h, newClient } from '../support/harness.js';
import { party, type Party } from '../support/money.js';

/**
 * Escrows created in the same turn are checked by one read and written by one statement. These
 * call the service several times in one turn, as concurrent requests do.
 */
describe('escrow creation in batches', () => {
  const principal = (p: Party): Principal => ({
    clientId: 'cli_test',
    integratorId: p.integrator_id,
    scopes: [],
    isOperator: false,
    canUnblock: false,
  });
  const purchase = (buyer: Party, amount: number, description = 'batch') => ({
    account_id: buyer.account_id,
    description,
    payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }],
    line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator' as const }],
  });
  const stored = async (escrowId: string) => {
    const rows = await h()
      .orm.em.fork()
      .execute<Array<{ status: string; total_amount: string; invoice_state: string; invoice_escrow: string; description: string }>>(
        `select e.status, e.total_amount, i.state as invoice_state, i.escrow_id as invoice_escrow, e.description
         from escrow e join invoice i on i.id = e.escrow_invoice_id where e.id = ?`,
        [escrowId],
      );
    return rows[0];
  };

  /** One escrow made first, so the integrator's profile is cached and the calls after it stay in one turn to the end. */
  const warm = (p: Party) => createEscrow(h().orm.em.fork(), principal(p), purchase(p, 1, 'warm-up'));

  it('checks each purchase against its own integrator and buyer: the good ones are written, the bad ones refused', async () => {
    const a = await party(await newClient());
    const b = await party(await newClient());
    await warm(a);
    await warm(b);
    const results = await Promise.allSettled([
      createEscrow(h().orm.em.fork(), principal(a), purchase(a, 100)),
      createEscrow(h().orm.em.fork(), principal(b), purchase(b, 250)),
      // B's integrator naming A's buyer and wallet: not found for B.
      createEscrow(h().orm.em.fork(), principal(b), purchase(a, 300)),
      // A's buyer paying with B's wallet: that payment method is not A's buyer's.
      createEscrow(h().orm.em.fork(), principal(a), {
        ...purchase(a, 400),
        payment_methods: [{ payment_method_id: b.wallets['USD:fiat'].pm, amount: 0 }],
      }),
    ]);
    const [first, second, foreignBuyer, foreignMethod] = results;
    assert.equal(first.status, 'fulfilled');
    assert.equal(second.status, 'fulfilled');
    const made = [first, second].map((r) => (r as PromiseFulfilledResult<any>).value);
    assert.deepEqual(
      made.map((e) => [e.account_id, e.status]),
      [
        [a.account_id, 'OPEN'],
        [b.account_id, 'OPEN'],
      ],
    );
    for (const [i, e] of made.entries()) {
      const row = await stored(e.id);
      assert.deepEqual(
        [row.status, Number(row.total_amount), row.invoice_state, row.invoice_escrow],
        ['OPEN', [100, 250][i], 'OPEN', e.id],
      );
    }
    assert.equal(foreignBuyer.status, 'rejected');
    assert.deepEqual(((foreignBuyer as PromiseRejectedResult).reason as AppError).details.codes, ['ACCOUNT_GET_ERROR']);
    assert.equal(foreignMethod.status, 'rejected');
    assert.deepEqual(
      { ...((foreignMethod as PromiseRejectedResult).reason as AppError).details.fields },
      { 'payment_methods.0.payment_method_id': ['NOT_FOUND'] },
    );
  });

  it('an escrow that cannot be written fails alone: the others of its statement are written', async () => {
    const buyer = await party(await newClient());
    await warm(buyer);
    const db = h().orm.em.fork().getConnection();
    // A database that refuses one particular invoice, as a constraint would.
    await db.execute(`create function test_refuse_invoice() returns trigger language plpgsql as $$
      begin if new.description = 'refuse me' then raise exception 'refused by the test' using errcode = '23514'; end if; return new; end $$`);
    await db.execute('create trigger test_refuse_invoice before insert on invoice for each row execute function test_refuse_invoice()');
    try {
      const results = await Promise.allSettled([
        createEscrow(h().orm.em.fork(), principal(buyer), purchase(buyer, 10, 'keep 1')),
        createEscrow(h().orm.em.fork(), principal(buyer), purchase(buyer, 20, 'refuse me')),
        createEscrow(h().orm.em.fork(), principal(buyer), purchase(buyer, 30, 'keep 2')),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      for (const r of [results[0], results[2]]) {
        const escrow = (r as PromiseFulfilledResult<any>).value;
        assert.equal((await stored(escrow.id)).status, 'OPEN');
      }
      const refused = await db.execute(`select 1 from escrow where account_id = ? and description = 'refuse me'`, [buyer.account_id]);
      assert.equal(refused.length, 0, 'nothing of the refused escrow is written');
    } finally {
      await db.execute('drop trigger test_refuse_invoice on invoice');
      await db.execute('drop function test_refuse_invoice()');
    }
  });
});
