import assert from 'node:assert/strict';
import { db } from '../../src/db/sql.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { consumeSessionNonce } from '../../src/sessions/user-session.service.js';
import { commandResult, runCommandWith, submitCommand } from '../../src/commands/command.service.js';
import { invoiceCommands } from '../../src/invoices/invoice.commands.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, h, newClient, register, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

const line = (amount: number, currency = 'USD', sellerWallet?: string) => ({
  amount,
  currency,
  transaction_type: sellerWallet ? 'user_to_user' : 'user_to_integrator',
  product_sku: 'sword',
  recipients: sellerWallet ? [{ amount: amount - 100, currency, destination_wallet_id: sellerWallet }] : [],
});

const count = async (table: string, accountId: string) =>
  Number(
    (await h().orm.em.fork().execute<Array<{ n: string }>>(`select count(*) as n from ${table} where account_id = ?`, [accountId]))[0].n,
  );

describe("invoice authorization (POST /v2/authorize/invoice) and the buyer's pay", () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;
  before(async () => {
    client = await newClient();
    buyer = await party(client, true);
    seller = await party(client);
  });

  const authorize = (body: Record<string, unknown>, token = client.token) =>
    call('POST', '/v2/authorize/invoice', {
      token,
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', line_items: [line(1000)], ...body },
    });
  const pay = (invoiceId: string, token: string, methods?: unknown) =>
    call('POST', `/v2/invoice/${invoiceId}/pay`, { token, ...(methods ? { body: { payment_methods: methods } } : {}) });

  it('gives the api mechanism an OPEN invoice without payment methods and a password token for the buyer, never cached', async () => {
    const res = await authorize({ reference_type: 'order', reference_id: 'o-7' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const { authorized_invoice_id: invoiceId, password_token: token } = res.body.payload;
    assert.match(invoiceId, /^inv_/);
    assert.equal(token.token_type, 'Bearer');
    assert.equal(res.body.payload.escrow_id, undefined);
    const seen = await call('GET', `/v2/invoice/${invoiceId}`, { token: token.access_token });
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.body.payload.state, 'OPEN');
    assert.equal(seen.body.payload.invoice_type, 'user_purchase');
    assert.equal(seen.body.payload.reference_id, 'o-7');
    assert.deepEqual(seen.body.payload.payment_methods, {});
  });

  it('lets the buyer pay with the password token and the payment methods it chose; a retry moves nothing', async () => {
    const auth = (await authorize({ line_items: [line(1000, 'USD', seller.wallets['USD:fiat'].wallet)] })).body.payload;
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const paid = await pay(auth.authorized_invoice_id, auth.password_token.access_token, [{ payment_method_id: buyer.card, amount: 0 }]);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    assert.deepEqual(
      Object.values(paid.body.payload.payment_methods).map((m: any) => [m.payment_method_id, m.authorized_amount]),
      [[buyer.card, 1000]],
    );
    assert.equal((await balance(seller.wallets['USD:fiat'].wallet)) - before, 900);
    const again = await pay(auth.authorized_invoice_id, auth.password_token.access_token, [{ payment_method_id: buyer.card, amount: 0 }]);
    assert.equal(again.status, 200);
    assert.equal((await balance(seller.wallets['USD:fiat'].wallet)) - before, 900, 'paid once');
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it("holds an authorized escrow until the buyer pays: the integrator's pay before that is 409 and moves nothing; then commit settles", async () => {
    await fund(buyer, 'USD:fiat', 2000);
    const auth = (await authorize({ is_escrow: true, line_items: [line(1500, 'USD', seller.wallets['USD:fiat'].wallet)] })).body.payload;
    assert.match(auth.escrow_id, /^esc_/);
    const escrow = (await call('GET', `/v2/escrow/${auth.escrow_id}`, { token: client.token })).body.payload;
    assert.deepEqual([escrow.status, escrow.escrow_invoice_id], ['OPEN', auth.authorized_invoice_id]);

    const early = await call('POST', `/v2/escrow/${auth.escrow_id}/pay`, { token: client.token });
    assert.equal(early.status, 409, early.text);
    assert.deepEqual(early.body.codes, ['ESCROW_STATE_ERROR']);
    assert.match(early.body.message[0], /not chosen the payment methods/);
    assert.equal(early.body.payload.status, 'OPEN');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 2000);
    const noMethods = await pay(auth.authorized_invoice_id, auth.password_token.access_token);
    assert.equal(noMethods.status, 400);
    assert.deepEqual(noMethods.body.payload.errors, { payment_methods: ['REQUIRED'] });

    const paid = await pay(auth.authorized_invoice_id, auth.password_token.access_token, [
      { payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 },
    ]);
    assert.equal(paid.status, 200, paid.text);
    assert.equal(paid.body.payload.invoice_id, auth.authorized_invoice_id);
    assert.equal(paid.body.payload.state, 'SUCCESS');
    assert.equal(await balance(buyer.wallets['USD:fiat'].wallet), 500);
    assert.equal((await call('GET', `/v2/escrow/${auth.escrow_id}`, { token: client.token })).body.payload.status, 'ESCROWED');
    // The escrow's own pay now answers as a repeated one.
    assert.equal((await call('POST', `/v2/escrow/${auth.escrow_id}/pay`, { token: client.token })).body.payload.status, 'ESCROWED');
    const before = await balance(seller.wallets['USD:fiat'].wallet);
    const committed = await call('POST', `/v2/escrow/${auth.escrow_id}/commit`, { token: client.token });
    assert.equal(committed.body.payload.status, 'COMMITTED');
    assert.equal((await balance(seller.wallets['USD:fiat'].wallet)) - before, 1400);
    assert.equal(
      (await pay(auth.authorized_invoice_id, auth.password_token.access_token)).status,
      200,
      'paying a paid invoice answers it as it is',
    );
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a failed charge fails the authorized escrow (200, ESCROW-FAILED behind it) and a second pay is 409', async () => {
    const auth = (await authorize({ is_escrow: true })).body.payload;
    const failed = await pay(auth.authorized_invoice_id, auth.password_token.access_token, [
      { payment_method_id: buyer.declined, amount: 0 },
    ]);
    assert.equal(failed.status, 200, failed.text);
    assert.deepEqual([failed.body.payload.state, failed.body.payload.failure_reason], ['FAILED', 'card_declined']);
    assert.equal((await call('GET', `/v2/escrow/${auth.escrow_id}`, { token: client.token })).body.payload.status, 'ESCROW-FAILED');
    const again = await pay(auth.authorized_invoice_id, auth.password_token.access_token);
    assert.equal(again.status, 409);
    assert.deepEqual(again.body.codes, ['INVOICE_STATE_ERROR']);
  });

  it('checks the chosen payment methods by the escrow rules, naming the field', async () => {
    const other = await party(client, true);
    const auth = (await authorize({})).body.payload;
    const token = auth.password_token.access_token;
    const cases: Array<[unknown, Record<string, string[]>]> = [
      [[{ payment_method_id: other.card, amount: 0 }], { 'payment_methods.0.payment_method_id': ['NOT_FOUND'] }],
      [[{ payment_method_id: buyer.card, amount: 999 }], { 'payment_methods.0.amount': ['MUST_COVER_TOTAL'] }],
      [
        [
          { payment_method_id: buyer.card, amount: 0 },
          { payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 },
        ],
        { payment_methods: ['EXACTLY_ONE_REMAINDER'] },
      ],
    ];
    for (const [methods, errors] of cases) {
      const res = await pay(auth.authorized_invoice_id, token, methods);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(res.body.payload.errors, errors);
    }
    const seen = await call('GET', `/v2/invoice/${auth.authorized_invoice_id}`, { token: client.token });
    assert.deepEqual([seen.body.payload.state, seen.body.payload.payment_methods], ['OPEN', {}], 'nothing was chosen or charged');
  });

  it('fixes the payment methods once: of two concurrent pays naming different ones, one is charged and the other gets 409', async () => {
    await fund(buyer, 'USD:fiat', 1000);
    const auth = (await authorize({})).body.payload;
    const token = auth.password_token.access_token;
    const walletBefore = await balance(buyer.wallets['USD:fiat'].wallet);
    const answers = await Promise.all([
      pay(auth.authorized_invoice_id, token, [{ payment_method_id: buyer.card, amount: 0 }]),
      pay(auth.authorized_invoice_id, token, [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }]),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409], answers.map((a) => a.text).join('\n'));
    const won = answers.find((a) => a.status === 200)!.body.payload;
    assert.equal(won.state, 'SUCCESS');
    const byWallet = Object.values(won.payment_methods).some((m: any) => m.payment_method_id === buyer.wallets['USD:fiat'].pm);
    assert.equal(
      walletBefore - (await balance(buyer.wallets['USD:fiat'].wallet)),
      byWallet ? 1000 : 0,
      "only the winner's method was charged",
    );
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('never lets a later pay replace methods chosen by one still running: 409, and the chosen ones are charged', async () => {
    const auth = (await authorize({})).body.payload;
    // The state a first pay leaves between choosing the methods and its command running.
    await h()
      .orm.em.fork()
      .execute(`update invoice set payment_methods = ?::jsonb where id = ?`, [
        JSON.stringify([{ payment_method_id: buyer.card, amount: 1000, currency: 'USD' }]),
        auth.authorized_invoice_id,
      ]);
    const other = await pay(auth.authorized_invoice_id, auth.password_token.access_token, [
      { payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 },
    ]);
    assert.equal(other.status, 409, other.text);
    assert.deepEqual(other.body.codes, ['INVOICE_STATE_ERROR']);
    assert.match(other.body.message[0], /already chosen/);
    const first = await pay(auth.authorized_invoice_id, auth.password_token.access_token, [
      { payment_method_id: buyer.card, amount: 1000 },
    ]);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      Object.values(first.body.payload.payment_methods).map((m: any) => m.payment_method_id),
      [buyer.card],
    );
  });

  it('lets the first pay to choose the methods win a race: a later one waiting on the same row cannot replace them', async () => {
    const auth = (await authorize({})).body.payload;
    const token = auth.password_token.access_token;
    // Pays waiting on the row lock to store their methods.
    const waiting = async (n: number) => {
      for (let i = 0; i < 500; i++) {
        const [row] = await h()
          .orm.em.fork()
          .execute<Array<{ n: string }>>(
            `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'update invoice set payment_methods%'`,
          );
        if (Number(row.n) >= n) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`${n} pays never waited on the invoice row`);
    };
    let answers: Array<ReturnType<typeof pay>> = [];
    // Both pays pass their checks while the invoice row is held, then store in the order they came.
    await h()
      .orm.em.fork()
      .transactional(async (tx) => {
        await tx.execute('select 1 from invoice where id = ? for update', [auth.authorized_invoice_id]);
        const first = pay(auth.authorized_invoice_id, token, [{ payment_method_id: buyer.card, amount: 0 }]);
        await waiting(1);
        const second = pay(auth.authorized_invoice_id, token, [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }]);
        await waiting(2);
        answers = [first, second];
      });
    const [first, second] = await Promise.all(answers);
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      Object.values(first.body.payload.payment_methods).map((m: any) => m.payment_method_id),
      [buyer.card],
    );
    assert.equal(second.status, 409, second.text);
  });

  it('a pay command that reaches the worker before any methods were chosen answers 409 and charges nothing', async () => {
    const auth = (await authorize({})).body.payload;
    const em = h().orm.em.fork();
    const commandId = await submitCommand(db(em), {
      integratorId: buyer.integrator_id,
      kind: 'invoice.pay',
      targetId: auth.authorized_invoice_id,
    });
    // As the worker runs it: the runner's refusal is the command's stored result.
    const result = await runCommandWith(invoiceCommands['invoice.pay']!, em, commandId);
    assert.deepEqual(await commandResult(db(em), commandId), result);
    assert.equal(result?.status, 409);
    assert.deepEqual((result?.body as any)?.codes, ['INVOICE_STATE_ERROR']);
    const seen = await call('GET', `/v2/invoice/${auth.authorized_invoice_id}`, { token: client.token });
    assert.equal(seen.body.payload.state, 'OPEN');
  });

  it("keeps each password token to its own account's authorized invoices", async () => {
    const mine = (await authorize({})).body.payload;
    const other = await register(client);
    const theirs = (await authorize({ account_id: other.account_id })).body.payload;
    const strangerToken = theirs.password_token.access_token;
    for (const res of [
      await call('GET', `/v2/invoice/${mine.authorized_invoice_id}`, { token: strangerToken }),
      await pay(mine.authorized_invoice_id, strangerToken, [{ payment_method_id: buyer.card, amount: 0 }]),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.body.codes, ['INVOICE_GET_ERROR']);
    }
    // An invoice the integrator made with its payment methods is not the buyer's to pay.
    const standard = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [line(300)],
      },
    });
    assert.equal((await pay(standard.body.payload.invoice_id, mine.password_token.access_token)).status, 404);
    const named = await pay(standard.body.payload.invoice_id, client.token, [{ payment_method_id: buyer.card, amount: 0 }]);
    assert.equal(named.status, 400);
    assert.deepEqual(named.body.payload.errors, { payment_methods: ['NOT_ALLOWED'] });
    // The token cannot reach the server-only operations.
    assert.equal(
      (
        await call('POST', '/v2/authorize/invoice', {
          token: mine.password_token.access_token,
          body: {
            account_id: buyer.account_id,
            invoice_mechanism: 'api',
            line_items: [line(100)],
          },
        })
      ).status,
      401,
    );
  });

  it('replays an Idempotency-Key retry with the same invoice and a fresh token, and never keeps a token or nonce at rest', async () => {
    for (const mechanism of ['api', 'widget']) {
      const key = unique('auth-');
      const body = { account_id: buyer.account_id, invoice_mechanism: mechanism, is_escrow: true, line_items: [line(400)] };
      const first = await call('POST', '/v2/authorize/invoice', { token: client.token, body, headers: { 'idempotency-key': key } });
      const again = await call('POST', '/v2/authorize/invoice', { token: client.token, body, headers: { 'idempotency-key': key } });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(
        [again.body.payload.authorized_invoice_id, again.body.payload.escrow_id],
        [first.body.payload.authorized_invoice_id, first.body.payload.escrow_id],
        'the same invoice and escrow: nothing made twice',
      );
      const [stored] = await h()
        .orm.em.fork()
        .execute<Array<{ body: string }>>('select response_body::text as body from idempotency_key where key = ?', [key]);
      assert.deepEqual(JSON.parse(stored.body), {
        authorized_invoice_id: first.body.payload.authorized_invoice_id,
        escrow_id: first.body.payload.escrow_id,
      });
      if (mechanism === 'api') {
        assert.notEqual(again.body.payload.password_token.refresh_token, first.body.payload.password_token.refresh_token);
        const seen = await call('GET', `/v2/invoice/${first.body.payload.authorized_invoice_id}`, {
          token: again.body.payload.password_token.access_token,
        });
        assert.equal(seen.status, 200, "the replay's token works");
      } else {
        assert.notEqual(again.body.payload.nonce_auth_id, first.body.payload.nonce_auth_id);
        assert.equal((await consumeSessionNonce(h().orm.em.fork(), again.body.payload.nonce_auth_id))?.accountId, buyer.account_id);
      }
    }
    assert.equal((await count('invoice', buyer.account_id)) > 0, true);
    const different = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      headers: { 'idempotency-key': 'reuse-check' },
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', line_items: [line(100)] },
    });
    assert.equal(different.status, 200);
    const reused = await call('POST', '/v2/authorize/invoice', {
      token: client.token,
      headers: { 'idempotency-key': 'reuse-check' },
      body: { account_id: buyer.account_id, invoice_mechanism: 'api', line_items: [line(101)] },
    });
    assert.equal(reused.status, 422, 'another request under the same key is still refused');
  });

  it('gives the widget mechanism a single-use session nonce and the redirect into the hosted flow', async () => {
    const res = await authorize({ invoice_mechanism: 'widget', is_escrow: true });
    assert.equal(res.status, 200, res.text);
    const { nonce_auth_id: nonce, authorized_invoice_id: invoiceId, redirect } = res.body.payload;
    assert.equal(res.body.payload.password_token, undefined);
    const url = new URL(redirect);
    assert.equal(url.pathname, `/ui/appauth/${nonce}`);
    assert.equal(url.searchParams.get('authorized_invoice_id'), invoiceId);
    assert.deepEqual((await consumeSessionNonce(h().orm.em.fork(), nonce))?.accountId, buyer.account_id);
    assert.equal(await consumeSessionNonce(h().orm.em.fork(), nonce), null, 'the nonce works once');
  });

  it('refuses what the money rules refuse, naming the field, and makes nothing', async () => {
    const account = await register(client);
    const res = await authorize({
      account_id: account.account_id,
      line_items: [
        {
          ...line(500, 'USD', 'pm_nope'),
          recipients: [{ amount: 600, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
        },
      ],
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.payload.errors, { 'line_items.0.recipients': ['EXCEEDS_LINE_AMOUNT'] });
    const mechanism = await authorize({ account_id: account.account_id, invoice_mechanism: 'email' });
    assert.equal(mechanism.status, 400);
    assert.ok(mechanism.body.payload.errors.invoice_mechanism, mechanism.text);
    assert.equal(await count('invoice', account.account_id), 0);
  });

  it('refuses a buyer blocked from logging in (403) and leaves nothing behind', async () => {
    const account = await register(client);
    await call('POST', '/v2/block', {
      token: client.token,
      body: { account_id: account.account_id, block_capability: 'login', block_reason: 'account_close' },
    });
    const res = await authorize({ account_id: account.account_id, is_escrow: true });
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.payload, `Account ${account.account_id} is blocked.`);
    assert.equal(await count('invoice', account.account_id), 0);
    assert.equal(await count('escrow', account.account_id), 0);
    assert.equal(await count('refresh_token', account.account_id), 0);
  });

  it("refuses a token purchase the buyer's token wallets cannot cover, counting standard and convertible together", async () => {
    const name = unique('authtok-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    const gems = await newClient({ integrator: name });
    const gemBuyer = await party(gems);
    await fund(gemBuyer, 'GEM:standard', 300);
    await fund(gemBuyer, 'GEM:convertible', 200);
    const body = (amount: number) => ({ account_id: gemBuyer.account_id, invoice_mechanism: 'api', line_items: [line(amount, 'GEM')] });
    const short = await call('POST', '/v2/authorize/invoice', { token: gems.token, body: body(501) });
    assert.equal(short.status, 400, short.text);
    assert.deepEqual(short.body.payload.errors, { account_id: ['INSUFFICIENT_BALANCE'] });
    assert.equal(await count('invoice', gemBuyer.account_id), 0);
    const enough = await call('POST', '/v2/authorize/invoice', { token: gems.token, body: body(500) });
    assert.equal(enough.status, 200, enough.text);
    const seen = await call('GET', `/v2/invoice/${enough.body.payload.authorized_invoice_id}`, { token: gems.token });
    assert.equal(seen.body.payload.invoice_type, 'user_purchase_virtual');
  });
});
