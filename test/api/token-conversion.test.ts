import assert from 'node:assert/strict';
import { createIntegrator, updateIntegrator } from '../../src/integrators/integrator.service.js';
import { insertActiveBlock } from '../../src/accounts/account-block.repository.js';
import { db } from '../../src/db/sql.js';
import { newId } from '../../src/ids.js';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, fundPublisherWallet, systemAccount } from '../../src/ledger/ledger.service.js';
import { conversionFee, conversionQuote } from '../../src/tokens/conversion.rules.js';
import { linkExchangeToPayout, lockExchange, reverseTokenExchange } from '../../src/tokens/conversion.service.js';
import { call, h, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** GEM at 250 per USD: 5 GEM are 2 cents; 500 GEM are USD 2.00. */
const RATE = 250;

describe('token conversion', () => {
  let client: TestClient;
  let integratorId: string;
  let name: string;

  before(async () => {
    name = unique('conv-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: RATE })).id;
    client = await newClient({ integrator: name });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 1_000_000 });
  });

  const setFee = (bps: number) => updateIntegrator(h().orm.em.fork(), name, { conversionFeeBps: bps });
  const accept = (p: Party) => decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
  const system = async (kind: 'publisher_wallet' | 'token_issuance', currency: string) => {
    const id = await systemAccount(h().orm.em.fork(), integratorId, kind, currency);
    return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
  };
  /** Every balance a conversion may move: the account's convertible and USD wallets, the integrator's USD wallet and GEM issuance. */
  const snapshot = async (p: Party) => ({
    convertible: await balance(p.wallets['GEM:convertible'].wallet),
    usd: await balance(p.wallets['USD:fiat'].wallet),
    publisher: await system('publisher_wallet', 'USD'),
    issuance: await system('token_issuance', 'GEM'),
  });
  const convert = (body: Record<string, unknown>, token = client.token) => call('POST', '/v2/token/convert', { token, body });
  const execute = (id: string, token = client.token, headers: Record<string, string> = {}) =>
    call('POST', `/v2/token/convert/${id}`, { token, headers });
  const exchangeEvents = async (id: string) =>
    (
      await h()
        .orm.em.fork()
        .execute<Array<{ message: Record<string, any> }>>(
          `select message from outbox where event_name = 'token-exchange-completed' and message->>'token_exchange_id' = ? order by created_at, id`,
          [id],
        )
    ).map((r) => r.message.status);
  const exchangeCount = async (accountId: string) =>
    Number(
      (
        await h().orm.em.fork().execute<Array<{ n: string }>>('select count(*) as n from token_exchange where account_id = ?', [accountId])
      )[0].n,
    );

  /** An account with KYC accepted and `tokens` convertible GEM. */
  async function seller(tokens = 1000): Promise<Party> {
    const p = await party(client);
    if (tokens) await fund(p, 'GEM:convertible', tokens);
    await accept(p);
    return p;
  }

  it('quotes exactly, with the fee rounded up', () => {
    const gem = { tokenCurrency: 'GEM', tokensPerUsd: RATE };
    assert.deepEqual(conversionQuote(500, 'GEM', gem, 300), { ok: true, tokens: 500, fiat: 200, fee: 6 });
    assert.deepEqual(conversionQuote(5, 'GEM', gem, 300), { ok: true, tokens: 5, fiat: 2, fee: 1 });
    assert.deepEqual(conversionQuote(3, 'GEM', gem, 0), { ok: false, field: 'amount', code: 'NOT_EXACT' });
    assert.deepEqual(conversionQuote(500, 'USD', gem, 0), { ok: false, field: 'currency', code: 'UNSUPPORTED_CURRENCY' });
    assert.deepEqual(conversionQuote(500, 'GEM', { tokenCurrency: null, tokensPerUsd: null }, 0), {
      ok: false,
      field: 'currency',
      code: 'UNSUPPORTED_CURRENCY',
    });
    assert.equal(conversionFee(10_001, 1), 2);
    assert.equal(conversionFee(10_000, 1), 1);
    assert.equal(conversionFee(200, 0), 0);
    assert.equal(conversionFee(200, 10_000), 200);
  });

  it("converts a seller's convertible tokens from an escrow commit: quote (201 OPEN), execute (200 EXECUTED), exact amounts, one event", async () => {
    await setFee(300);
    const buyer = await party(client);
    const s = await party(client);
    await fund(buyer, 'GEM:standard', 600);
    const escrow = await call('POST', '/v2/escrow', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.wallets['GEM:standard'].pm, amount: 0 }],
        line_items: [
          {
            amount: 600,
            currency: 'GEM',
            transaction_type: 'user_to_user',
            recipients: [{ amount: 500, currency: 'GEM', destination_wallet_id: s.wallets['GEM:convertible'].wallet }],
          },
        ],
      },
    });
    assert.equal(escrow.status, 201, escrow.text);
    for (const step of ['pay', 'commit'])
      assert.equal((await call('POST', `/v2/escrow/${escrow.body.payload.id}/${step}`, { token: client.token })).status, 200);
    assert.equal(await balance(s.wallets['GEM:convertible'].wallet), 500);
    await accept(s);

    const quoted = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' });
    assert.equal(quoted.status, 201, quoted.text);
    const x = quoted.body.payload;
    assert.match(x.token_exchange_id, /^tex_/);
    assert.deepEqual(
      { ...x, token_exchange_id: undefined, expires_at: undefined, created: undefined, updated: undefined },
      {
        token_exchange_id: undefined,
        account_id: s.account_id,
        status: 'OPEN',
        token_amount: 500,
        token_currency: 'GEM',
        fiat_amount: 200,
        fiat_currency: 'USD',
        fee_amount: 6,
        expires_at: undefined,
        created: undefined,
        updated: undefined,
      },
    );
    assert.equal(Date.parse(x.expires_at) - Date.parse(x.created), 900_000, 'expires 15 minutes after it was made');

    const before = await snapshot(s);
    assert.equal(before.convertible, 500, 'quoting moves nothing');
    const done = await execute(x.token_exchange_id);
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.payload.status, 'EXECUTED');
    assert.match(done.headers.get('x-command-id') ?? '', /^cmd_/);
    const after = await snapshot(s);
    assert.deepEqual(
      {
        convertible: after.convertible - before.convertible,
        usd: after.usd - before.usd,
        publisher: after.publisher - before.publisher,
        issuance: after.issuance - before.issuance,
      },
      { convertible: -500, usd: 194, publisher: -194, issuance: 500 },
      'the tokens are burned; USD 2.00 less the 6 cent fee moves to the seller; the fee stays with the integrator',
    );
    assert.deepEqual(await exchangeEvents(x.token_exchange_id), ['EXECUTED']);
    const read = await call('GET', `/v2/token/convert/${x.token_exchange_id}`, { token: client.token });
    assert.equal(read.status, 200);
    assert.equal(read.body.payload.status, 'EXECUTED');

    // Again: answered as it is, nothing moves twice.
    const again = await execute(x.token_exchange_id);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.payload.status, 'EXECUTED');
    assert.deepEqual(await snapshot(s), after);
    assert.deepEqual(await exchangeEvents(x.token_exchange_id), ['EXECUTED']);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    await setFee(0);
  });

  it('rounds the fee up to the cent: 5 GEM (2 cents) at 300 bps costs 1 cent', async () => {
    await setFee(300);
    const s = await seller(5);
    const before = await snapshot(s);
    const quoted = await convert({ account_id: s.account_id, amount: 5, currency: 'GEM' });
    assert.equal(quoted.status, 201, quoted.text);
    assert.deepEqual([quoted.body.payload.fiat_amount, quoted.body.payload.fee_amount], [2, 1]);
    assert.equal((await execute(quoted.body.payload.token_exchange_id)).status, 200);
    const after = await snapshot(s);
    assert.deepEqual([after.usd - before.usd, after.publisher - before.publisher, after.convertible], [1, -1, 0]);
    await setFee(0);
  });

  it('a fee of the whole fiat amount (10000 bps) burns the tokens and moves no USD', async () => {
    await setFee(10_000);
    const s = await seller(500);
    const before = await snapshot(s);
    const quoted = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' });
    assert.deepEqual([quoted.body.payload.fiat_amount, quoted.body.payload.fee_amount], [200, 200]);
    const done = await execute(quoted.body.payload.token_exchange_id);
    assert.equal(done.status, 200, done.text);
    const after = await snapshot(s);
    assert.deepEqual(
      [after.convertible, after.usd - before.usd, after.publisher - before.publisher, after.issuance - before.issuance],
      [0, 0, 0, 500],
    );
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    await setFee(0);
  });

  const refusals: Array<[string, (p: Party) => Record<string, unknown>, number, string, string[] | Record<string, string[]>]> = [
    ['USD', (p) => ({ account_id: p.account_id, amount: 500, currency: 'USD' }), 400, 'currency', { currency: ['UNSUPPORTED_CURRENCY'] }],
    [
      'another token',
      (p) => ({ account_id: p.account_id, amount: 500, currency: 'XYZ' }),
      400,
      'currency',
      { currency: ['UNSUPPORTED_CURRENCY'] },
    ],
    ['a zero amount', (p) => ({ account_id: p.account_id, amount: 0, currency: 'GEM' }), 400, 'amount', { amount: ['TOO_SMALL'] }],
    ['a negative amount', (p) => ({ account_id: p.account_id, amount: -5, currency: 'GEM' }), 400, 'amount', { amount: ['TOO_SMALL'] }],
    [
      'an amount that is no whole number of cents',
      (p) => ({ account_id: p.account_id, amount: 3, currency: 'GEM' }),
      400,
      'amount',
      { amount: ['NOT_EXACT'] },
    ],
    [
      'more than the convertible wallet holds',
      (p) => ({ account_id: p.account_id, amount: 1005, currency: 'GEM' }),
      400,
      'amount',
      { amount: ['INSUFFICIENT_BALANCE'] },
    ],
  ];
  for (const [what, body, status, field, errors] of refusals) {
    it(`refuses ${what} (${status} naming ${field}); nothing written or moved`, async () => {
      const s = await seller(1000);
      const before = await snapshot(s);
      const res = await convert(body(s));
      assert.equal(res.status, status, res.text);
      assert.deepEqual(res.body.payload.errors, errors);
      assert.equal(await exchangeCount(s.account_id), 0);
      assert.deepEqual(await snapshot(s), before);
    });
  }

  it('refuses standard tokens: only convertible ones convert (400 INSUFFICIENT_BALANCE)', async () => {
    const s = await seller(0);
    await fund(s, 'GEM:standard', 1000);
    const res = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] });
    assert.equal(await exchangeCount(s.account_id), 0);
  });

  it('refuses before KYC is ACCEPT (409 KYC_REQUIRED), and after a DENY', async () => {
    const p = await party(client);
    await fund(p, 'GEM:convertible', 500);
    const none = await convert({ account_id: p.account_id, amount: 500, currency: 'GEM' });
    assert.equal(none.status, 409, none.text);
    assert.deepEqual(none.body.codes, ['KYC_REQUIRED']);
    await decideKyc(h().orm.em.fork(), p.account_id, 'DENY', false);
    const denied = await convert({ account_id: p.account_id, amount: 500, currency: 'GEM' });
    assert.deepEqual(denied.body.codes, ['KYC_REQUIRED']);
    assert.match(denied.body.message.join(' '), /DENY/);
    assert.equal(await exchangeCount(p.account_id), 0);
  });

  for (const capability of ['login', 'transactions']) {
    it(`refuses an account with a ${capability} block (403), nothing written`, async () => {
      const s = await seller(500);
      await insertActiveBlock(db(h().orm.em.fork()), {
        id: newId('blk'),
        integratorId,
        accountId: s.account_id,
        capability: capability as 'login' | 'transactions',
        issuer: 'svc',
        reason: 'account_close',
        note: 'test',
        clientId: null,
      });
      const res = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' });
      assert.equal(res.status, 403, res.text);
      assert.equal(await exchangeCount(s.account_id), 0);
    });
  }

  it('refuses at execution an account blocked after the quote (403), moving nothing; the exchange stays OPEN', async () => {
    const s = await seller(500);
    const id = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    await insertActiveBlock(db(h().orm.em.fork()), {
      id: newId('blk'),
      integratorId,
      accountId: s.account_id,
      capability: 'transactions',
      issuer: 'svc',
      reason: 'account_close',
      note: 'test',
      clientId: null,
    });
    const before = await snapshot(s);
    const res = await execute(id);
    assert.equal(res.status, 403, res.text);
    assert.deepEqual(await snapshot(s), before);
    assert.equal((await call('GET', `/v2/token/convert/${id}`, { token: client.token })).body.payload.status, 'OPEN');
  });

  it("answers 404 for another integrator's account and exchange, and for an unknown exchange", async () => {
    const s = await seller(500);
    const quoted = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' });
    const other = await newClient();
    const byOther = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' }, other.token);
    assert.equal(byOther.status, 404);
    assert.deepEqual(byOther.body.codes, ['ACCOUNT_GET_ERROR']);
    for (const res of [
      await execute(quoted.body.payload.token_exchange_id, other.token),
      await call('GET', `/v2/token/convert/${quoted.body.payload.token_exchange_id}`, { token: other.token }),
      await execute('tex_00000000000000000000000000'),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.deepEqual(res.body.codes, ['TOKEN_EXCHANGE_GET_ERROR']);
      assert.equal(res.body.payload, null);
    }
    assert.equal(await balance(s.wallets['GEM:convertible'].wallet), 500, 'nothing moved');
  });

  it("refuses when the integrator's USD wallet cannot cover it (409 CONVERSION_REJECTED): stays OPEN, runs once funded", async () => {
    const poorName = unique('poor-');
    const poorId = (await createIntegrator(h().orm.em.fork(), { name: poorName, tokenCurrency: 'GEM', tokensPerUsd: RATE })).id;
    const poor = await newClient({ integrator: poorName });
    const p = await party(poor);
    await fund(p, 'GEM:convertible', 500);
    await accept(p);
    await fundPublisherWallet(h().orm.em.fork(), { integratorId: poorId, currency: 'USD', amount: 199 });
    const quoted = await convert({ account_id: p.account_id, amount: 500, currency: 'GEM' }, poor.token);
    assert.equal(quoted.status, 201, quoted.text);
    const id = quoted.body.payload.token_exchange_id;
    const refused = await execute(id, poor.token);
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.codes, ['CONVERSION_REJECTED']);
    assert.equal(refused.body.payload.status, 'OPEN');
    assert.equal(await balance(p.wallets['GEM:convertible'].wallet), 500);
    assert.equal(await balance(p.wallets['USD:fiat'].wallet), 0);
    assert.deepEqual(await exchangeEvents(id), []);
    await fundPublisherWallet(h().orm.em.fork(), { integratorId: poorId, currency: 'USD', amount: 1 });
    const done = await execute(id, poor.token);
    assert.equal(done.status, 200, done.text);
    assert.equal(await balance(p.wallets['USD:fiat'].wallet), 200);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('re-checks the balance and KYC when it executes (400 INSUFFICIENT_BALANCE, 409 KYC_REQUIRED), moving nothing', async () => {
    const s = await seller(500);
    const first = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    const second = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    assert.equal((await execute(first)).status, 200);
    const before = await snapshot(s);
    const short = await execute(second);
    assert.equal(short.status, 400, short.text);
    assert.deepEqual(short.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] });
    assert.deepEqual(await snapshot(s), before);
    await fund(s, 'GEM:convertible', 500);
    await decideKyc(h().orm.em.fork(), s.account_id, 'CANCEL', false);
    const funded = await snapshot(s);
    const kyc = await execute(second);
    assert.equal(kyc.status, 409, kyc.text);
    assert.deepEqual(kyc.body.codes, ['KYC_REQUIRED']);
    assert.deepEqual(await snapshot(s), funded);
    assert.equal((await call('GET', `/v2/token/convert/${second}`, { token: client.token })).body.payload.status, 'OPEN');
  });

  it('refuses an exchange past its expires_at (409 EXCHANGE_EXPIRED, now EXPIRED), on the test clock', async () => {
    const clockName = unique('clock-');
    const clockId = (await createIntegrator(h().orm.em.fork(), { name: clockName, tokenCurrency: 'GEM', tokensPerUsd: RATE })).id;
    const c = await newClient({ integrator: clockName });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId: clockId, currency: 'USD', amount: 10_000 });
    const p = await party(c);
    await fund(p, 'GEM:convertible', 500);
    await accept(p);
    // Another integrator's clock runs too: each exchange reads its own integrator's.
    const bystander = await newClient();
    assert.equal((await call('POST', '/v2/sandbox/clock', { token: bystander.token, body: { advance_seconds: 3600 } })).status, 200);
    const quoted = await convert({ account_id: p.account_id, amount: 500, currency: 'GEM' }, c.token);
    const id = quoted.body.payload.token_exchange_id;
    assert.equal((await call('POST', '/v2/sandbox/clock', { token: c.token, body: { advance_seconds: 899 } })).status, 200);
    const fresh = (await convert({ account_id: p.account_id, amount: 5, currency: 'GEM' }, c.token)).body.payload.token_exchange_id;
    assert.equal((await call('POST', '/v2/sandbox/clock', { token: c.token, body: { advance_seconds: 2 } })).status, 200);
    for (let i = 0; i < 2; i++) {
      const res = await execute(id, c.token);
      assert.equal(res.status, 409, res.text);
      assert.deepEqual(res.body.codes, ['EXCHANGE_EXPIRED']);
      assert.equal(res.body.payload.status, 'EXPIRED');
    }
    assert.equal(await balance(p.wallets['GEM:convertible'].wallet), 500);
    // The one made 899 s in is still good.
    assert.equal((await execute(fresh, c.token)).status, 200);
    assert.equal(await balance(p.wallets['GEM:convertible'].wallet), 495);
    await call('DELETE', '/v2/sandbox/clock', { token: c.token });
    await call('DELETE', '/v2/sandbox/clock', { token: bystander.token });
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('executes once when executed concurrently', async () => {
    const s = await seller(500);
    const id = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    const before = await snapshot(s);
    const results = await Promise.all(Array.from({ length: 6 }, () => execute(id)));
    assert.deepEqual(
      results.map((r) => [r.status, r.body.payload.status]),
      Array.from({ length: 6 }, () => [200, 'EXECUTED']),
    );
    const after = await snapshot(s);
    assert.deepEqual([after.convertible, after.usd - before.usd, after.issuance - before.issuance], [0, 200, 500]);
    const [{ n }] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>(`select count(*) as n from ledger_posting where reference like ?`, [`exchange:${id}:%`]);
    assert.equal(Number(n), 1);
    assert.deepEqual(await exchangeEvents(id), ['EXECUTED']);
  });

  it('answers 202 with Location under Prefer: respond-async; the Location reads the exchange', async () => {
    const s = await seller(500);
    const id = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    const res = await execute(id, client.token, { prefer: 'respond-async' });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.headers.get('location'), `/v2/token/convert/${id}`);
    let status = res.body.payload.status;
    for (let i = 0; i < 100 && status !== 'EXECUTED'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      status = (await call('GET', res.headers.get('location')!, { token: client.token })).body.payload.status;
    }
    assert.equal(status, 'EXECUTED');
  });

  it("takes the account's own user token, and no other account's", async () => {
    const s = await seller(500);
    const other = await seller(500);
    const auth = await call('POST', '/authorize/user', { token: client.token, body: { account_id: s.account_id, return_token: true } });
    const token = auth.body.payload.token.access_token;
    const foreign = await convert({ account_id: other.account_id, amount: 500, currency: 'GEM' }, token);
    assert.equal(foreign.status, 404, foreign.text);
    assert.deepEqual(foreign.body.codes, ['ACCOUNT_GET_ERROR']);
    const othersExchange = (await convert({ account_id: other.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    assert.equal((await execute(othersExchange, token)).status, 404);
    const own = await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' }, token);
    assert.equal(own.status, 201, own.text);
    const done = await execute(own.body.payload.token_exchange_id, token);
    assert.equal(done.status, 200, done.text);
    assert.equal(await balance(s.wallets['USD:fiat'].wallet), 200);
    assert.equal(await balance(other.wallets['GEM:convertible'].wallet), 500);
  });

  it('reverses an executed exchange for a payout (one posting, REVERSED, event again), once; ledger verify clean', async () => {
    await setFee(300);
    const s = await seller(500);
    const id = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    const start = await snapshot(s);
    const pdb = db(h().orm.em.fork());
    const notYet = await pdb.transaction(async (tx) => reverseTokenExchange(tx, id)).catch((e) => e);
    assert.deepEqual(notYet.details?.codes, ['EXCHANGE_STATE_ERROR'], 'an OPEN exchange is not reversed');
    assert.equal((await execute(id)).status, 200);
    await pdb.transaction(async (tx) => {
      const locked = await lockExchange(tx, id);
      assert.deepEqual(locked, {
        id,
        integratorId,
        accountId: s.account_id,
        status: 'EXECUTED',
        fiatAmount: 200,
        feeAmount: 6,
        payoutId: null,
      });
      await linkExchangeToPayout(tx, id, 'po_test');
      await reverseTokenExchange(tx, id);
    });
    assert.deepEqual(await snapshot(s), start, 'everything is back where it was');
    assert.equal((await pdb.transaction((tx) => lockExchange(tx, id)))?.payoutId, 'po_test');
    const read = await call('GET', `/v2/token/convert/${id}`, { token: client.token });
    assert.equal(read.body.payload.status, 'REVERSED');
    assert.deepEqual(await exchangeEvents(id), ['EXECUTED', 'REVERSED']);
    // Again: nothing more.
    await pdb.transaction((tx) => reverseTokenExchange(tx, id));
    assert.deepEqual(await snapshot(s), start);
    assert.deepEqual(await exchangeEvents(id), ['EXECUTED', 'REVERSED']);
    const executeReversed = await execute(id);
    assert.equal(executeReversed.status, 409);
    assert.deepEqual(executeReversed.body.codes, ['EXCHANGE_STATE_ERROR']);
    assert.equal(await pdb.transaction((tx) => lockExchange(tx, 'tex_nope')), undefined);
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
    await setFee(0);
  });

  it('ledger verify names an exchange whose postings do not match its status', async () => {
    const s = await seller(500);
    const id = (await convert({ account_id: s.account_id, amount: 500, currency: 'GEM' })).body.payload.token_exchange_id;
    assert.equal((await execute(id)).status, 200);
    const em = h().orm.em.fork();
    // Broken on purpose (an EXECUTED exchange told OPEN), checked, and put back.
    await em.execute(`update token_exchange set status = 'OPEN' where id = ?`, [id]);
    try {
      const problems = (await verifyAll(h().orm.em.fork())).problems;
      assert.deepEqual(
        problems.filter((p) => p.includes(id)),
        [`token exchange ${id} is OPEN but has postings [execute] (expected [])`],
      );
    } finally {
      await em.execute(`update token_exchange set status = 'EXECUTED' where id = ?`, [id]);
    }
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});

describe('token conversion: exact at every size', () => {
  let client: TestClient;
  let seller: Party;
  before(async () => {
    // An integrator of its own: the largest amounts must not share accounts with other tests' money.
    const name = unique('convexact-');
    await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: RATE });
    await updateIntegrator(h().orm.em.fork(), name, { conversionFeeBps: 9999 });
    client = await newClient({ integrator: name });
    seller = await party(client);
    await fund(seller, 'GEM:convertible', 9_007_199_254_740_989);
    await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
  });
  const convert = (amount: number) =>
    call('POST', '/v2/token/convert', { token: client.token, body: { account_id: seller.account_id, amount, currency: 'GEM' } });

  it('refuses 9007199254740989 GEM at 250 per USD (3602879701896395.6 cents: 400 amount NOT_EXACT), writing nothing', async () => {
    const res = await convert(9_007_199_254_740_989);
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(res.body.payload.errors, { amount: ['NOT_EXACT'] });
    const [row] = await h()
      .orm.em.fork()
      .execute<Array<{ n: string }>>('select count(*) as n from token_exchange where account_id = ?', [seller.account_id]);
    assert.equal(Number(row.n), 0);
  });

  it('quotes 9007199254740985 GEM at exactly 3602879701896394 cents, with the fee exactly rounded up (9999 bps)', async () => {
    const res = await convert(9_007_199_254_740_985);
    assert.equal(res.status, 201, res.text);
    const { token_amount, fiat_amount, fee_amount } = res.body.payload;
    assert.deepEqual([token_amount, fiat_amount, fee_amount], [9_007_199_254_740_985, 3_602_879_701_896_394, 3_602_519_413_926_205]);
    assert.equal(BigInt(token_amount) * 100n, BigInt(fiat_amount) * BigInt(RATE));
  });
});
