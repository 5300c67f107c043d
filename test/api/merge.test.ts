import assert from 'node:assert/strict';
import { waitedOn } from '../support/locks.js';
import { db, emDb } from '../../src/db/sql.js';
import type { Job } from 'bullmq';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { insertActiveBlock } from '../../src/accounts/account-block.repository.js';
import { submitCommand } from '../../src/commands/command.service.js';
import { newId } from '../../src/ids.js';
import { insertOpenInvoices } from '../../src/invoices/invoice.repository.js';
import { writeHoldingAccounts } from '../../src/invoices/invoice.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { MaintenanceJob } from '../../src/queues/names.js';
import { maintenanceProcessor } from '../../workers/maintenance.processor.js';
import { call, h, newClient, unique, type ApiResponse, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

describe('account merge', () => {
  let client: TestClient;
  let integratorId: string;

  before(async () => {
    const name = unique('merge-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 })).id;
    client = await newClient({ integrator: name });
  });

  const merge = (source: Party, destination: Party, headers: Record<string, string> = {}) =>
    call('POST', '/v2/merge-accounts', {
      token: client.token,
      headers,
      body: { source_account_id: source.account_id, destination_account_id: destination.account_id },
    });

  async function blockEvents(accountId: string) {
    return h()
      .orm.em.fork()
      .execute<Array<{ message: Record<string, any> }>>(
        `select message from outbox where event_name = 'account-block-unblock-webhook' and message->>'account_id' = ?`,
        [accountId],
      );
  }

  it('moves both token wallets into the destination, closes the source, tags both accounts (ledger checked)', async () => {
    const source = await party(client);
    const destination = await party(client);
    await fund(source, 'GEM:standard', 700);
    await fund(source, 'GEM:convertible', 55);
    await fund(destination, 'GEM:standard', 5);
    const res = await merge(source, destination);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.message, []);
    assert.deepEqual(res.body.codes, []);
    assert.deepEqual(res.body.payload.moved.map((m: any) => [m.wallet_kind, m.amount]).sort(), [
      ['convertible', 55],
      ['standard', 700],
    ]);
    assert.match(res.headers.get('x-command-id') ?? '', /^cmd_/);

    assert.equal(await balance(source.wallets['GEM:standard'].wallet), 0);
    assert.equal(await balance(source.wallets['GEM:convertible'].wallet), 0);
    assert.equal(await balance(destination.wallets['GEM:standard'].wallet), 705);
    assert.equal(await balance(destination.wallets['GEM:convertible'].wallet), 55);
    const methods = (await call('GET', `/v1/${destination.account_id}/payment_methods`, { token: client.token })).body.payload;
    assert.equal(methods.find((m: any) => m.id === destination.wallets['GEM:standard'].pm).wallet_balance, '705');

    const blocks = (await call('GET', `/v2/block/${source.account_id}`, { token: client.token })).body.blocks;
    assert.deepEqual(Object.keys(blocks), ['login']);
    assert.deepEqual([blocks.login.issuer, blocks.login.reason], ['svc', 'merge_account']);
    const [event] = await blockEvents(source.account_id);
    assert.equal(event.message.is_blocked, true);
    assert.equal(event.message.blocks.login.reason, 'merge_account');

    const sourceProfile = (await call('GET', `/v1/user-info/${source.account_id}`, { token: client.token })).body.payload;
    const destinationProfile = (await call('GET', `/v1/user-info/${destination.account_id}`, { token: client.token })).body.payload;
    assert.equal(sourceProfile.is_blocked, true);
    assert.equal(destinationProfile.is_blocked, false);
    const tag = (p: any) =>
      p.tags.map((t: any) => [t.namespace, t.tag, t.resource_type, t.resource_id, t.status, t.integrator, t.account_id]);
    assert.deepEqual(tag(sourceProfile), [
      ['account-merge', 'merged-into', 'account', destination.account_id, 'active', sourceProfile.integrator, source.account_id],
    ]);
    assert.deepEqual(tag(destinationProfile), [
      ['account-merge', 'merged-from', 'account', source.account_id, 'active', sourceProfile.integrator, destination.account_id],
    ]);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('merges an account without tokens (nothing moves, the source still closes)', async () => {
    const source = await party(client);
    const destination = await party(client);
    const res = await merge(source, destination);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.payload.moved, []);
    assert.equal((await call('GET', `/v1/user-info/${source.account_id}`, { token: client.token })).body.payload.is_blocked, true);
  });

  it('refuses to merge an account twice, or one that is closed, with 409 and changes nothing', async () => {
    const source = await party(client);
    const destination = await party(client);
    const other = await party(client);
    assert.equal((await merge(source, destination)).status, 200);
    const again = await merge(source, other);
    assert.equal(again.status, 409);
    assert.deepEqual(again.body.codes, ['ACCOUNT_MERGE_ERROR']);
    assert.match(again.body.message[0], /already merged/);

    const closed = await party(client);
    await call('POST', `/v1/${closed.account_id}/user-info/block`, { token: client.token });
    const res = await merge(closed, destination);
    assert.equal(res.status, 409);
    assert.match(res.body.message[0], /closed/);
    assert.equal((await blockEvents(closed.account_id)).length, 1, 'only the closing block');
  });

  it('refuses a source with money in escrow or a fiat balance, and a blocked destination (409, nothing moves)', async () => {
    const source = await party(client);
    const destination = await party(client);
    await fund(source, 'GEM:standard', 300);
    await fund(source, 'USD:fiat', 1000);
    const fiat = await merge(source, destination);
    assert.equal(fiat.status, 409);
    assert.match(fiat.body.message[0], /fiat balances are not merged/);

    // Spend the fiat on an escrow: now the money is in escrow.
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: source.account_id,
        payment_methods: [{ payment_method_id: source.wallets['USD:fiat'].pm, amount: 0 }],
        line_items: [{ amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(
      (await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token })).body.payload.status,
      'ESCROWED',
    );
    const escrowed = await merge(source, destination);
    assert.equal(escrowed.status, 409);
    assert.match(escrowed.body.message[0], /money in escrow/);
    await call('POST', `/v2/escrow/${created.body.payload.id}/commit`, { token: client.token });

    await call('POST', `/v1/${destination.account_id}/user-info/block`, { token: client.token });
    const blocked = await merge(source, destination);
    assert.equal(blocked.status, 409);
    assert.match(blocked.body.message[0], /destination account is blocked/);
    assert.equal(await balance(source.wallets['GEM:standard'].wallet), 300);
  });

  it('refuses a source that an ESCROWED escrow would pay', async () => {
    const seller = await party(client);
    const buyer = await party(client);
    const destination = await party(client);
    await fund(buyer, 'GEM:standard', 100);
    const created = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.wallets['GEM:standard'].pm, amount: 0 }],
        line_items: [
          {
            amount: 100,
            currency: 'GEM',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 90, currency: 'GEM', destination_wallet_id: seller.wallets['GEM:convertible'].wallet }],
          },
        ],
      },
    });
    await call('POST', `/v2/escrow/${created.body.payload.id}/pay`, { token: client.token });
    const res = await merge(seller, destination);
    assert.equal(res.status, 409);
    assert.match(res.body.message[0], /due money from escrow/);
  });

  it('answers 404 for an account of another integrator and 400 for an account merged into itself', async () => {
    const mine = await party(client);
    const theirs = await party(await newClient());
    for (const [source, destination] of [
      [mine, theirs],
      [theirs, mine],
    ]) {
      const res = await merge(source, destination);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body.codes, ['ACCOUNT_GET_ERROR']);
    }
    const self = await merge(mine, mine);
    assert.equal(self.status, 400);
    assert.deepEqual(self.body.payload.errors, { destination_account_id: ['SAME_AS_SOURCE'] });
  });

  it('lets exactly one of concurrent merges of one source win; the tokens move once', async () => {
    const source = await party(client);
    await fund(source, 'GEM:standard', 1000);
    const destinations = await Promise.all(Array.from({ length: 6 }, () => party(client)));
    const results = await Promise.all(destinations.map((d) => merge(source, d)));
    const winners = results.filter((r) => r.status === 200);
    assert.equal(winners.length, 1, results.map((r) => r.status).join(','));
    assert.ok(results.every((r) => r.status === 200 || r.status === 409));
    const winner = destinations.find((d) => d.account_id === winners[0].body.payload.destination_account_id)!;
    assert.equal(await balance(winner.wallets['GEM:standard'].wallet), 1000);
    for (const d of destinations.filter((x) => x !== winner)) assert.equal(await balance(d.wallets['GEM:standard'].wallet), 0);
    assert.equal(await balance(source.wallets['GEM:standard'].wallet), 0);
    const [blocks] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>('select count(*) as n from account_block where account_id = ?', [source.account_id]);
    assert.equal(Number(blocks.n), 1);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('answers 202 with the command when asked to respond async; GET /v2/commands/{id} shows the outcome', async () => {
    const source = await party(client);
    const destination = await party(client);
    await fund(source, 'GEM:convertible', 12);
    const res = await merge(source, destination, { prefer: 'respond-async' });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    const location = res.headers.get('location')!;
    assert.equal(location, `/v2/commands/${res.body.payload.command_id}`);
    assert.equal(res.body.payload.kind, 'account.merge');
    assert.deepEqual(res.body.payload.input, { destination_account_id: destination.account_id });
    let command = res.body.payload;
    for (let i = 0; i < 100 && command.state !== 'done'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      command = (await call('GET', location, { token: client.token })).body.payload;
    }
    assert.equal(command.state, 'done');
    assert.equal(command.result.status, 200);
    assert.equal(command.result.body.payload.moved[0].amount, 12);
    const stranger = await newClient();
    const hidden = await call('GET', location, { token: stranger.token });
    assert.equal(hidden.status, 404);
    assert.deepEqual(hidden.body.codes, ['COMMAND_GET_ERROR']);
  });

  it('is finished by the sweeper when its job was lost', async () => {
    const source = await party(client);
    const destination = await party(client);
    await fund(source, 'GEM:standard', 40);
    // The web process wrote the command, then died before enqueuing its job.
    const commandId = await submitCommand(db(h().orm.em), {
      integratorId,
      kind: 'account.merge',
      targetId: source.account_id,
      input: { destination_account_id: destination.account_id },
      inputKey: destination.account_id,
    });
    await h().orm.em.fork().execute(`update command set updated_at = now() - interval '1 minute' where id = ?`, [commandId]);
    const swept = await maintenanceProcessor(h().orm, h().bus, h().workers.webhookBus, {
      commandSweepAfterMs: 30_000,
      deliverySweepAfterMs: 30_000,
    })({ name: MaintenanceJob.SweepCommands } as Job);
    assert.ok(swept.requeued >= 1);
    let state = 'pending';
    for (let i = 0; i < 100 && state === 'pending'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      state = (await call('GET', `/v2/commands/${commandId}`, { token: client.token })).body.payload.state;
    }
    assert.equal(state, 'done');
    assert.equal(await balance(destination.wallets['GEM:standard'].wallet), 40);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
  /** A purchase of `amount` GEM by `buyer`, `share` of it paid to `seller`'s convertible wallet. */
  const purchase = (buyer: Party, seller: Party, amount = 100, share = 90) => ({
    account_id: buyer.account_id,
    payment_methods: [{ payment_method_id: buyer.wallets['GEM:standard'].pm, amount: 0 }],
    line_items: [
      {
        amount,
        currency: 'GEM',
        transaction_type: 'user_to_user',
        recipients: [{ amount: share, currency: 'GEM', destination_wallet_id: seller.wallets['GEM:convertible'].wallet }],
      },
    ],
  });
  const escrowStep = (id: string, step: 'pay' | 'commit' | 'cancel') => call('POST', `/v2/escrow/${id}/${step}`, { token: client.token });

  /** Closes an account as a merge does, without the merge's checks: the state a merge left before they existed, or one racing a purchase. */
  async function closeAsMerged(p: Party): Promise<void> {
    await insertActiveBlock(db(h().orm.em), {
      id: newId('blk'),
      integratorId: p.integrator_id,
      accountId: p.account_id,
      capability: 'login',
      issuer: 'svc',
      reason: 'merge_account',
      note: 'Merged elsewhere.',
      clientId: null,
    });
  }

  it('refuses a source that an OPEN escrow would pay, or buys in, until the escrow is finished (409, nothing moves)', async () => {
    const seller = await party(client);
    const buyer = await party(client);
    const destination = await party(client);
    await fund(buyer, 'GEM:standard', 100);
    await fund(seller, 'GEM:standard', 7);
    const created = await call('POST', '/v2/escrow', { token: client.token, body: purchase(buyer, seller) });
    assert.equal(created.status, 201, created.text);
    const escrowId = created.body.payload.id;

    const asSeller = await merge(seller, destination);
    assert.equal(asSeller.status, 409, asSeller.text);
    assert.deepEqual(asSeller.body.codes, ['ACCOUNT_MERGE_ERROR']);
    assert.match(asSeller.body.message[0], /due money from 1 unfinished purchase/);
    const asBuyer = await merge(buyer, destination);
    assert.equal(asBuyer.status, 409, asBuyer.text);
    assert.match(asBuyer.body.message[0], /buyer of 1 unfinished purchase/);
    assert.equal(await balance(seller.wallets['GEM:standard'].wallet), 7, 'nothing moved');
    assert.equal((await call('GET', `/v1/user-info/${seller.account_id}`, { token: client.token })).body.payload.is_blocked, false);

    // Paid, the escrow still names it; committed, the share is the seller's and moves with the merge.
    assert.equal((await escrowStep(escrowId, 'pay')).body.payload.status, 'ESCROWED');
    assert.match((await merge(seller, destination)).body.message[0], /due money from escrow/);
    assert.equal((await escrowStep(escrowId, 'commit')).body.payload.status, 'COMMITTED');
    const done = await merge(seller, destination);
    assert.equal(done.status, 200, done.text);
    assert.equal(await balance(destination.wallets['GEM:convertible'].wallet), 90);
    assert.equal(await balance(seller.wallets['GEM:convertible'].wallet), 0);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('refuses a source that an OPEN invoice would pay or that buys one, an authorized invoice not yet paid included', async () => {
    const seller = await party(client);
    const buyer = await party(client);
    const authorizedBuyer = await party(client);
    const destination = await party(client);
    await fund(buyer, 'GEM:standard', 100);
    await fund(authorizedBuyer, 'GEM:standard', 50);
    const invoice = await call('POST', '/v2/invoice', { token: client.token, body: purchase(buyer, seller) });
    assert.equal(invoice.status, 201, invoice.text);
    const { payment_methods: _, ...authorization } = purchase(authorizedBuyer, seller, 50, 40);
    const authorized = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: { ...authorization, invoice_mechanism: 'api' },
    });
    assert.equal(authorized.status, 200, authorized.text);

    const asSeller = await merge(seller, destination);
    assert.equal(asSeller.status, 409, asSeller.text);
    assert.match(asSeller.body.message[0], /due money from 2 unfinished purchase/);
    for (const p of [buyer, authorizedBuyer]) {
      const res = await merge(p, destination);
      assert.equal(res.status, 409, res.text);
      assert.match(res.body.message[0], /buyer of 1 unfinished purchase/);
    }
  });

  it('pays and commits nothing to an account merged while a purchase naming it was open; a cancel still refunds', async () => {
    const seller = await party(client);
    const buyer = await party(client);
    await fund(buyer, 'GEM:standard', 300);
    const open = (await call('POST', '/v2/escrow', { token: client.token, body: purchase(buyer, seller) })).body.payload.id;
    const escrowed = (await call('POST', '/v2/escrow', { token: client.token, body: purchase(buyer, seller) })).body.payload.id;
    assert.equal((await escrowStep(escrowed, 'pay')).body.payload.status, 'ESCROWED');
    const invoice = (await call('POST', '/v2/invoice', { token: client.token, body: purchase(buyer, seller) })).body.payload.invoice_id;
    await closeAsMerged(seller);

    const paid = await escrowStep(open, 'pay');
    assert.equal(paid.status, 409, paid.text);
    assert.deepEqual(paid.body.codes, ['ESCROW_STATE_ERROR']);
    assert.match(paid.body.message[0], /pays an account that was merged into another/);
    assert.equal(paid.body.payload.status, 'OPEN');
    const committed = await escrowStep(escrowed, 'commit');
    assert.equal(committed.status, 409, committed.text);
    assert.match(committed.body.message[0], /pays an account that was merged into another/);
    assert.equal(committed.body.payload.status, 'ESCROWED');
    const invoicePaid = await call('POST', `/v2/invoice/${invoice}/pay`, { token: client.token });
    assert.equal(invoicePaid.status, 409, invoicePaid.text);
    assert.deepEqual(invoicePaid.body.codes, ['INVOICE_STATE_ERROR']);
    assert.equal(invoicePaid.body.payload.state, 'OPEN');
    assert.equal(await balance(seller.wallets['GEM:convertible'].wallet), 0, 'no money reached the merged account');
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), 200, 'only the escrowed purchase is held');

    assert.equal((await escrowStep(escrowed, 'cancel')).body.payload.status, 'CANCELLED');
    assert.equal(await balance(buyer.wallets['GEM:standard'].wallet), 300);
    const again = await call('POST', '/v2/escrow', { token: client.token, body: purchase(buyer, seller) });
    assert.equal(again.status, 403, 'a new purchase cannot name it');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('refuses a purchase naming an account while a merge of it is under way (the purchase waits, then sees it closed)', async () => {
    for (const kind of ['escrow', 'invoice'] as const) {
      const seller = await party(client);
      const buyer = await party(client);
      await fund(buyer, 'GEM:standard', 100);
      let request: Promise<ApiResponse> | undefined;
      // A merge of the seller, stopped between its lock on the account and its commit.
      await h()
        .orm.em.fork()
        .transactional(async (tx) => {
          const merging = emDb(tx);
          await merging.execute('select id from account where id = ? for update', [seller.account_id]);
          const [{ pid }] = await merging.execute<Array<{ pid: number }>>('select pg_backend_pid() as pid');
          request = call('POST', `/v2/${kind}`, { token: client.token, body: purchase(buyer, seller) });
          assert.equal(await waitedOn(pid, request), 'blocked', `the ${kind} was written while the merge held the account`);
          await insertActiveBlock(merging, {
            id: newId('blk'),
            integratorId: seller.integrator_id,
            accountId: seller.account_id,
            capability: 'login',
            issuer: 'svc',
            reason: 'merge_account',
            note: 'Merged (test).',
            clientId: null,
          });
        });
      const answer = await request!;
      assert.equal(answer.status, 403, `${kind}: ${answer.text}`);
      assert.equal(answer.body.payload, `Account ${seller.account_id} is blocked.`);
      const [row] = await h()
        .orm.em.fork()
        .execute<Array<{ n: string }>>('select count(*) as n from invoice where account_id = ?', [buyer.account_id]);
      assert.equal(Number(row.n), 0, `no ${kind} was written`);
    }
  });

  it('counts a purchase written while the merge waited for its accounts (the merge waits, then refuses)', async () => {
    const seller = await party(client);
    const buyer = await party(client);
    const destination = await party(client);
    let request: Promise<ApiResponse> | undefined;
    const now = new Date();
    // A purchase being written: it holds the accounts it names, as every purchase does.
    await writeHoldingAccounts(db(h().orm.em), [buyer.account_id, seller.account_id], async (tx) => {
      const [{ pid }] = await tx.execute<Array<{ pid: number }>>('select pg_backend_pid() as pid');
      request = merge(seller, destination);
      assert.equal(await waitedOn(pid, request), 'blocked', 'the merge ran while a purchase held the account');
      await insertOpenInvoices(tx, [
        {
          id: newId('inv'),
          integratorId: seller.integrator_id,
          accountId: buyer.account_id,
          escrowId: null,
          invoiceType: 'user_purchase_virtual',
          state: 'OPEN',
          referenceType: null,
          referenceId: null,
          description: null,
          metadata: {},
          currency: 'GEM',
          totalAmount: 100,
          failureReason: null,
          paymentMethods: [{ payment_method_id: buyer.wallets['GEM:standard'].pm, amount: 100, currency: 'GEM' }],
          lineItems: [
            {
              line_item_id: newId('li'),
              amount: 100,
              currency: 'GEM',
              transaction_type: 'user_to_user',
              product_sku: '',
              description: '',
              reference_type: '',
              reference_id: '',
              metadata: {},
              recipients: [
                { amount: 90, currency: 'GEM', source_wallet_id: '', destination_wallet_id: seller.wallets['GEM:convertible'].wallet },
              ],
            },
          ],
          invoiceMechanism: null,
          createdAt: now,
          updatedAt: now,
        },
      ]);
    });
    const answer = await request!;
    assert.equal(answer.status, 409, answer.text);
    assert.match(answer.body.message[0], /due money from 1 unfinished purchase/);
  });
});
