import assert from 'node:assert/strict';
import { waitedOn } from '../support/locks.js';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { db, emDb } from '../../src/db/sql.js';
import { insertActiveBlock } from '../../src/accounts/account-block.repository.js';
import { newId } from '../../src/ids.js';
import {
  insertRefundInvoice,
  overRefundedLines,
  overRefundedMethods,
  refundAmountMismatches,
} from '../../src/refunds/refund.repository.js';
import { runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { refundCommands } from '../../src/refunds/refund.commands.js';
import { call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** Credits an integrator's default USD wallet through the ledger (money paid in from outside). */
async function fundIntegrator(integratorId: string, amount: number): Promise<void> {
  const em = h().orm.em.fork();
  const clearing = await systemAccount(em, integratorId, 'card_clearing', 'USD');
  const publisher = await systemAccount(em, integratorId, 'publisher_wallet', 'USD');
  await em.transactional((tx) =>
    post(tx, {
      integratorId,
      reference: unique('integrator-fund-'),
      description: 'test integrator funding',
      entries: [
        { account: clearing, currency: 'USD', amount: -amount },
        { account: publisher, currency: 'USD', amount },
      ],
    }),
  );
}

async function publisherBalance(integratorId: string): Promise<number> {
  const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', 'USD');
  return (await balances(h().orm.em.fork(), [publisher])).get(publisher) ?? 0;
}

describe('refunds (POST /v2/refund, GET /v2/invoice/{id}/refunds)', () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;

  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    seller = await party(client);
  });

  /** A paid USD invoice: `share` of its 1000 goes to the seller, the rest to the integrator. */
  async function paidInvoice(method: string, share = 0): Promise<string> {
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: method, amount: 0 }],
        line_items: [
          share
            ? {
                amount: 1000,
                currency: 'USD',
                transaction_type: 'user_to_user',
                recipients: [{ amount: share, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
              }
            : { amount: 1000, currency: 'USD', transaction_type: 'user_to_integrator' },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.payload.invoice_id;
    const paid = await call('POST', `/v2/invoice/${id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    return id;
  }

  const refund = (invoiceId: string, extra: Record<string, unknown> = {}) =>
    call('POST', '/v2/refund', { token: client.token, body: { invoice_id: invoiceId, reason: 'product_related', ...extra } });

  it('refunds a card-paid invoice in full from the integrator wallet; a second refund is 409 NOTHING_TO_REFUND', async () => {
    const invoiceId = await paidInvoice(buyer.card!);
    const before = await publisherBalance(buyer.integrator_id);
    const res = await refund(invoiceId, { sub_reason: 'never_arrived', note: 'ticket 4411' });
    assert.equal(res.status, 200, res.text);
    const summary = res.body.payload;
    assert.equal(summary.invoice_id, invoiceId);
    assert.equal(summary.is_fully_refunded, true);
    assert.deepEqual(summary.refunded, { USD: 1000 });
    assert.deepEqual(summary.refundable, { USD: 0 });
    assert.equal(summary.refunds.length, 1);
    const [r] = summary.refunds;
    assert.equal(r.status, 'REFUND-SUCCESS');
    assert.equal(r.line_item_id, null);
    assert.equal(r.amount, 1000);
    assert.equal(r.currency, 'USD');
    assert.deepEqual(r.payment_methods, [{ payment_method_id: buyer.card, amount: 1000, status: 'succeeded' }]);
    assert.deepEqual([r.reason, r.sub_reason, r.note, r.failure_reason], ['product_related', 'never_arrived', 'ticket 4411', '']);
    assert.equal(await publisherBalance(buyer.integrator_id), before - 1000);

    const again = await refund(invoiceId);
    assert.equal(again.status, 409, again.text);
    assert.deepEqual(again.body.codes, ['NOTHING_TO_REFUND']);
    assert.equal(await publisherBalance(buyer.integrator_id), before - 1000, 'refunded once');

    // The refund is an invoice of its own, linked to the purchase, listed with the account's invoices.
    const invoice = await call('GET', `/v2/invoice/${r.refund_invoice_id}`, { token: client.token });
    assert.equal(invoice.status, 200, invoice.text);
    assert.equal(invoice.body.payload.invoice_type, 'user_refund');
    assert.equal(invoice.body.payload.state, 'SUCCESS');
    assert.equal(invoice.body.payload.metadata.refunded_invoice_id, invoiceId);
    const listed = await call('GET', `/v2/invoice/account/${buyer.account_id}?invoice_types=user_refund`, { token: client.token });
    assert.equal(listed.status, 200, listed.text);
    assert.ok(JSON.stringify(listed.body.payload).includes(r.refund_invoice_id));

    const got = await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: client.token });
    assert.equal(got.status, 200, got.text);
    assert.deepEqual(got.body.payload, summary);
    const filtered = await call('GET', `/v2/invoice/${invoiceId}/refunds?status=REFUND-REJECTED`, { token: client.token });
    assert.deepEqual(filtered.body.payload.refunds, []);

    // Both events are in the outbox, once.
    const events = await h()
      .orm.em.fork()
      .execute<Array<{ event_name: string; message: any }>>(
        `select event_name, message from outbox where message->>'invoice_id' = ? order by event_name`,
        [r.refund_invoice_id],
      );
    assert.deepEqual(
      events.map((e) => e.event_name),
      ['invoice-completed', 'refund-completed'],
    );
    assert.deepEqual(events[1].message, {
      account_id: buyer.account_id,
      invoice_id: r.refund_invoice_id,
      payment_invoice_id: invoiceId,
      status: 'REFUND-SUCCESS',
      successful_refunds: [{ payment_method_id: buyer.card, amount: 1000, currency: 'USD' }],
      failed_refunds: [],
    });
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('refunds a wallet-paid invoice back to the wallet', async () => {
    await fund(buyer, 'USD:fiat', 1000);
    const wallet = buyer.wallets['USD:fiat'];
    const invoiceId = await paidInvoice(wallet.pm);
    const spent = await balance(wallet.wallet);
    const res = await refund(invoiceId, { reason: 'billing' });
    assert.equal(res.status, 200, res.text);
    assert.equal(await balance(wallet.wallet), spent + 1000);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('20 concurrent full refunds give the money back once, and none answers 5xx', async () => {
    const invoiceId = await paidInvoice(buyer.card!);
    const before = await publisherBalance(buyer.integrator_id);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refund(invoiceId)));
    for (const a of answers) {
      assert.ok(a.status === 200 || (a.status === 409 && a.body.codes[0] === 'NOTHING_TO_REFUND'), `${a.status} ${a.text}`);
    }
    assert.ok(answers.some((a) => a.status === 200));
    assert.equal(await publisherBalance(buyer.integrator_id), before - 1000);
    const summary = (await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: client.token })).body.payload;
    assert.equal(summary.refunds.length, 1);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('two refund commands of one invoice run at once: the lock on the invoice lets one refund, the other finds nothing left', async () => {
    const invoiceId = await paidInvoice(buyer.card!);
    // Enough for two refunds: only the lock stops the second.
    await fundIntegrator(buyer.integrator_id, 5000);
    const before = await publisherBalance(buyer.integrator_id);
    // Two pending commands (different input keys, so not shared), run side by side on the worker's runner.
    const commands = await Promise.all(
      [1, 2].map(() =>
        submitCommand(db(h().orm.em), {
          integratorId: buyer.integrator_id,
          kind: 'invoice.refund',
          targetId: invoiceId,
          input: { reason: 'other' },
          inputKey: unique('key'),
        }),
      ),
    );
    // Hold the integrator wallet's row until both runners wait on a lock: without the lock on the
    // invoice both would have read "nothing refunded yet" before waiting here.
    const publisher = await systemAccount(h().orm.em.fork(), buyer.integrator_id, 'publisher_wallet', 'USD');
    const holder = h().orm.em.fork();
    await holder.begin();
    await holder.execute('select id from ledger_account where id = ? for update', [publisher]);
    const running = Promise.all(commands.map((c) => runCommandWith(refundCommands['invoice.refund']!, h().orm.em.fork(), c)));
    for (;;) {
      const [w] = await h()
        .orm.em.fork()
        .execute<Array<{ n: string }>>(
          `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
        );
      if (Number(w.n) >= 2) break;
      await new Promise((r) => setImmediate(r));
    }
    await holder.commit();
    const results = await running;
    assert.deepEqual(results.map((r) => r!.status).sort(), [200, 409]);
    assert.deepEqual((results.find((r) => r!.status === 409)!.body as { codes: string[] }).codes, ['NOTHING_TO_REFUND']);
    assert.equal(await publisherBalance(buyer.integrator_id), before - 1000);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('rejects a refund the integrator wallet cannot cover (recorded REFUND-REJECTED, 409), then refunds once funded', async () => {
    const own = await newClient();
    const b = await party(own, true);
    const s = await party(own);
    const created = await call('POST', '/v2/invoice', {
      token: own.token,
      body: {
        account_id: b.account_id,
        payment_methods: [{ payment_method_id: b.card, amount: 0 }],
        line_items: [
          {
            amount: 1000,
            currency: 'USD',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 700, currency: 'USD', destination_wallet_id: s.wallets['USD:fiat'].wallet }],
          },
        ],
      },
    });
    const invoiceId = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: own.token })).body.payload.state, 'SUCCESS');
    assert.equal(await publisherBalance(b.integrator_id), 300, 'the seller keeps its 700');
    const rejected = await call('POST', '/v2/refund', { token: own.token, body: { invoice_id: invoiceId, reason: 'fraud' } });
    assert.equal(rejected.status, 409, rejected.text);
    assert.deepEqual(rejected.body.codes, ['REFUND_REJECTED']);
    assert.equal(rejected.body.payload.refunds[0].status, 'REFUND-REJECTED');
    assert.equal(rejected.body.payload.refunds[0].failure_reason, 'integrator_insufficient_funds');
    assert.deepEqual(rejected.body.payload.refundable, { USD: 1000 });
    assert.equal(await publisherBalance(b.integrator_id), 300, 'nothing moved');
    const failedInvoice = await call('GET', `/v2/invoice/${rejected.body.payload.refunds[0].refund_invoice_id}`, { token: own.token });
    assert.equal(failedInvoice.body.payload.state, 'FAILED');
    const [event] = await h()
      .orm.em.fork()
      .execute<Array<{ message: any }>>(
        `select message from outbox where event_name = 'refund-completed' and message->>'payment_invoice_id' = ?`,
        [invoiceId],
      );
    assert.deepEqual(event.message.failed_refunds, [{ payment_method_id: b.card, amount: 1000, currency: 'USD' }]);

    await fundIntegrator(b.integrator_id, 700);
    const ok = await call('POST', '/v2/refund', { token: own.token, body: { invoice_id: invoiceId, reason: 'fraud' } });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(
      ok.body.payload.refunds.map((r: any) => r.status),
      ['REFUND-REJECTED', 'REFUND-SUCCESS'],
    );
    assert.equal(await publisherBalance(b.integrator_id), 0);
    assert.equal(await balance(s.wallets['USD:fiat'].wallet), 700, 'the seller keeps its proceeds');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('refuses the refund of a buyer merged into another account (409 REFUND_NOT_ALLOWED, nothing moves)', async () => {
    const merged = await party(client, true);
    const destination = await party(client);
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: merged.account_id,
        payment_methods: [{ payment_method_id: merged.card, amount: 0 }],
        line_items: [{ amount: 400, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoiceId = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token })).body.payload.state, 'SUCCESS');
    const merge = await call('POST', '/v2/merge-accounts', {
      token: client.token,
      body: { source_account_id: merged.account_id, destination_account_id: destination.account_id },
    });
    assert.equal(merge.status, 200, merge.text);
    const before = await publisherBalance(merged.integrator_id);
    const res = await refund(invoiceId);
    assert.equal(res.status, 409, res.text);
    assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED']);
    assert.match(res.body.message[0], /merged/);
    assert.equal(await publisherBalance(merged.integrator_id), before);
  });

  it('a refund racing a merge of its buyer waits for the merge, then is refused: no money reaches the merged wallet', async () => {
    const racing = await party(client);
    await fund(racing, 'USD:fiat', 500);
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: racing.account_id,
        payment_methods: [{ payment_method_id: racing.wallets['USD:fiat'].pm, amount: 0 }],
        line_items: [{ amount: 300, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoiceId = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token })).body.payload.state, 'SUCCESS');
    let request: Promise<Awaited<ReturnType<typeof refund>>> | undefined;
    // A merge of the buyer, stopped between its lock on the account and its commit.
    await h()
      .orm.em.fork()
      .transactional(async (tx) => {
        const merging = emDb(tx);
        await merging.execute('select id from account where id = ? for update', [racing.account_id]);
        const [{ pid }] = await merging.execute<Array<{ pid: number }>>('select pg_backend_pid() as pid');
        request = refund(invoiceId);
        assert.equal(await waitedOn(pid, request), 'blocked', 'the refund ran while the merge held the buyer');
        await insertActiveBlock(merging, {
          id: newId('blk'),
          integratorId: racing.integrator_id,
          accountId: racing.account_id,
          capability: 'login',
          issuer: 'svc',
          reason: 'merge_account',
          note: 'Merged (test).',
          clientId: null,
        });
      });
    const answer = await request!;
    assert.equal(answer.status, 409, answer.text);
    assert.deepEqual(answer.body.codes, ['REFUND_NOT_ALLOWED']);
    assert.equal(await balance(racing.wallets['USD:fiat'].wallet), 200, 'nothing came back to the merged wallet');
  });

  it('answers 202 with Location under Prefer: respond-async, and replays the answer for the same Idempotency-Key', async () => {
    const invoiceId = await paidInvoice(buyer.card!);
    const key = unique('refund-key-');
    const accepted = await call('POST', '/v2/refund', {
      token: client.token,
      headers: { prefer: 'respond-async', 'idempotency-key': key },
      body: { invoice_id: invoiceId, reason: 'billing' },
    });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal(accepted.headers.get('location'), `/v2/invoice/${invoiceId}/refunds`);
    const again = await call('POST', '/v2/refund', {
      token: client.token,
      headers: { prefer: 'respond-async', 'idempotency-key': key },
      body: { invoice_id: invoiceId, reason: 'billing' },
    });
    assert.equal(again.status, 202, 'the first answer, replayed');
    assert.deepEqual(again.body, accepted.body);
    // The command finishes on its worker: one refund.
    for (;;) {
      const summary = (await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: client.token })).body.payload;
      if (summary.is_fully_refunded) {
        assert.equal(summary.refunds.length, 1);
        break;
      }
      await new Promise((r) => setImmediate(r));
    }
  });

  it('refunds a token-currency invoice from the integrator token wallet, issuing what it lacks (user_refund_virtual)', async () => {
    const name = unique('refund-gem-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    const gems = await newClient({ integrator: name });
    const b = await party(gems);
    const s = await party(gems);
    await fund(b, 'GEM:standard', 1000);
    const created = await call('POST', '/v2/invoice', {
      token: gems.token,
      body: {
        account_id: b.account_id,
        payment_methods: [{ payment_method_id: b.wallets['GEM:standard'].pm, amount: 0 }],
        line_items: [
          {
            amount: 1000,
            currency: 'GEM',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 700, currency: 'GEM', destination_wallet_id: s.wallets['GEM:standard'].wallet }],
          },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    const invoiceId = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: gems.token })).body.payload.state, 'SUCCESS');
    assert.equal(await balance(b.wallets['GEM:standard'].wallet), 0);
    const res = await call('POST', '/v2/refund', { token: gems.token, body: { invoice_id: invoiceId, reason: 'other' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.payload.refunded, { GEM: 1000 });
    assert.equal(await balance(b.wallets['GEM:standard'].wallet), 1000);
    const refundInvoice = await call('GET', `/v2/invoice/${res.body.payload.refunds[0].refund_invoice_id}`, { token: gems.token });
    assert.equal(refundInvoice.body.payload.invoice_type, 'user_refund_virtual');
    const publisher = await systemAccount(h().orm.em.fork(), b.integrator_id, 'publisher_wallet', 'GEM');
    assert.equal(await balance(publisher), 0, 'the token wallet paid what it held, issuance the rest');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('ledger verify names a method or a line that had back more than it paid, and a refund posting that does not match its parts (rolled-back write)', async () => {
    const invoiceId = await paidInvoice(buyer.card!);
    const refunded = await refund(invoiceId);
    assert.equal(refunded.status, 200, refunded.text);
    const purchase = (await call('GET', `/v2/invoice/${invoiceId}`, { token: client.token })).body.payload;
    const line = Object.values(purchase.line_items)[0] as { line_item_id: string };
    const badId = unique('inv_bad');
    const rolledBack = new Error('roll back');
    await assert.rejects(
      db(h().orm.em).transaction(async (tx) => {
        const now = new Date();
        await insertRefundInvoice(tx, {
          id: badId,
          integratorId: buyer.integrator_id,
          accountId: buyer.account_id,
          escrowId: null,
          invoiceType: 'user_refund',
          state: 'SUCCESS',
          referenceType: null,
          referenceId: null,
          description: null,
          metadata: {},
          currency: 'USD',
          totalAmount: 1,
          failureReason: null,
          paymentMethods: [{ payment_method_id: buyer.card!, amount: 1, currency: 'USD' }],
          lineItems: [
            {
              line_item_id: line.line_item_id,
              amount: 1,
              currency: 'USD',
              transaction_type: 'user_to_integrator',
              product_sku: '',
              description: '',
              reference_type: '',
              reference_id: '',
              metadata: {},
              recipients: [],
              parts: [{ payment_method_id: buyer.card!, amount: 1 }],
            } as never,
          ],
          createdAt: now,
          updatedAt: now,
          refundedInvoiceId: invoiceId,
        });
        const over = await overRefundedMethods(tx, 10);
        assert.deepEqual(
          over.map((o) => [o.invoice_id, o.payment_method_id, Number(o.paid), Number(o.back)]),
          [[invoiceId, buyer.card, 1000, 1001]],
        );
        const overLines = await overRefundedLines(tx, 10);
        assert.deepEqual(
          overLines.map((o) => [o.invoice_id, o.line_item_id, Number(o.paid), Number(o.back)]),
          [[invoiceId, line.line_item_id, 1000, 1001]],
        );
        // Its parts went through (1) but it has no posting (0).
        const mismatched = await refundAmountMismatches(tx, 10);
        assert.deepEqual(
          mismatched.map((m) => [m.id, Number(m.succeeded), Number(m.moved)]),
          [[badId, 1, 0]],
        );
        throw rolledBack;
      }),
      rolledBack,
    );
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('refunds a buyer blocked from transactions: money is returned, not spent', async () => {
    const blocked = await party(client);
    await fund(blocked, 'USD:fiat', 600);
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: blocked.account_id,
        payment_methods: [{ payment_method_id: blocked.wallets['USD:fiat'].pm, amount: 0 }],
        line_items: [{ amount: 600, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const invoiceId = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${invoiceId}/pay`, { token: client.token })).body.payload.state, 'SUCCESS');
    const operator = await newClient({ integrator: client.integrator, isOperator: true });
    const block = await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: blocked.account_id, block_capability: 'transactions', block_reason: 'compliance' },
    });
    assert.equal(block.status, 200, block.text);
    const res = await refund(invoiceId);
    assert.equal(res.status, 200, res.text);
    assert.equal(await balance(blocked.wallets['USD:fiat'].wallet), 600);
  });

  it("another integrator's invoice is 404 on both endpoints", async () => {
    const invoiceId = await paidInvoice(buyer.card!);
    const other = await newClient();
    const post = await call('POST', '/v2/refund', { token: other.token, body: { invoice_id: invoiceId, reason: 'other' } });
    assert.equal(post.status, 404, post.text);
    const get = await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: other.token });
    assert.equal(get.status, 404, get.text);
  });

  it('refuses a FAILED invoice, an ESCROWED or cancelled escrow (409 REFUND_NOT_ALLOWED), a missing reason (400); refunds a COMMITTED escrow', async () => {
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.declined, amount: 0 }],
        line_items: [{ amount: 500, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    const failed = created.body.payload.invoice_id;
    assert.equal((await call('POST', `/v2/invoice/${failed}/pay`, { token: client.token })).body.payload.state, 'FAILED');
    const res = await refund(failed);
    assert.equal(res.status, 409, res.text);
    assert.deepEqual(res.body.codes, ['REFUND_NOT_ALLOWED']);
    const summary = await call('GET', `/v2/invoice/${failed}/refunds`, { token: client.token });
    assert.deepEqual(summary.body.payload.refundable, { USD: 0 });

    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount: 500, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(escrow.status, 201, escrow.text);
    const escrowPay = await call('POST', `/v2/escrow/${escrow.body.payload.id}/pay`, { token: client.token });
    assert.equal(escrowPay.body.payload.status, 'ESCROWED', escrowPay.text);
    const escrowed = await refund(escrow.body.payload.escrow_invoice_id);
    assert.equal(escrowed.status, 409, escrowed.text);
    assert.deepEqual(escrowed.body.codes, ['REFUND_NOT_ALLOWED']);
    assert.match(escrowed.body.message[0], /cancel/, escrowed.text);

    // Once committed, the escrow invoice is refunded like any purchase: from the integrator's wallet.
    const commit = await call('POST', `/v2/escrow/${escrow.body.payload.id}/commit`, { token: client.token });
    assert.equal(commit.status, 200, commit.text);
    const before = await publisherBalance(buyer.integrator_id);
    const committed = await refund(escrow.body.payload.escrow_invoice_id);
    assert.equal(committed.status, 200, committed.text);
    assert.deepEqual(committed.body.payload.refunded, { USD: 500 });
    assert.equal(await publisherBalance(buyer.integrator_id), before - 500);

    // A cancelled escrow's cancel refunded its buyer already.
    const cancelled = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount: 300, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    await call('POST', `/v2/escrow/${cancelled.body.payload.id}/pay`, { token: client.token });
    assert.equal((await call('POST', `/v2/escrow/${cancelled.body.payload.id}/cancel`, { token: client.token })).status, 200);
    const afterCancel = await refund(cancelled.body.payload.escrow_invoice_id);
    assert.equal(afterCancel.status, 409, afterCancel.text);
    assert.deepEqual(afterCancel.body.codes, ['REFUND_NOT_ALLOWED']);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

    const bad = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: failed } });
    assert.equal(bad.status, 400);
  });
});
