/**
 * Adversarial review of payouts, KYC and token conversion (issue 17). Each test is either a
 * finding (it fails on the code as it stands, naming what breaks) or a check that held up.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { openOrm } from '../../src/db/orm.js';
import { FAILPOINTS } from '../../src/runtime/failpoints.js';
import { createIntegrator, updateIntegrator } from '../../src/integrators/integrator.service.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { fundPublisherWallet, systemAccount } from '../../src/ledger/ledger.service.js';
import { call, h, holdfastCli, newClient, startExtraApp, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

async function addPaypal(client: TestClient, accountId: string, email: string): Promise<string> {
  const res = await call('POST', `/v1/${accountId}/payment_methods`, { token: client.token, body: { type: 'paypal', paypal: { email } } });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  return res.body.payload.id;
}

async function userToken(client: TestClient, accountId: string): Promise<string> {
  const res = await call('POST', '/authorize/user', { token: client.token, body: { account_id: accountId, return_token: true } });
  assert.equal(res.status, 200, res.text);
  return res.body.payload.token.access_token;
}

describe('payout review (issue 17, adversarial)', function () {
  this.timeout(30_000);
  let client: TestClient;

  async function seller(c: TestClient = client, usd = 10_000) {
    const p: Party = await party(c);
    if (usd) await fund(p, 'USD:fiat', usd);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(c, p.account_id, `${p.account_id.toLowerCase()}@example.com`);
    return { ...p, wallet: p.wallets['USD:fiat'], destination };
  }
  type Seller = Awaited<ReturnType<typeof seller>>;

  const request = (s: Seller, amount: number, opts: { token?: string; headers?: Record<string, string> } = {}) =>
    call('POST', `/v2/${s.account_id}/payout`, {
      token: opts.token ?? client.token,
      headers: opts.headers,
      body: { source_payment_method_id: s.wallet.pm, destination_payment_method_id: s.destination, amount, currency: 'USD' },
    });

  before(async () => {
    client = await newClient();
  });

  after(async () => {
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  // From the review: a merge must wait for the source's open payouts. Merged, the source's payout
  // could never execute (the merge's login block), and its reversal would pay money into the
  // merged, closed account — against "money never lands in a merged account".
  it('a merge is refused while the source has an open payout (else its reversal pays a merged account)', async () => {
    // The whole USD balance is held by the payout: the wallet is empty, which is all the merge checks of fiat.
    const source = await seller(client, 2500);
    const destination = await seller();
    const payout = await request(source, 2500);
    assert.equal(payout.status, 201, payout.text);
    const id = payout.body.payload.payout_status_id;
    const merge = await call('POST', '/v2/merge-accounts', {
      token: client.token,
      body: { source_account_id: source.account_id, destination_account_id: destination.account_id },
    });
    if (merge.status === 409) {
      assert.deepEqual(merge.body.codes, ['ACCOUNT_MERGE_ERROR']);
      return;
    }
    // The merge went through: show where the held money ends up.
    const reversed = await call('DELETE', `/v2/${source.account_id}/payout/${id}`, { token: client.token });
    assert.fail(
      `merge answered ${merge.status}; the source's payout then reversed with ${reversed.status} ` +
        `${reversed.body?.payload?.payout_status}, leaving ${await balance(source.wallet.wallet)} cents in the merged account's wallet`,
    );
  });

  // From the review: a user token may request a payout, so the 202's Location must be one it may follow.
  it("a user token's 202 Location for its payout request is one it may follow", async () => {
    const s = await seller();
    const token = await userToken(client, s.account_id);
    const res = await request(s, 100, { token, headers: { prefer: 'respond-async' } });
    assert.equal(res.status, 202, res.text);
    const location = res.headers.get('location')!;
    assert.match(location, /^\/v2\//);
    assert.equal(location, `/v2/${s.account_id}/payout/${res.headers.get('x-command-id') ? location.split('/').pop() : ''}`);
    // The payout's own address: 404 PAYOUT_NOT_FOUND until the request's command has run, then the payout.
    const deadline = Date.now() + 15_000;
    let follow = await call('GET', location, { token, unchecked: true });
    while (follow.status === 404 && Date.now() < deadline) {
      assert.deepEqual(follow.body.codes, ['PAYOUT_NOT_FOUND']);
      await new Promise((r) => setTimeout(r, 50));
      follow = await call('GET', location, { token, unchecked: true });
    }
    assert.equal(follow.status, 200, `GET ${location} with the requesting user token: ${follow.status} ${follow.text}`);
    assert.equal(follow.body.payload.payout_status, 'FUNDS-IN-ESCROW');
  });

  it('held: concurrent requests never exceed the open-payout limit nor the balance', async () => {
    const s = await seller(client, 1000);
    // Six requests of 300 against USD 10.00 and a limit of 3: at most 3 are made, 900 held.
    const results = await Promise.all(Array.from({ length: 6 }, () => request(s, 300)));
    const made = results.filter((r) => r.status === 201 || r.status === 202);
    assert.ok(made.length <= 3, results.map((r) => r.status).join(','));
    for (const r of results.filter((x) => x.status !== 201 && x.status !== 202)) {
      assert.ok(r.status === 409 || r.status === 400, r.text);
    }
    const open = await call('GET', `/v2/${s.account_id}/payouts`, { token: client.token });
    assert.equal(open.body.payload.total, made.length);
    assert.equal(await balance(s.wallet.wallet), 1000 - 300 * made.length);

    const t = await seller(client, 1000);
    const [a, b] = await Promise.all([request(t, 600), request(t, 600)]);
    assert.deepEqual([a.status, b.status].sort(), [201, 400], `${a.text} ${b.text}`);
    assert.equal(await balance(t.wallet.wallet), 400);
  });

  it('held: DELETE racing `payouts approve`: exactly one wins, the money moves once', async () => {
    const s = await seller();
    const id = (await request(s, 700)).body.payload.payout_status_id;
    const [del, cli] = await Promise.all([
      call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token }),
      holdfastCli(['payouts', 'approve', id, '--reason', 'checked', '--json']),
    ]);
    const got = (await call('GET', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).body.payload.payout_status;
    if (del.status === 200) {
      assert.equal(got, 'USER-REVERSED');
      assert.notEqual(cli.status, 0);
      assert.equal(await balance(s.wallet.wallet), 10_000);
    } else {
      assert.equal(del.status, 409, del.text);
      assert.equal(cli.status, 0, cli.stderr);
      assert.equal(got, 'SUCCESS');
      assert.equal(await balance(s.wallet.wallet), 9300);
    }
  });

  it("held: a user token reaches no other account's KYC, payouts or token exchanges (404); another integrator's ids are 404", async () => {
    const a = await seller();
    const b = await seller();
    const pb = (await request(b, 100)).body.payload.payout_status_id;
    const token = await userToken(client, a.account_id);
    for (const [method, path] of [
      ['GET', `/v1/kyc/${b.account_id}`],
      ['GET', `/v2/${b.account_id}/payouts`],
      ['GET', `/v2/${b.account_id}/payout/${pb}`],
      ['DELETE', `/v2/${b.account_id}/payout/${pb}`],
      ['GET', `/v2/${a.account_id}/payout/${pb}`],
      ['DELETE', `/v2/${a.account_id}/payout/${pb}`],
    ] as const) {
      const res = await call(method, path, { token });
      assert.equal(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const other = await newClient();
    assert.equal((await call('GET', `/v1/kyc/${b.account_id}`, { token: other.token })).status, 404);
    assert.equal((await call('PATCH', `/v2/${b.account_id}/payout/${pb}`, { token: other.token })).status, 404);
    assert.equal(
      (await call('GET', `/v2/${b.account_id}/payout/${pb}`, { token: client.token })).body.payload.payout_status,
      'FUNDS-IN-ESCROW',
    );
  });

  it('held: a refused KYC submission echoes none of the personal data; the answer is the state only', async () => {
    const p = await party(client);
    const token = await userToken(client, p.account_id);
    const secret = `Zed${unique('pii')}`;
    const bad = await call('POST', `/v1/kyc/${p.account_id}`, {
      token,
      body: { first_name: secret, last_name: secret, date_of_birth: '2999-01-01', address: `${secret} street`, country: 'GBR' },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.ok(!bad.text.includes(secret), bad.text);
    // A value the schema refuses is named, not echoed.
    for (const body of [
      { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: secret, address: 'x', country: 'GB' },
      { first_name: { secret }, last_name: 'Lovelace', date_of_birth: '1990-01-01', address: 'x', country: 'GB' },
      { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-01-01', address: 'x', country: 'GB', [secret]: secret },
    ]) {
      const res = await call('POST', `/v1/kyc/${p.account_id}`, { token, body });
      assert.equal(res.status, 400, res.text);
      assert.ok(!res.text.includes(secret.slice(3)) || Object.keys(body).includes(secret), res.text);
    }
    assert.ok(Object.keys(bad.body.payload.errors).includes('country'), bad.text);
    const ok = await call('POST', `/v1/kyc/${p.account_id}`, {
      token,
      body: { first_name: secret, last_name: 'Deny', date_of_birth: '1990-01-01', address: `${secret} street`, country: 'GB' },
    });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(!ok.text.includes(secret));
    assert.equal(ok.body.payload.state, 'DENY');
    const events = await h()
      .orm.em.fork()
      .execute<Array<{ message: unknown }>>('select message from outbox where message::text like ?', [`%${secret}%`]);
    assert.equal(events.length, 0);
  });

  it('held: no log line (trace level, including error paths) carries KYC personal data', async () => {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const app = await startExtraApp({ logger: pino({ level: 'trace' }, stream) });
    const closed = await openOrm(h().databaseUrl, 1);
    await closed.close(true);
    const broken = await startExtraApp({ logger: pino({ level: 'trace' }, stream), orm: closed });
    try {
      const p = await party(client);
      const token = await userToken(client, p.account_id);
      const secret = `Qx${unique('pii')}`;
      const body = (last: string) => ({
        first_name: secret,
        last_name: last,
        date_of_birth: '1990-01-01',
        address: `${secret} road`,
        country: 'GB',
      });
      for (const baseUrl of [app.baseUrl, broken.baseUrl]) {
        await call('POST', `/v1/kyc/${p.account_id}`, { token, body: body('Review'), baseUrl, unchecked: true });
        await call('POST', `/v1/kyc/${p.account_id}`, { token, body: body(secret), baseUrl, unchecked: true });
        await call('POST', `/v1/kyc/${p.account_id}`, { token, body: { ...body('x'), date_of_birth: secret }, baseUrl, unchecked: true });
        await call('POST', `/v1/kyc/${p.account_id}`, {
          token,
          rawBody: `{"first_name":"${secret}",`,
          headers: { 'content-type': 'application/json' },
          baseUrl,
          unchecked: true,
        });
      }
      await new Promise((r) => setTimeout(r, 100));
      assert.ok(lines.length > 0);
      assert.ok(!lines.join('').includes(secret.slice(2)), lines.filter((l) => l.includes(secret.slice(2))).join('\n'));
    } finally {
      await app.close();
      await broken.close();
    }
  });

  // From the review: statements written before payouts existed, and a field left undescribed.
  it('the docs and OpenAPI describe payouts as built: the payouts block, the failpoints, token_exchange_id', () => {
    const read = (f: string) => readFileSync(f, 'utf8');
    const problems: string[] = [];
    if (/payouts are not built yet/.test(read('docs/contract.md'))) problems.push('docs/contract.md: "payouts are not built yet"');
    if (/`payouts` is recorded and reported\./.test(read('openapi/accounts.yaml')))
      problems.push('openapi/accounts.yaml blockAccount: "`payouts` is recorded and reported" (it refuses payout requests and executions)');
    const operations = read('docs/operations.md');
    for (const name of FAILPOINTS.filter((f) => f.startsWith('payout.')))
      if (!operations.includes(name)) problems.push(`docs/operations.md HOLDFAST_FAILPOINTS: no ${name}`);
    const payouts = read('openapi/payouts.yaml');
    const requestDoc = payouts.slice(
      payouts.indexOf('operationId: requestPayout'),
      payouts.indexOf('requestBody:', payouts.indexOf('operationId: requestPayout')),
    );
    if (!requestDoc.includes('token_exchange_id'))
      problems.push(
        'openapi/payouts.yaml requestPayout: token_exchange_id (must equal the net amount; refusals; reversal reverses the conversion) is not described',
      );
    assert.deepEqual(problems, []);
  });

  it('held: production has no PATCH shortcut (404) and decides KYC only from MANUAL_REVIEW', async () => {
    const s = await seller();
    const id = (await request(s, 100)).body.payload.payout_status_id;
    const prod = await startExtraApp({ appEnv: 'production' });
    try {
      const patch = await call('PATCH', `/v2/${s.account_id}/payout/${id}`, {
        token: client.token,
        baseUrl: prod.baseUrl,
        unchecked: true,
      });
      assert.equal(patch.status, 404, patch.text);
    } finally {
      await prod.close();
    }
    // As `holdfast kyc decide` decides on a production database.
    await assert.rejects(decideKyc(h().orm.em.fork(), s.account_id, 'DENY', true), /ACCEPT/);
    assert.equal((await call('GET', `/v1/kyc/${s.account_id}`, { token: client.token })).body.payload.state, 'ACCEPT');
  });

  it('held: KYC outcomes and the payouts block: DENY blocks, CANCEL keeps it, ACCEPT lifts only a KYC block', async () => {
    const p = await seller();
    const operator = await newClient({ integrator: client.integrator, isOperator: true });
    const blockOf = async () =>
      (await call('GET', `/v2/block/${p.account_id}`, { token: client.token })).body.blocks.payouts?.reason ?? null;
    await decideKyc(h().orm.em.fork(), p.account_id, 'DENY', false);
    assert.equal(await blockOf(), 'failed_kyc');
    assert.equal((await request(p, 100)).status, 403);
    await decideKyc(h().orm.em.fork(), p.account_id, 'CANCEL', false);
    assert.equal(await blockOf(), 'failed_kyc');
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    assert.equal(await blockOf(), null);
    assert.equal((await request(p, 100)).status, 201);
    await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: p.account_id, block_capability: 'payouts', block_reason: 'compliance' },
    });
    await decideKyc(h().orm.em.fork(), p.account_id, 'DENY', false);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    assert.equal(await blockOf(), 'compliance');
  });

  const deadlocks = async () => {
    // Statistics reach pg_stat_database when a backend flushes them (at most about a second later).
    await new Promise((r) => setTimeout(r, 1500));
    await h().orm.em.fork().execute('select pg_stat_clear_snapshot()');
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>('select deadlocks as n from pg_stat_database where datname = current_database()');
    return Number(row.n);
  };

  // Held (suspected, disproved): payout.request locks the account's USD wallet (`for update`)
  // before its `hold` posting updates payout holding, while payout.reverse's posting updates
  // holding (`led_…`) before the wallet (`wal_…`): an apparent lock-order inversion. It does not
  // deadlock because inserting the reversal's entries first takes FOR KEY SHARE on both ledger
  // accounts (the ledger_entry foreign key), which waits for the request's `for update` on the
  // wallet before the reversal updates anything. This test's own transaction holds payout holding
  // so that the reversal and then the request queue on it, the worst interleaving.
  it('held: a new payout request racing the DELETE of another payout of the account does not deadlock', async () => {
    const s = await seller(client, 100_000);
    const open = (await request(s, 100)).body.payload.payout_status_id;
    const holdingId = await systemAccount(h().orm.em.fork(), s.integrator_id, 'payout_holding', 'USD');
    const before = await deadlocks();
    let del!: Promise<Awaited<ReturnType<typeof call>>>;
    let made!: Promise<Awaited<ReturnType<typeof call>>>;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await h()
      .orm.em.fork()
      .transactional(async (tx) => {
        await tx.execute('select id from ledger_account where id = ? for update', [holdingId]);
        del = call('DELETE', `/v2/${s.account_id}/payout/${open}`, { token: client.token });
        await sleep(400); // the reversal now waits for payout holding
        made = request(s, 100);
        await sleep(600); // the request holds the wallet and waits for payout holding too
      });
    const [d, m] = await Promise.all([del, made]);
    assert.equal(d.status, 200, d.text);
    assert.equal(m.status, 201, m.text);
    const after = await deadlocks();
    assert.equal(after - before, 0, `${after - before} deadlock(s) in this database`);
  });

  it('held: one conversion executed by concurrent requests moves once; two concurrent payouts of it: one is made', async () => {
    const name = unique('review-twice-');
    const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 100_000 });
    const gems = await newClient({ integrator: name });
    const p = await party(gems);
    await fund(p, 'GEM:convertible', 1000);
    await fund(p, 'USD:fiat', 1000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(gems, p.account_id, `${p.account_id.toLowerCase()}@example.com`);
    const token = await userToken(gems, p.account_id);
    const quote = await call('POST', '/v2/token/convert', { token, body: { account_id: p.account_id, amount: 500, currency: 'GEM' } });
    assert.equal(quote.status, 201, quote.text);
    const id = quote.body.payload.token_exchange_id;
    const runs = await Promise.all([
      call('POST', `/v2/token/convert/${id}`, { token }),
      call('POST', `/v2/token/convert/${id}`, { token: gems.token }),
      call('POST', `/v2/token/convert/${id}`, { token }),
    ]);
    assert.deepEqual(
      runs.map((r) => [r.status, r.body.payload.status]),
      [
        [200, 'EXECUTED'],
        [200, 'EXECUTED'],
        [200, 'EXECUTED'],
      ],
    );
    assert.deepEqual([await balance(p.wallets['GEM:convertible'].wallet), await balance(p.wallets['USD:fiat'].wallet)], [500, 1200]);
    const payOut = () =>
      call('POST', `/v2/${p.account_id}/payout`, {
        token,
        body: {
          source_payment_method_id: p.wallets['USD:fiat'].pm,
          destination_payment_method_id: destination,
          amount: 200,
          currency: 'USD',
          token_exchange_id: id,
        },
      });
    const [a, b] = await Promise.all([payOut(), payOut()]);
    assert.deepEqual([a.status, b.status].sort(), [201, 400], `${a.text} ${b.text}`);
    const refused = a.status === 400 ? a : b;
    assert.deepEqual(refused.body.payload.errors, { token_exchange_id: ['ALREADY_PAID_OUT'] });
    assert.equal(await balance(p.wallets['USD:fiat'].wallet), 1000);
    // Reversing it twice at once: one reversal, the conversion undone once.
    const made = a.status === 201 ? a : b;
    const path = `/v2/${p.account_id}/payout/${made.body.payload.payout_status_id}`;
    const [d1, d2] = await Promise.all([call('DELETE', path, { token }), call('DELETE', path, { token: gems.token })]);
    assert.ok([d1.status, d2.status].includes(200), `${d1.text} ${d2.text}`);
    assert.deepEqual([await balance(p.wallets['GEM:convertible'].wallet), await balance(p.wallets['USD:fiat'].wallet)], [1000, 1000]);
  });

  // Lock order: a payout reversal takes the account's USD wallet (its `reverse` posting) before
  // the exchange's wallets [convertible, USD]; a conversion takes [convertible, USD] in id order.
  // Run both on one account at once, many times: every answer must be a final one.
  it('held: reversing a conversion payout while another conversion of the account executes: both finish', async () => {
    const name = unique('review-conv-');
    const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
    await updateIntegrator(h().orm.em.fork(), name, { conversionFeeBps: 0 });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 1_000_000 });
    const gems = await newClient({ integrator: name });
    const p = await party(gems);
    await fund(p, 'GEM:convertible', 50_000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(gems, p.account_id, `${p.account_id.toLowerCase()}@example.com`);
    const quote = async () =>
      (await call('POST', '/v2/token/convert', { token: gems.token, body: { account_id: p.account_id, amount: 500, currency: 'GEM' } }))
        .body.payload.token_exchange_id as string;
    const started = Date.now();
    for (let round = 0; round < 4; round++) {
      const y = await quote();
      assert.equal((await call('POST', `/v2/token/convert/${y}`, { token: gems.token })).status, 200);
      const paid = await call('POST', `/v2/${p.account_id}/payout`, {
        token: gems.token,
        body: {
          source_payment_method_id: p.wallets['USD:fiat'].pm,
          destination_payment_method_id: destination,
          amount: 200,
          currency: 'USD',
          token_exchange_id: y,
        },
      });
      assert.equal(paid.status, 201, paid.text);
      const x = await quote();
      const [del, exec] = await Promise.all([
        call('DELETE', `/v2/${p.account_id}/payout/${paid.body.payload.payout_status_id}`, { token: gems.token }),
        call('POST', `/v2/token/convert/${x}`, { token: gems.token }),
      ]);
      assert.deepEqual([del.status, exec.status], [200, 200], `${del.text} ${exec.text}`);
    }
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms (a deadlock costs deadlock_timeout each)`);
  });
});
