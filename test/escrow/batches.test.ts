import assert from 'node:assert/strict';
import { db } from '../../src/db/sql.js';
import { submitCommand } from '../../src/commands/command.service.js';
import { runEscrowCommand } from '../../src/escrow/escrow-phases.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, h, newClient, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/**
 * Escrow commands that reach a worker in the same turn run as one batch (one read, one guarded
 * write). These call the worker's entry point several times in one turn, as concurrent jobs do.
 */
describe('escrow commands run in batches', () => {
  async function walletEscrow(client: TestClient, buyer: Party, amount: number): Promise<string> {
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }],
        line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.payload.id;
  }
  const command = (buyer: Party, kind: 'escrow.pay' | 'escrow.commit' | 'escrow.cancel', escrowId: string) =>
    submitCommand(db(h().orm.em), { integratorId: buyer.integrator_id, kind, targetId: escrowId });

  it('two pays from one wallet that holds enough for one: one ESCROWED, the other ESCROW-FAILED (insufficient_funds), money moved once', async () => {
    const client = await newClient();
    const buyer = await party(client);
    await fund(buyer, 'USD:fiat', 1000);
    const first = await walletEscrow(client, buyer, 700);
    const second = await walletEscrow(client, buyer, 600);
    const ids = [await command(buyer, 'escrow.pay', first), await command(buyer, 'escrow.pay', second)];
    const results = await Promise.all(ids.map((id) => runEscrowCommand(h().orm.em.fork(), id)));
    const statuses = results.map((r) => (r?.body as any)?.payload.status).sort();
    assert.deepEqual(statuses, ['ESCROW-FAILED', 'ESCROWED']);
    const failed = results.find((r) => (r?.body as any)?.payload.status === 'ESCROW-FAILED')!;
    const invoice = await call('GET', `/v2/invoice/${(failed.body as any).payload.escrow_invoice_id}`, { token: client.token });
    assert.equal(invoice.body.payload.failure_reason, 'insufficient_funds');
    const paid = results.find((r) => (r?.body as any)?.payload.status === 'ESCROWED')!;
    const spent = (paid.body as any).payload.id === first ? 700 : 600;
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 1000 - spent);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('many escrows of several buyers in one batch each end as their own state says, and each command keeps its own answer', async () => {
    const client = await newClient();
    const buyers = await Promise.all(Array.from({ length: 4 }, () => party(client)));
    for (const b of buyers) await fund(b, 'USD:fiat', 500);
    const escrows = await Promise.all(buyers.flatMap((b) => [walletEscrow(client, b, 200), walletEscrow(client, b, 200)]));
    const pays = await Promise.all(escrows.map((id, i) => command(buyers[Math.floor(i / 2)], 'escrow.pay', id)));
    const paid = await Promise.all(pays.map((id) => runEscrowCommand(h().orm.em.fork(), id)));
    paid.forEach((r, i) => {
      assert.equal(r?.status, 200);
      assert.equal((r?.body as any)?.payload.id, escrows[i], 'each command answers for its own escrow');
      assert.equal((r?.body as any)?.payload.status, 'ESCROWED');
    });
    // Commit the first of each buyer, cancel the second, all in one turn.
    const moves = await Promise.all(
      escrows.map((id, i) => command(buyers[Math.floor(i / 2)], i % 2 ? 'escrow.cancel' : 'escrow.commit', id)),
    );
    const moved = await Promise.all(moves.map((id) => runEscrowCommand(h().orm.em.fork(), id)));
    moved.forEach((r, i) => {
      assert.equal((r?.body as any)?.payload.status, i % 2 ? 'CANCELLED' : 'COMMITTED');
    });
    for (const b of buyers) assert.equal(await balance(b.wallets['USD:fiat'].wallet), 300);
    // Stored answers are the ones given.
    for (let i = 0; i < moves.length; i++) assert.deepEqual(await runEscrowCommand(h().orm.em.fork(), moves[i]), moved[i]);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('commit and cancel of one escrow in the same turn: one runs, the other answers 409 from the state the first left', async () => {
    const client = await newClient();
    const buyer = await party(client);
    await fund(buyer, 'USD:fiat', 900);
    const escrowId = await walletEscrow(client, buyer, 900);
    assert.equal((await runEscrowCommand(h().orm.em.fork(), await command(buyer, 'escrow.pay', escrowId)))?.status, 200);
    const [commit, cancel] = [await command(buyer, 'escrow.commit', escrowId), await command(buyer, 'escrow.cancel', escrowId)];
    const [a, b] = await Promise.all([runEscrowCommand(h().orm.em.fork(), commit), runEscrowCommand(h().orm.em.fork(), cancel)]);
    const answers = [a?.status, b?.status].sort();
    assert.deepEqual(answers, [200, 409]);
    const final = (await call('GET', `/v2/escrow/${escrowId}`, { token: client.token })).body.payload.status;
    assert.equal(final, a?.status === 200 ? 'COMMITTED' : 'CANCELLED');
    assert.equal(((a?.status === 409 ? a : b)!.body as any).payload.status, final, 'the refusal shows the escrow as the winner left it');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), final === 'CANCELLED' ? 900 : 0);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('commit and cancel of one escrow in overlapping batches (both read ESCROWED): the write that comes second moves nothing', async () => {
    const client = await newClient();
    const buyer = await party(client);
    await fund(buyer, 'USD:fiat', 10 * 300);
    const escrows: string[] = [];
    for (let i = 0; i < 10; i++) escrows.push(await walletEscrow(client, buyer, 300));
    await Promise.all(
      (await Promise.all(escrows.map((id) => command(buyer, 'escrow.pay', id)))).map((id) => runEscrowCommand(h().orm.em.fork(), id)),
    );
    const runs: Array<Promise<unknown>> = [];
    for (const id of escrows) {
      const [commit, cancel] = [await command(buyer, 'escrow.commit', id), await command(buyer, 'escrow.cancel', id)];
      runs.push(runEscrowCommand(h().orm.em.fork(), commit));
      await new Promise((resolve) => setImmediate(resolve)); // the next one starts a batch of its own
      runs.push(runEscrowCommand(h().orm.em.fork(), cancel));
    }
    const answers = (await Promise.all(runs)) as Array<{ status: number; body: any }>;
    let cancelled = 0;
    for (let i = 0; i < escrows.length; i++) {
      const pair = [answers[2 * i].status, answers[2 * i + 1].status].sort();
      assert.deepEqual(pair, [200, 409], `escrow ${i}: one wins, one is refused`);
      const status = (await call('GET', `/v2/escrow/${escrows[i]}`, { token: client.token })).body.payload.status;
      if (status === 'CANCELLED') cancelled++;
      const refs = await h()
        .orm.em.fork()
        .execute('select reference from ledger_posting where reference like ?', [`escrow:${escrows[i]}:%`]);
      assert.deepEqual(
        refs.map((r: any) => r.reference.split(':')[2]).filter((p: string) => p !== 'pay'),
        [status === 'CANCELLED' ? 'cancel' : 'commit'],
        'one phase posted, not both',
      );
    }
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), cancelled * 300);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a command that cannot be run fails alone: the others of its batch finish', async () => {
    const client = await newClient();
    const buyer = await party(client);
    await fund(buyer, 'USD:fiat', 100);
    const escrowId = await walletEscrow(client, buyer, 100);
    const pay = await command(buyer, 'escrow.pay', escrowId);
    // Not an escrow command: its run is an error (its job would retry), not the batch's.
    const stray = await submitCommand(db(h().orm.em), {
      integratorId: buyer.integrator_id,
      kind: 'account.merge',
      targetId: buyer.account_id,
      input: { x: 1 },
      inputKey: 'x',
    });
    const [bad, good] = await Promise.allSettled([runEscrowCommand(h().orm.em.fork(), stray), runEscrowCommand(h().orm.em.fork(), pay)]);
    assert.equal(bad.status, 'rejected');
    assert.match(String((bad as PromiseRejectedResult).reason), /not an escrow command/);
    assert.equal(good.status, 'fulfilled');
    assert.equal(((good as PromiseFulfilledResult<any>).value.body as any).payload.status, 'ESCROWED');
  });

  it('requests of several integrators in one turn: each sees only its own escrows', async () => {
    const owner = await newClient();
    const other = await newClient();
    const buyer = await party(owner);
    await fund(buyer, 'USD:fiat', 100);
    const escrowId = await walletEscrow(owner, buyer, 100);
    const [mine, theirs] = await Promise.all([
      call('POST', `/v2/escrow/${escrowId}/pay`, { token: owner.token }),
      call('POST', `/v2/escrow/${escrowId}/pay`, { token: other.token }),
    ]);
    assert.equal(mine.status, 200);
    assert.equal(mine.body.payload.status, 'ESCROWED');
    assert.equal(theirs.status, 404);
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 0);
  });
});
