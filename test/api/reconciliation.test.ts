import assert from 'node:assert/strict';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { HoldfastSdk } from '../../packages/sdk/src/index.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** A user password token for the account, opened by the client. */
async function userToken(client: TestClient, accountId: string): Promise<string> {
  const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.token.access_token;
}

function purchase(buyer: Party, seller: Party, amount: number, over: Record<string, unknown> = {}) {
  return {
    account_id: buyer.account_id,
    payment_methods: [{ payment_method_id: buyer.wallets['USD:fiat'].pm, amount: 0 }],
    line_items: [
      {
        amount,
        currency: 'USD',
        transaction_type: 'user_to_user',
        recipients: [{ amount: amount - 10, currency: 'USD', destination_wallet_id: seller.wallets['USD:fiat'].wallet }],
      },
    ],
    ...over,
  };
}

async function createEscrow(client: TestClient, body: unknown): Promise<any> {
  const res = await call('POST', '/v2/escrow', { token: client.token, body });
  assert.equal(res.status, 201, res.text);
  return res.body.payload;
}

async function move(client: TestClient, escrowId: string, transition: 'pay' | 'commit' | 'cancel'): Promise<any> {
  const res = await call('POST', `/v2/escrow/${escrowId}/${transition}`, { token: client.token });
  assert.equal(res.status, 200, res.text);
  return res.body.payload;
}

const byReference = (client: TestClient, reference: string, query = '') =>
  call('GET', `/v2/escrow/reference/${encodeURIComponent(reference)}${query}`, { token: client.token });

describe('reconciliation: escrows by reference', () => {
  let client: TestClient;
  let other: TestClient;
  let buyer: Party;
  let seller: Party;
  const reference = unique('order-');
  /** The escrows with `reference`, oldest first. */
  const mine: any[] = [];
  before(async () => {
    client = await newClient();
    other = await newClient();
    buyer = await party(client);
    seller = await party(client);
    await fund(buyer, 'USD:fiat', 10_000);
    for (let i = 0; i < 5; i++) mine.push(await createEscrow(client, purchase(buyer, seller, 100 + i, { reference_id: reference })));
    await createEscrow(client, purchase(buyer, seller, 100, { reference_id: `${reference}-other` }));
    await createEscrow(client, purchase(buyer, seller, 100));
    // The second and the fourth are paid; the second is then committed (so updated last).
    await move(client, mine[3].id, 'pay');
    await move(client, mine[1].id, 'pay');
    await move(client, mine[1].id, 'commit');
    // Another integrator's escrow with the same reference.
    const otherBuyer = await party(other);
    await fund(otherBuyer, 'USD:fiat', 1000);
    await createEscrow(other, purchase(otherBuyer, await party(other), 100, { reference_id: reference }));
  });

  it('lists them newest first by default, each as getEscrow shows it, with the total', async () => {
    const res = await byReference(client, reference);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.total, 5);
    assert.deepEqual(
      res.body.payload.escrow_transactions.map((e: any) => e.id),
      mine.map((e) => e.id).reverse(),
    );
    const one = await call('GET', `/v2/escrow/${mine[1].id}`, { token: client.token });
    assert.deepEqual(
      res.body.payload.escrow_transactions.find((e: any) => e.id === mine[1].id),
      one.body.payload,
    );
  });

  it('pages with limit and offset, the total counting every match', async () => {
    const res = await byReference(client, reference, '?limit=2&offset=1&sort=asc');
    assert.equal(res.body.payload.total, 5);
    assert.deepEqual(
      res.body.payload.escrow_transactions.map((e: any) => e.id),
      [mine[1].id, mine[2].id],
    );
    const past = await byReference(client, reference, '?offset=10');
    assert.deepEqual(past.body.payload, { total: 5, escrow_transactions: [] });
  });

  it('filters by status and orders by update time with sortField=updated', async () => {
    const escrowed = await byReference(client, reference, '?status=ESCROWED');
    assert.deepEqual(
      escrowed.body.payload.escrow_transactions.map((e: any) => [e.id, e.status]),
      [[mine[3].id, 'ESCROWED']],
    );
    assert.equal(escrowed.body.payload.total, 1);
    const updated = await byReference(client, reference, '?sortField=updated&limit=2');
    assert.deepEqual(
      updated.body.payload.escrow_transactions.map((e: any) => e.id),
      [mine[1].id, mine[3].id],
    );
    const oldestUpdate = await byReference(client, reference, '?sortField=updated&sort=asc&limit=1');
    assert.equal(oldestUpdate.body.payload.escrow_transactions[0].id, mine[0].id);
  });

  it("never shows another integrator's escrows: its own reference lists only its own", async () => {
    const theirs = await byReference(other, reference);
    assert.equal(theirs.body.payload.total, 1);
    assert.ok(!theirs.body.payload.escrow_transactions.some((e: any) => mine.some((m) => m.id === e.id)), theirs.text);
    const unknown = await byReference(other, `${reference}-other`);
    assert.deepEqual(unknown.body.payload, { total: 0, escrow_transactions: [] });
  });

  it('refuses bad parameters naming them', async () => {
    for (const [query, field] of [
      ['?sort=newest', 'sort'],
      ['?sortField=created_at', 'sortField'],
      ['?sort_field=created', 'sort_field'],
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?offset=-1', 'offset'],
      ['?status=PAID', 'status'],
    ]) {
      const res = await byReference(client, reference, query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.ok(Object.keys(res.body.payload.errors).includes(field), `${query}: ${res.text}`);
    }
  });
});

describe('reconciliation: the escrow of an invoice', () => {
  let client: TestClient;
  let other: TestClient;
  let buyer: Party;
  let seller: Party;
  before(async () => {
    client = await newClient();
    other = await newClient();
    buyer = await party(client);
    seller = await party(client);
    await fund(buyer, 'USD:fiat', 1000);
  });

  it('answers the escrow for its escrow, commit and cancel invoices', async () => {
    const committed = await createEscrow(client, purchase(buyer, seller, 100));
    await move(client, committed.id, 'pay');
    const afterCommit = await move(client, committed.id, 'commit');
    const cancelled = await createEscrow(client, purchase(buyer, seller, 100));
    await move(client, cancelled.id, 'pay');
    const afterCancel = await move(client, cancelled.id, 'cancel');
    for (const [invoiceId, escrowId] of [
      [committed.escrow_invoice_id, committed.id],
      [afterCommit.commit_invoice_id, committed.id],
      [afterCancel.escrow_invoice_id, cancelled.id],
      [afterCancel.cancel_invoice_id, cancelled.id],
    ]) {
      assert.ok(invoiceId, 'the escrow has that invoice');
      const res = await call('GET', `/v2/escrow/by_invoice/${invoiceId}`, { token: client.token });
      assert.equal(res.status, 200, res.text);
      const direct = await call('GET', `/v2/escrow/${escrowId}`, { token: client.token });
      assert.deepEqual(res.body.payload, direct.body.payload);
    }
  });

  it('answers 404 ESCROW_GET_ERROR for an invoice of no escrow, INVOICE_GET_ERROR for another integrator', async () => {
    const invoice = await call('POST', '/v2/invoice', { token: client.token, body: purchase(buyer, seller, 100) });
    assert.equal(invoice.status, 201, invoice.text);
    const standalone = await call('GET', `/v2/escrow/by_invoice/${invoice.body.payload.invoice_id}`, { token: client.token });
    assert.equal(standalone.status, 404);
    assert.deepEqual(standalone.body.codes, ['ESCROW_GET_ERROR']);
    const escrow = await createEscrow(client, purchase(buyer, seller, 100));
    const foreign = await call('GET', `/v2/escrow/by_invoice/${escrow.escrow_invoice_id}`, { token: other.token });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.body.codes, ['INVOICE_GET_ERROR']);
    const missing = await call('GET', '/v2/escrow/by_invoice/inv_00000000000000000000000000', { token: other.token });
    assert.deepEqual(missing.body, foreign.body);
  });
});

describe("reconciliation: an account's invoices", () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;
  /** The buyer's invoices, oldest first: [id, type, state]. */
  const known: Array<[string, string, string]> = [];
  before(async () => {
    client = await newClient();
    buyer = await party(client);
    seller = await party(client);
    await fund(buyer, 'USD:fiat', 10_000);
    const open = await createEscrow(client, purchase(buyer, seller, 100));
    known.push([open.escrow_invoice_id, 'user_purchase_escrow', 'OPEN']);
    const committed = await createEscrow(client, purchase(buyer, seller, 200));
    await move(client, committed.id, 'pay');
    const done = await move(client, committed.id, 'commit');
    known.push([committed.escrow_invoice_id, 'user_purchase_escrow', 'SUCCESS']);
    known.push([done.commit_invoice_id, 'user_purchase_commit_escrow', 'SUCCESS']);
    const standard = await call('POST', '/v2/invoice', { token: client.token, body: purchase(buyer, seller, 300) });
    known.push([standard.body.payload.invoice_id, 'user_purchase', 'OPEN']);
    const paid = await call('POST', '/v2/invoice', { token: client.token, body: purchase(buyer, seller, 400) });
    assert.equal((await call('POST', `/v2/invoice/${paid.body.payload.invoice_id}/pay`, { token: client.token })).status, 200);
    known.push([paid.body.payload.invoice_id, 'user_purchase', 'SUCCESS']);
    // The seller's invoices are not the buyer's.
    await fund(seller, 'USD:fiat', 1000);
    await createEscrow(client, purchase(seller, buyer, 100));
  });

  const list = (query = '', token = client.token) => call('GET', `/v2/invoice/account/${buyer.account_id}${query}`, { token });
  const ids = (res: any) => res.body.payload.invoices.map((i: any) => i.invoice_id);

  it('lists every invoice of the account newest first, with the total', async () => {
    const res = await list();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.payload.total, known.length);
    assert.deepEqual(ids(res).sort(), known.map(([id]) => id).sort());
    const created = res.body.payload.invoices.map((i: any) => i.created);
    assert.deepEqual(created, [...created].sort().reverse());
  });

  it('filters by states and invoice types (comma-separated) and pages', async () => {
    const success = await list('?states=SUCCESS&sort=asc');
    assert.deepEqual(
      ids(success).sort(),
      known
        .filter(([, , s]) => s === 'SUCCESS')
        .map(([id]) => id)
        .sort(),
    );
    const typed = await list('?invoice_types=user_purchase,user_purchase_commit_escrow&states=OPEN,SUCCESS');
    assert.equal(typed.body.payload.total, 3);
    assert.deepEqual(
      ids(typed).sort(),
      known
        .filter(([, t]) => t !== 'user_purchase_escrow')
        .map(([id]) => id)
        .sort(),
    );
    const all = ids(await list('?sort=asc&limit=100'));
    const page = await list('?sort=asc&limit=2&offset=2');
    assert.equal(page.body.payload.total, known.length);
    assert.deepEqual(ids(page), all.slice(2, 4));
  });

  it('orders by update time with sort_field=updated', async () => {
    const res = await list('?sort_field=updated');
    const updated = res.body.payload.invoices.map((i: any) => i.updated);
    assert.deepEqual(updated, [...updated].sort().reverse());
  });

  it("is open to the account's own user token, not to another account's", async () => {
    const token = await userToken(client, buyer.account_id);
    const own = await list('', token);
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.payload.total, known.length);
    const theirs = await call('GET', `/v2/invoice/account/${seller.account_id}`, { token });
    assert.equal(theirs.status, 404);
  });

  it('refuses unknown states and types naming the parameter', async () => {
    for (const [query, field] of [
      ['?states=PAID', 'states'],
      ['?states=SUCCESS,', 'states'],
      ['?invoice_types=refund', 'invoice_types'],
      ['?sort_field=name', 'sort_field'],
      ['?sortField=created', 'sortField'],
    ]) {
      const res = await list(query);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.ok(Object.keys(res.body.payload.errors).includes(field), `${query}: ${res.text}`);
    }
  });

  it('leaves /v1/{account_id}/invoices and its cursor as they were', async () => {
    const first = await call('GET', `/v1/${buyer.account_id}/invoices?limit=2`, { token: client.token });
    assert.equal(first.body.payload.has_more, true);
    assert.equal(first.body.payload.total, undefined);
  });
});

describe("reconciliation: an account's balances", () => {
  it('shows spendable, convertible and held in escrow per currency, in minor units and for display', async () => {
    const name = unique('gems-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 100 });
    const client = await newClient({ integrator: name });
    const buyer = await party(client);
    const seller = await party(client);
    await fund(buyer, 'USD:fiat', 1000);
    await fund(buyer, 'GEM:standard', 500);
    const held = await createEscrow(client, purchase(buyer, seller, 150));
    await move(client, held.id, 'pay');
    // A GEM sale: the seller's share lands in its convertible wallet.
    const sale = await createEscrow(client, {
      account_id: buyer.account_id,
      payment_methods: [{ payment_method_id: buyer.wallets['GEM:standard'].pm, amount: 0 }],
      line_items: [
        {
          amount: 300,
          currency: 'GEM',
          transaction_type: 'user_to_user',
          recipients: [{ amount: 200, currency: 'GEM', destination_wallet_id: seller.wallets['GEM:convertible'].wallet }],
        },
      ],
    });
    await move(client, sale.id, 'pay');
    await move(client, sale.id, 'commit');

    const res = await call('GET', `/v1/${buyer.account_id}/balances`, { token: client.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.payload, {
      account_id: buyer.account_id,
      balances: [
        {
          currency: 'USD',
          spendable: 850,
          spendable_display: 'USD 8.50',
          convertible: 0,
          convertible_display: 'USD 0.00',
          held: 0,
          held_display: 'USD 0.00',
          held_in_escrow: 150,
          held_in_escrow_display: 'USD 1.50',
        },
        {
          currency: 'GEM',
          spendable: 200,
          spendable_display: 'GEM 200',
          convertible: 0,
          convertible_display: 'GEM 0',
          held: 0,
          held_display: 'GEM 0',
          held_in_escrow: 0,
          held_in_escrow_display: 'GEM 0',
        },
      ],
    });
    const token = await userToken(client, seller.account_id);
    const sellers = await call('GET', `/v1/${seller.account_id}/balances`, { token });
    assert.equal(sellers.status, 200, sellers.text);
    assert.deepEqual(
      sellers.body.payload.balances.find((b: any) => b.currency === 'GEM'),
      {
        currency: 'GEM',
        spendable: 200,
        spendable_display: 'GEM 200',
        convertible: 200,
        convertible_display: 'GEM 200',
        held: 0,
        held_display: 'GEM 0',
        held_in_escrow: 0,
        held_in_escrow_display: 'GEM 0',
      },
    );
    assert.equal((await call('GET', `/v1/${buyer.account_id}/balances`, { token })).status, 404);
  });
});

describe("reconciliation: an account's statement", () => {
  let client: TestClient;
  let buyer: Party;
  let seller: Party;
  before(async () => {
    client = await newClient();
    buyer = await party(client);
    seller = await party(client);
    await fund(buyer, 'USD:fiat', 100_000);
  });

  /** Every entry of the account's statement, oldest first, read a page at a time. */
  async function statement(accountId: string, query = '', token = client.token): Promise<{ total: number; entries: any[] }> {
    const entries: any[] = [];
    let total = 0;
    for (let offset = 0; ; offset += 7) {
      const res = await call('GET', `/v1/${accountId}/statement?sort=asc&limit=7&offset=${offset}${query}`, { token });
      assert.equal(res.status, 200, res.text);
      total = res.body.payload.total;
      entries.push(...res.body.payload.entries);
      if (res.body.payload.entries.length < 7) break;
    }
    assert.equal(entries.length, total);
    return { total, entries };
  }

  /** Each wallet's entries run: every balance_after is the one before plus the amount, and the last is the ledger's balance. */
  async function assertRunningBalances(entries: any[], wallets: string[]) {
    for (const wallet of wallets) {
      const mine = entries.filter((e) => e.wallet_id === wallet);
      let running = 0;
      for (const e of mine) {
        running += e.amount;
        assert.equal(e.balance_after, running, `entry ${e.entry_id} of ${wallet}`);
      }
      assert.equal(running, await balance(wallet), `${wallet}'s last balance_after is its ledger balance`);
    }
  }

  it("gives each entry the wallet's balance right after it, equal to the ledger's, after concurrent escrows", async () => {
    const escrows = await Promise.all(Array.from({ length: 12 }, (_, i) => createEscrow(client, purchase(buyer, seller, 1000 + i))));
    await Promise.all(escrows.map((e) => move(client, e.id, 'pay')));
    await Promise.all(escrows.map((e, i) => move(client, e.id, i % 3 === 0 ? 'cancel' : 'commit')));
    const more = await Promise.all(Array.from({ length: 6 }, () => createEscrow(client, purchase(buyer, seller, 500))));
    await Promise.all(more.map((e) => move(client, e.id, 'pay').then(() => move(client, e.id, 'commit'))));

    const mine = await statement(buyer.account_id);
    // Funding, 18 pays, 4 cancels.
    assert.equal(mine.total, 1 + 18 + 4);
    await assertRunningBalances(mine.entries, [buyer.wallets['USD:fiat'].wallet]);
    const theirs = await statement(seller.account_id);
    assert.equal(theirs.total, 14);
    await assertRunningBalances(theirs.entries, [seller.wallets['USD:fiat'].wallet]);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);

    const pay = mine.entries.find((e) => e.escrow_id === escrows[1].id && e.phase === 'pay');
    assert.deepEqual(
      {
        ...pay,
        entry_id: undefined,
        posted: undefined,
        balance_after: undefined,
        balance_after_display: undefined,
        description: undefined,
      },
      {
        entry_id: undefined,
        posted: undefined,
        wallet_id: buyer.wallets['USD:fiat'].wallet,
        wallet_type: 'fiat',
        currency: 'USD',
        amount: -1001,
        display_amount: 'USD -10.01',
        balance_after: undefined,
        balance_after_display: undefined,
        source_type: 'escrow',
        escrow_id: escrows[1].id,
        invoice_id: escrows[1].escrow_invoice_id,
        phase: 'pay',
        description: undefined,
      },
    );
    const refund = mine.entries.find((e) => e.escrow_id === escrows[0].id && e.phase === 'cancel');
    const cancelled = await call('GET', `/v2/escrow/${escrows[0].id}`, { token: client.token });
    assert.equal(refund.invoice_id, cancelled.body.payload.cancel_invoice_id);
    assert.equal(refund.amount, 1000);
    const share = theirs.entries.find((e) => e.escrow_id === escrows[1].id);
    const committed = await call('GET', `/v2/escrow/${escrows[1].id}`, { token: client.token });
    assert.equal(share.invoice_id, committed.body.payload.commit_invoice_id);
    assert.equal(share.amount, 991);
  });

  it('bounds the postings by time (from inclusive, to exclusive), newest first by default', async () => {
    const { entries } = await statement(buyer.account_id);
    const middle = entries[Math.floor(entries.length / 2)].posted;
    const after = await statement(buyer.account_id, `&from=${encodeURIComponent(middle)}`);
    const before = await statement(buyer.account_id, `&to=${encodeURIComponent(middle)}`);
    assert.equal(after.total + before.total, entries.length);
    assert.ok(
      after.entries.every((e) => e.posted >= middle),
      `from ${middle}: ${after.entries.map((e) => e.posted)}`,
    );
    assert.ok(
      before.entries.every((e) => e.posted < middle),
      `to ${middle}: ${before.entries.map((e) => e.posted)}`,
    );
    const newest = await call('GET', `/v1/${buyer.account_id}/statement?limit=3`, { token: client.token });
    assert.deepEqual(
      newest.body.payload.entries.map((e: any) => e.entry_id),
      entries
        .slice(-3)
        .reverse()
        .map((e) => e.entry_id),
    );
    const bad = await call('GET', `/v1/${buyer.account_id}/statement?from=yesterday`, { token: client.token });
    assert.equal(bad.status, 400);
    assert.ok(Object.keys(bad.body.payload.errors).includes('from'), bad.text);
  });

  it("is open to the account's own user token, not to another account's", async () => {
    const token = await userToken(client, seller.account_id);
    assert.equal((await call('GET', `/v1/${seller.account_id}/statement`, { token })).status, 200);
    assert.equal((await call('GET', `/v1/${buyer.account_id}/statement`, { token })).status, 404);
  });

  it("the SDK reads the user's balances and statement with its password token", async () => {
    const token = await userToken(client, buyer.account_id);
    const sdk = new HoldfastSdk({ baseUrl: h().baseUrl });
    const balances = await new Promise<any>((resolve, reject) =>
      sdk.balances(token, { completed: resolve, error: (code, messages) => reject(new Error(`${code} ${messages}`)) }),
    );
    assert.equal(balances[0].spendable, await balance(buyer.wallets['USD:fiat'].wallet));
    const page = await new Promise<any>((resolve, reject) =>
      sdk.statement(
        token,
        { completed: resolve, error: (code, messages) => reject(new Error(`${code} ${messages}`)) },
        { limit: 2, sort: 'desc' },
      ),
    );
    assert.equal(page.entries.length, 2);
    assert.equal(page.entries[0].balance_after, balances[0].spendable);
  });
});
