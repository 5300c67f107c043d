/**
 * An adversarial review of refunds (issue 16): each test either proves a suspected bug (it fails
 * on the code it was written against) or pins a rule that was attacked and held up.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { balances, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { addCard, call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** Credits an integrator's default wallet through the ledger (money paid in from outside). */
async function fundIntegrator(integratorId: string, amount: number, currency = 'USD'): Promise<void> {
  const em = h().orm.em.fork();
  const source = await systemAccount(em, integratorId, currency === 'USD' ? 'card_clearing' : 'token_issuance', currency);
  const publisher = await systemAccount(em, integratorId, 'publisher_wallet', currency);
  await em.transactional((tx) =>
    post(tx, {
      integratorId,
      reference: unique('review-fund-'),
      description: 'review: integrator funding',
      entries: [
        { account: source, currency, amount: -amount },
        { account: publisher, currency, amount },
      ],
    }),
  );
}

/** Pays the integrator's default USD wallet out (to card clearing) until it holds `left`. */
async function drainIntegratorTo(integratorId: string, left: number): Promise<void> {
  const em = h().orm.em.fork();
  const clearing = await systemAccount(em, integratorId, 'card_clearing', 'USD');
  const publisher = await systemAccount(em, integratorId, 'publisher_wallet', 'USD');
  const out = (await publisherBalance(integratorId)) - left;
  await em.transactional((tx) =>
    post(tx, {
      integratorId,
      reference: unique('review-drain-'),
      description: 'review: integrator payout',
      entries: [
        { account: publisher, currency: 'USD', amount: -out },
        { account: clearing, currency: 'USD', amount: out },
      ],
    }),
  );
}

async function publisherBalance(integratorId: string, currency = 'USD'): Promise<number> {
  const publisher = await systemAccount(h().orm.em.fork(), integratorId, 'publisher_wallet', currency);
  return (await balances(h().orm.em.fork(), [publisher])).get(publisher) ?? 0;
}

async function ledgerProblems(): Promise<string[]> {
  return (await verifyAll(h().orm.em.fork())).problems;
}

/** A USD invoice of `lines` paid with `methods` ({pm, amount}); its id and line item ids (invoice order). */
async function paidInvoice(
  client: TestClient,
  buyer: Party,
  methods: Array<{ pm: string; amount: number }>,
  lines: number[],
): Promise<{ id: string; lines: string[] }> {
  const created = await call('POST', '/v2/invoice', {
    token: client.token,
    body: {
      account_id: buyer.account_id,
      payment_methods: methods.map((m) => ({ payment_method_id: m.pm, amount: m.amount })),
      line_items: lines.map((amount) => ({ amount, currency: 'USD', transaction_type: 'user_to_integrator' })),
    },
  });
  assert.equal(created.status, 201, created.text);
  const id = created.body.payload.invoice_id;
  const paid = await call('POST', `/v2/invoice/${id}/pay`, { token: client.token });
  assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
  return { id, lines: await lineIds(client, id) };
}

async function lineIds(client: TestClient, invoiceId: string): Promise<string[]> {
  const got = await call('GET', `/v2/invoice/${invoiceId}`, { token: client.token });
  return Object.keys(got.body.payload.line_items);
}

const lineRefund = (client: TestClient, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call('POST', '/v2/line-item/refund', { token: client.token, body: { reason: 'other', ...body }, headers });

describe('refunds: adversarial review', () => {
  let client: TestClient;
  let buyer: Party;

  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    await fundIntegrator(buyer.integrator_id, 1_000_000);
  });

  it('a user password token cannot call the refund endpoints (401); the integrator refunds the authorized invoice its buyer paid', async () => {
    const authorized = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        invoice_mechanism: 'api',
        line_items: [{ amount: 900, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(authorized.status, 200, authorized.text);
    const invoiceId = authorized.body.payload.authorized_invoice_id;
    const userToken = authorized.body.payload.password_token.access_token;
    // Authorized but not paid: nothing to refund yet.
    const early = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: invoiceId, reason: 'other' } });
    assert.equal(early.status, 409, early.text);
    assert.deepEqual(early.body.codes, ['REFUND_NOT_ALLOWED']);
    const paid = await call('POST', `/v2/invoice/${invoiceId}/pay`, {
      token: userToken,
      body: { payment_methods: [{ payment_method_id: buyer.card }] },
    });
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    const [line] = await lineIds(client, invoiceId);

    // The buyer refunding its own purchase: the refund endpoints are the integrator's only.
    const own = await call('POST', '/v2/refund', { token: userToken, body: { invoice_id: invoiceId, reason: 'fraud' } });
    assert.equal(own.status, 401, own.text);
    const ownLine = await call('POST', '/v2/line-item/refund', {
      token: userToken,
      body: { line_item_id: line, amount: 100, payment_methods: [buyer.card], reason: 'fraud' },
    });
    assert.equal(ownLine.status, 401, ownLine.text);
    const ownGet = await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: userToken });
    assert.equal(ownGet.status, 401, ownGet.text);

    const res = await lineRefund(client, { line_item_id: line, amount: 400, payment_methods: [buyer.card] });
    assert.equal(res.status, 200, res.text);
    const rest = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: invoiceId, reason: 'billing' } });
    assert.equal(rest.status, 200, rest.text);
    assert.deepEqual(rest.body.payload.refunded, { USD: 900 });
    assert.equal(rest.body.payload.is_fully_refunded, true);
  });

  it('12 concurrent line-item refunds of 300 on a 1000 line: 3 go through (900), the others are refused, none 5xx', async () => {
    const { id, lines } = await paidInvoice(client, buyer, [{ pm: buyer.card!, amount: 0 }], [1000]);
    const before = await publisherBalance(buyer.integrator_id);
    const answers = await Promise.all(
      // Each request different (its note): identical ones in flight together share one refund.
      Array.from({ length: 12 }, (_, i) =>
        lineRefund(client, { line_item_id: lines[0], amount: 300, payment_methods: [buyer.card], note: `request ${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    assert.ok(
      statuses.every((s) => s === 200 || s === 400 || s === 409),
      statuses.join(','),
    );
    assert.equal(statuses.filter((s) => s === 200).length, 3, statuses.join(','));
    for (const a of answers.filter((x) => x.status === 400)) assert.deepEqual(Object.keys(a.body.payload.errors), ['amount'], a.text);
    const summary = (await call('GET', `/v2/invoice/${id}/refunds`, { token: client.token })).body.payload;
    assert.deepEqual(summary.refunded, { USD: 900 });
    assert.deepEqual(summary.refundable, { USD: 100 });
    assert.equal(await publisherBalance(buyer.integrator_id), before - 900);
    // The last 100, then nothing.
    assert.equal((await lineRefund(client, { line_item_id: lines[0], amount: 100, payment_methods: [buyer.card] })).status, 200);
    const none = await lineRefund(client, { line_item_id: lines[0], amount: 1, payment_methods: [buyer.card] });
    assert.equal(none.status, 409, none.text);
    assert.deepEqual(none.body.codes, ['NOTHING_TO_REFUND']);
    const full = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: id, reason: 'other' } });
    assert.equal(full.status, 409, full.text);
    assert.equal(await publisherBalance(buyer.integrator_id), before - 1000);
  });

  it('concurrent duplicate line-item refunds (a client retry without Idempotency-Key) refund once, as the contract asks of both POSTs', async () => {
    const { id, lines } = await paidInvoice(client, buyer, [{ pm: buyer.card!, amount: 0 }], [1000]);
    const body = { line_item_id: lines[0], amount: 200, payment_methods: [buyer.card], reason: 'other' };
    // Hold the purchase invoice's row so that no refund command runs before all three are asked.
    const holder = h().orm.em.fork();
    await holder.begin();
    let commands: string[];
    try {
      await holder.execute('select id from invoice where id = ? for update', [id]);
      const asked = await Promise.all(
        [1, 2, 3].map(() => call('POST', '/v2/line-item/refund', { token: client.token, body, headers: { prefer: 'respond-async' } })),
      );
      for (const a of asked) assert.equal(a.status, 202, a.text);
      commands = [...new Set(asked.map((a) => a.headers.get('x-command-id')!))];
    } finally {
      await holder.commit();
    }
    for (const command of commands) {
      for (let i = 0; ; i++) {
        const got = await call('GET', `/v2/commands/${command}`, { token: client.token });
        if (got.body.payload.state === 'done') break;
        assert.ok(i < 500, `command ${command} never finished`);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const summary = (await call('GET', `/v2/invoice/${id}/refunds`, { token: client.token })).body.payload;
    assert.deepEqual(
      summary.refunded,
      { USD: 200 },
      `${summary.refunds.length} refunds of one request asked three times at once (${commands.length} commands)`,
    );
  });

  it('a retried line-item refund with its Idempotency-Key refunds once', async () => {
    const { id, lines } = await paidInvoice(client, buyer, [{ pm: buyer.card!, amount: 0 }], [500]);
    const key = unique('review-key-');
    const body = { line_item_id: lines[0], amount: 200, payment_methods: [buyer.card] };
    const first = await lineRefund(client, body, { 'Idempotency-Key': key });
    const again = await lineRefund(client, body, { 'Idempotency-Key': key });
    assert.equal(first.status, 200, first.text);
    assert.equal(again.status, 200, again.text);
    const summary = (await call('GET', `/v2/invoice/${id}/refunds`, { token: client.token })).body.payload;
    assert.equal(summary.refunds.length, 1);
    assert.deepEqual(summary.refunded, { USD: 200 });
  });

  it('a line item found through its escrow commit invoice refunds the escrow invoice; another integrator gets 404', async () => {
    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount: 600, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(escrow.status, 201, escrow.text);
    const escrowId = escrow.body.payload.id;
    const escrowInvoice = escrow.body.payload.escrow_invoice_id;
    await call('POST', `/v2/escrow/${escrowId}/pay`, { token: client.token });
    const [line] = await lineIds(client, escrowInvoice);
    const escrowed = await lineRefund(client, { line_item_id: line, amount: 100, payment_methods: [buyer.card] });
    assert.equal(escrowed.status, 409, escrowed.text);
    assert.deepEqual(escrowed.body.codes, ['REFUND_NOT_ALLOWED']);
    assert.equal((await call('POST', `/v2/escrow/${escrowId}/commit`, { token: client.token })).status, 200);
    // The commit invoice carries the same line item: it must not be the one refunded.
    const other = await newClient();
    const foreign = await lineRefund(other, { line_item_id: line, amount: 100, payment_methods: [buyer.card] });
    assert.equal(foreign.status, 404, foreign.text);
    assert.deepEqual(foreign.body.codes, ['LINE_ITEM_NOT_FOUND']);
    const res = await lineRefund(client, { line_item_id: line, amount: 100, payment_methods: [buyer.card] });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.invoice_id, escrowInvoice);
    assert.deepEqual(res.body.payload.refundable, { USD: 500 });
  });

  it('refund-failing card beside a wallet: rejected while the integrator cannot cover the wallet part, then only the wallet part moves', async () => {
    const own = await newClient();
    const b = await party(own);
    const failing = await addCard(own, b.account_id, '4000000000005126');
    await fund(b, 'USD:fiat', 400);
    const { id } = await paidInvoice(
      own,
      b,
      [
        { pm: failing, amount: 600 },
        // The remainder: 400.
        { pm: b.wallets['USD:fiat'].pm, amount: 0 },
      ],
      [700, 300],
    );
    // The purchase's 1000 went to the integrator's wallet: leave it 50, less than the wallet part.
    await drainIntegratorTo(b.integrator_id, 50);
    const rejected = await call('POST', '/v2/refund', { token: own.token, body: { invoice_id: id, reason: 'fraud' } });
    assert.equal(rejected.status, 409, rejected.text);
    assert.deepEqual(rejected.body.codes, ['REFUND_REJECTED']);
    assert.equal(rejected.body.payload.refunds[0].status, 'REFUND-REJECTED');
    assert.equal(await balance(b.wallets['USD:fiat'].wallet), 0);

    await fundIntegrator(b.integrator_id, 400);
    const partly = await call('POST', '/v2/refund', { token: own.token, body: { invoice_id: id, reason: 'fraud' } });
    assert.equal(partly.status, 200, partly.text);
    const latest = partly.body.payload.refunds.at(-1);
    assert.equal(latest.status, 'REFUND-FAILED');
    assert.equal(latest.failure_reason, 'refund_declined');
    assert.deepEqual(latest.payment_methods, [
      { payment_method_id: failing, amount: 600, status: 'failed' },
      { payment_method_id: b.wallets['USD:fiat'].pm, amount: 400, status: 'succeeded' },
    ]);
    assert.deepEqual(partly.body.payload.refunded, { USD: 400 });
    assert.deepEqual(partly.body.payload.refundable, { USD: 600 });
    assert.equal(partly.body.payload.is_fully_refunded, false);
    assert.equal(await balance(b.wallets['USD:fiat'].wallet), 400);
    assert.equal(await publisherBalance(b.integrator_id), 50);
    // Again: only the card is left, it fails again, nothing moves.
    const again = await call('POST', '/v2/refund', { token: own.token, body: { invoice_id: id, reason: 'fraud' } });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.payload.refunded, { USD: 400 });
    assert.equal(await publisherBalance(b.integrator_id), 50);
    // The first line (700) had 100 back through the wallet, the second (300) all of it: the
    // first has 600 left, but the wallet nothing, so naming it is refused on payment_methods.
    const [first, second] = await lineIds(own, id);
    const done = await lineRefund(own, { line_item_id: second, amount: 1, payment_methods: [failing] });
    assert.equal(done.status, 409, done.text);
    assert.deepEqual(done.body.codes, ['NOTHING_TO_REFUND']);
    const wallet = await lineRefund(own, {
      line_item_id: first,
      amount: 100,
      payment_methods: [b.wallets['USD:fiat'].pm],
    });
    assert.equal(wallet.status, 400, wallet.text);
    assert.deepEqual(wallet.body.payload.errors, { payment_methods: ['EXCEEDS_REFUNDABLE'] });
    assert.deepEqual(await ledgerProblems(), []);
  });

  it('token purchase at 30 tokens per USD with a token spent: the cap and the rounding never take back more than is there', async () => {
    const name = unique('review-gem-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 30 });
    const gems = await newClient({ integrator: name });
    const b = await party(gems, true);
    await fundIntegrator(b.integrator_id, 5000);
    const bought = await call('POST', '/v2/token/purchase', {
      token: gems.token,
      body: { payment_method_id: b.card, amount: 1000, currency: 'USD' },
    });
    assert.equal(bought.status, 201, bought.text);
    assert.equal(bought.body.payload.state, 'SUCCESS', bought.text);
    const invoiceId = bought.body.payload.invoice_id;
    const tokens = b.wallets['GEM:standard'].wallet;
    assert.equal(await balance(tokens), 300);
    // One token spent (sent to the integrator's token wallet).
    const publisherGem = await systemAccount(h().orm.em.fork(), b.integrator_id, 'publisher_wallet', 'GEM');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: b.integrator_id,
          reference: unique('review-spend-'),
          description: 'review: a token spent',
          entries: [
            { account: tokens, currency: 'GEM', amount: -1 },
            { account: publisherGem, currency: 'GEM', amount: 1 },
          ],
        }),
      );
    const summary = (await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: gems.token })).body.payload;
    assert.deepEqual(summary.refundable, { USD: 996 }, '299 tokens cover floor(299 × 1000 / 300) cents');
    const [line] = await lineIds(gems, invoiceId);
    const tooMuch = await lineRefund(gems, { line_item_id: line, amount: 997, payment_methods: [b.card] });
    assert.equal(tooMuch.status, 400, tooMuch.text);
    assert.deepEqual(tooMuch.body.payload.errors, { amount: ['EXCEEDS_REFUNDABLE'] });
    const cent = await lineRefund(gems, { line_item_id: line, amount: 1, payment_methods: [b.card] });
    assert.equal(cent.status, 200, cent.text);
    assert.equal(await balance(tokens), 298, 'one cent takes back ceil(0.3) = 1 token');
    const full = await call('POST', '/v2/refund', { token: gems.token, body: { invoice_id: invoiceId, reason: 'other' } });
    assert.equal(full.status, 200, full.text);
    assert.deepEqual(full.body.payload.refunded, { USD: 996 });
    assert.deepEqual(full.body.payload.refundable, { USD: 0 });
    assert.equal(full.body.payload.is_fully_refunded, false);
    assert.equal(await balance(tokens), 0);
    const none = await call('POST', '/v2/refund', { token: gems.token, body: { invoice_id: invoiceId, reason: 'other' } });
    assert.equal(none.status, 409, none.text);
    assert.deepEqual(none.body.codes, ['NOTHING_TO_REFUND']);
    assert.equal(await publisherBalance(b.integrator_id), 5000 + 1000 - 996);
    assert.deepEqual(await ledgerProblems(), []);
  });

  it('a large token purchase at 10000 tokens per USD refunds what its unspent tokens cover (no floating-point overshoot)', async () => {
    const name = unique('review-big-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 10_000 });
    const gems = await newClient({ integrator: name });
    const b = await party(gems, true);
    // USD 191,690.51 buys 1,916,905,100 tokens; 8,408,200 are spent, 1,908,496,900 stay: they cover 19,084,969 cents exactly.
    const bought = await call('POST', '/v2/token/purchase', {
      token: gems.token,
      body: { payment_method_id: b.card, amount: 19_169_051, currency: 'USD' },
    });
    assert.equal(bought.body.payload.state, 'SUCCESS', bought.text);
    const invoiceId = bought.body.payload.invoice_id;
    const tokens = b.wallets['GEM:standard'].wallet;
    const publisherGem = await systemAccount(h().orm.em.fork(), b.integrator_id, 'publisher_wallet', 'GEM');
    await h()
      .orm.em.fork()
      .transactional((tx) =>
        post(tx, {
          integratorId: b.integrator_id,
          reference: unique('review-spend-'),
          description: 'review: tokens spent',
          entries: [
            { account: tokens, currency: 'GEM', amount: -8_408_200 },
            { account: publisherGem, currency: 'GEM', amount: 8_408_200 },
          ],
        }),
      );
    assert.equal(await balance(tokens), 1_908_496_900);
    const summary = (await call('GET', `/v2/invoice/${invoiceId}/refunds`, { token: gems.token })).body.payload;
    assert.deepEqual(summary.refundable, { USD: 19_084_969 });
    // Asked without waiting: the refund's command runs once and is done, or it keeps failing and retrying.
    const asked = await call('POST', '/v2/refund', {
      token: gems.token,
      body: { invoice_id: invoiceId, reason: 'other' },
      headers: { prefer: 'respond-async' },
    });
    assert.equal(asked.status, 202, asked.text);
    const command = asked.headers.get('x-command-id')!;
    let state = 'pending';
    for (let i = 0; i < 100 && state !== 'done'; i++) {
      state = (await call('GET', `/v2/commands/${command}`, { token: gems.token })).body.payload.state;
      if (state !== 'done') await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(state, 'done', 'the refund command is still pending: its posting overdrew the token wallet and the job retries');
    assert.equal(await balance(tokens), 0);
  });

  it("a wallet's statement shows the refund, with a phase its documentation names", async () => {
    const b = await party(client);
    await fund(b, 'USD:fiat', 300);
    const { id } = await paidInvoice(client, b, [{ pm: b.wallets['USD:fiat'].pm, amount: 0 }], [300]);
    const refunded = await call('POST', '/v2/refund', { token: client.token, body: { invoice_id: id, reason: 'other' } });
    assert.equal(refunded.status, 200, refunded.text);
    const statement = await call('GET', `/v1/${b.account_id}/statement`, { token: client.token });
    assert.equal(statement.status, 200, statement.text);
    const [latest] = statement.body.payload.entries;
    assert.deepEqual([latest.amount, latest.invoice_id], [300, refunded.body.payload.refunds[0].refund_invoice_id]);
    // StatementEntry.phase lists the phases a statement shows.
    const yaml = readFileSync('openapi/invoicing.yaml', 'utf8');
    const documented = /phase: \{ type: string, description: '([^']*)' \}/.exec(yaml)![1];
    assert.ok(documented.includes(`\`${latest.phase}\``), `phase ${latest.phase} is not among ${documented}`);
  });

  it('names a line-item refund method error the way every other array field is named (payment_methods.1, not payment_methods[1])', async () => {
    const { lines } = await paidInvoice(client, buyer, [{ pm: buyer.card!, amount: 0 }], [300]);
    // A malformed id at index 1: the request validator names it.
    const malformed = await lineRefund(client, { line_item_id: lines[0], amount: 10, payment_methods: [buyer.card, 42] });
    assert.equal(malformed.status, 400, malformed.text);
    assert.deepEqual(Object.keys(malformed.body.payload.errors), ['payment_methods.1']);
    // A duplicate at index 1: the refund rules name it — the same field must have the same name.
    const duplicate = await lineRefund(client, {
      line_item_id: lines[0],
      amount: 10,
      payment_methods: [buyer.card, buyer.card],
    });
    assert.equal(duplicate.status, 400, duplicate.text);
    assert.deepEqual(Object.keys(duplicate.body.payload.errors), ['payment_methods.1'], duplicate.text);
  });

  it('a refund to a wallet and a pay from that wallet at once do not deadlock (the refund locks the publisher before the wallet, pay the other way)', async () => {
    const own = await newClient();
    const b = await party(own);
    const wallet = b.wallets['USD:fiat'];
    await fund(b, 'USD:fiat', 3000);
    await fundIntegrator(b.integrator_id, 5000);
    const { id: refunded } = await paidInvoice(own, b, [{ pm: wallet.pm, amount: 0 }], [1000]);
    const created = await call('POST', '/v2/invoice', {
      token: own.token,
      body: {
        account_id: b.account_id,
        payment_methods: [{ payment_method_id: wallet.pm, amount: 0 }],
        line_items: [{ amount: 500, currency: 'USD', transaction_type: 'user_to_integrator' }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const toPay = created.body.payload.invoice_id;
    const deadlocks = async () =>
      Number(
        (
          await h()
            .orm.em.fork()
            .execute<Array<{ n: string }>>('select deadlocks as n from pg_stat_database where datname = current_database()')
        )[0].n,
      );
    const before = await deadlocks();

    // Hold the buyer's wallet row until both the pay and the refund wait for it; the pay asked first.
    const holder = h().orm.em.fork();
    await holder.begin();
    const [{ pid }] = await holder.execute<Array<{ pid: number }>>('select pg_backend_pid() as pid');
    await holder.execute('select id from ledger_account where id = ? for update', [wallet.wallet]);
    // Sessions of this database waiting for a row lock (the second waits behind the first, not on the holder).
    const waiting = async (n: number) => {
      for (let i = 0; i < 500; i++) {
        const [row] = await h()
          .orm.em.fork()
          .execute<Array<{ n: string }>>(
            `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and pid <> ?`,
            [pid],
          );
        if (Number(row.n) >= n) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`fewer than ${n} sessions wait for a lock`);
    };
    let paying: ReturnType<typeof call>;
    let refunding: ReturnType<typeof call>;
    try {
      paying = call('POST', `/v2/invoice/${toPay}/pay`, { token: own.token });
      await waiting(1);
      refunding = call('POST', '/v2/refund', { token: own.token, body: { invoice_id: refunded, reason: 'other' } });
      await waiting(2);
    } finally {
      await holder.commit();
    }
    const [paid, refund] = await Promise.all([paying, refunding]);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(refund.status, 200, refund.text);
    // Statistics reach pg_stat_database within a second of the transaction's end.
    let seen = 0;
    for (let i = 0; i < 15 && seen === 0; i++) {
      seen = (await deadlocks()) - before;
      if (seen === 0) await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(seen, 0, 'PostgreSQL broke a deadlock between the refund and the pay (one of them was aborted and retried)');
    assert.equal(await balance(wallet.wallet), 3000 - 1000 - 500 + 1000);
  });
});
