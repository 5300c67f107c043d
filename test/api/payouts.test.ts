import assert from 'node:assert/strict';
import { verifyAll } from '../../src/cli/ledger-checks.js';
import { createIntegrator, updateIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { balances, fundPublisherWallet, post, systemAccount } from '../../src/ledger/ledger.service.js';
import { call, h, holdfastCli, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, type Party } from '../support/money.js';

/** A payout destination of the account's (a paypal method), through the API. */
async function addPaypal(client: TestClient, accountId: string, email: string): Promise<string> {
  const res = await call('POST', `/v1/${accountId}/payment_methods`, { token: client.token, body: { type: 'paypal', paypal: { email } } });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  return res.body.payload.id;
}

async function outboxFor(payoutId: string): Promise<Array<Record<string, unknown>>> {
  const rows = await h()
    .orm.em.fork()
    .getConnection()
    .execute<Array<{ message: Record<string, unknown> }>>(
      `select message from outbox where event_name = 'payout-complete' and message->>'payout_status_id' = ? order by id`,
      [payoutId],
    );
  return rows.map((r) => r.message);
}

async function holding(integratorId: string): Promise<number> {
  const id = await systemAccount(h().orm.em.fork(), integratorId, 'payout_holding', 'USD');
  return (await balances(h().orm.em.fork(), [id])).get(id) ?? 0;
}

describe('payouts (POST/GET/DELETE/PATCH /v2/{account_id}/payout…, holdfast payouts approve|reject)', () => {
  let client: TestClient;

  /** A seller with KYC accepted, USD 100.00 in its wallet and a payout destination. */
  async function seller(opts: { kyc?: boolean; email?: string } = {}) {
    const p: Party = await party(client);
    await fund(p, 'USD:fiat', 10_000);
    if (opts.kyc !== false) await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(client, p.account_id, opts.email ?? `${p.account_id.toLowerCase()}@example.com`);
    return { ...p, wallet: p.wallets['USD:fiat'], destination };
  }

  const request = (s: Awaited<ReturnType<typeof seller>>, amount: number, extra: Record<string, unknown> = {}) =>
    call('POST', `/v2/${s.account_id}/payout`, {
      token: client.token,
      body: { source_payment_method_id: s.wallet.pm, destination_payment_method_id: s.destination, amount, currency: 'USD', ...extra },
    });

  before(async () => {
    client = await newClient();
  });

  after(async () => {
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });

  it('a request holds the money (FUNDS-IN-ESCROW, 201); approval pays it out (SUCCESS); each change emits payout-complete', async () => {
    const s = await seller();
    const heldBefore = await holding(s.integrator_id);
    const res = await request(s, 2500);
    assert.equal(res.status, 201, res.text);
    const payout = res.body.payload;
    assert.equal(payout.payout_status, 'FUNDS-IN-ESCROW');
    assert.deepEqual(
      [payout.account_id, payout.amount, payout.currency, payout.source_payment_method_id, payout.destination_payment_method_id],
      [s.account_id, 2500, 'USD', s.wallet.pm, s.destination],
    );
    assert.equal(await balance(s.wallet.wallet), 7500);
    assert.equal(await holding(s.integrator_id), heldBefore + 2500);
    const approved = await holdfastCli(['payouts', 'approve', payout.payout_status_id, '--reason', 'checked', '--json']);
    assert.equal(approved.status, 0, approved.stderr);
    assert.equal(JSON.parse(approved.stdout).payout_status, 'SUCCESS');
    assert.equal(await holding(s.integrator_id), heldBefore);
    const got = await call('GET', `/v2/${s.account_id}/payout/${payout.payout_status_id}`, { token: client.token });
    assert.equal(got.body.payload.payout_status, 'SUCCESS');
    const events = await outboxFor(payout.payout_status_id);
    assert.deepEqual(
      events.map((e) => e.payout_status),
      ['FUNDS-IN-ESCROW', 'SUCCESS'],
    );
    assert.deepEqual(Object.keys(events[0]).sort(), [
      'account_id',
      'amount',
      'currency',
      'failure_code',
      'failure_reason',
      'payout_flow',
      'payout_status',
      'payout_status_id',
    ]);
    assert.equal(events[0].payout_flow, 'STANDARD');
    // Approving again: the state refuses it, naming it.
    const again = await holdfastCli(['payouts', 'approve', payout.payout_status_id, '--reason', 'checked']);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /SUCCESS/);
  });

  it('refuses, moving nothing: KYC not ACCEPT (409), a payouts block (403), too little money (400 amount), foreign methods (400), the open-payout limit (409)', async () => {
    const noKyc = await seller({ kyc: false });
    const kyc = await request(noKyc, 100);
    assert.equal(kyc.status, 409, kyc.text);
    assert.deepEqual(kyc.body.codes, ['KYC_REQUIRED']);

    const s = await seller();
    const poor = await request(s, 10_001);
    assert.equal(poor.status, 400, poor.text);
    assert.deepEqual(poor.body.payload.errors, { amount: ['INSUFFICIENT_BALANCE'] });

    const other = await seller();
    const foreign = await request(s, 100, { destination_payment_method_id: other.destination });
    assert.equal(foreign.status, 400);
    assert.deepEqual(Object.keys(foreign.body.payload.errors), ['destination_payment_method_id']);
    const notWallet = await request(s, 100, { source_payment_method_id: s.destination });
    assert.deepEqual(Object.keys(notWallet.body.payload.errors), ['source_payment_method_id']);

    for (let i = 0; i < 3; i++) assert.equal((await request(s, 100)).status, 201);
    const limited = await request(s, 100);
    assert.equal(limited.status, 409, limited.text);
    assert.deepEqual(limited.body.codes, ['PAYOUT_LIMIT']);
    assert.equal(await balance(s.wallet.wallet), 9700);

    const blocked = await seller();
    const operator = await newClient({ integrator: client.integrator, isOperator: true });
    await call('POST', '/v2/block', {
      token: operator.token,
      body: { account_id: blocked.account_id, block_capability: 'payouts', block_reason: 'compliance' },
    });
    const refused = await request(blocked, 100);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(await balance(blocked.wallet.wallet), 10_000);
  });

  it('DELETE takes an open payout back (USER-REVERSED), and then nothing more; reject is SUPPORT-REVERSED', async () => {
    const s = await seller();
    const first = (await request(s, 1000)).body.payload.payout_status_id;
    const reversed = await call('DELETE', `/v2/${s.account_id}/payout/${first}`, { token: client.token });
    assert.equal(reversed.status, 200, reversed.text);
    assert.equal(reversed.body.payload.payout_status, 'USER-REVERSED');
    assert.equal(await balance(s.wallet.wallet), 10_000);
    const twice = await call('DELETE', `/v2/${s.account_id}/payout/${first}`, { token: client.token });
    assert.equal(twice.status, 409);
    assert.deepEqual(twice.body.codes, ['PAYOUT_STATE_ERROR']);

    const second = (await request(s, 400)).body.payload.payout_status_id;
    const rejected = await holdfastCli(['payouts', 'reject', second, '--reason', 'checked', '--json']);
    assert.equal(rejected.status, 0, rejected.stderr);
    assert.equal(JSON.parse(rejected.stdout).payout_status, 'SUPPORT-REVERSED');
    assert.equal(await balance(s.wallet.wallet), 10_000);
  });

  it('the failing destination: FAILED keeps the money held; it can be retried, reversed or rejected', async () => {
    const s = await seller({ email: 'payout-fails@example.com' });
    const id = (await request(s, 700)).body.payload.payout_status_id;
    const executed = await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token });
    assert.equal(executed.status, 200, executed.text);
    assert.equal(executed.body.payload.payout_status, 'FAILED');
    assert.equal(executed.body.payload.failure_code, 'destination_rejected');
    assert.equal(await balance(s.wallet.wallet), 9300, 'still held');
    // The staging shortcut only executes FUNDS-IN-ESCROW; approval retries a FAILED one.
    assert.equal((await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).status, 409);
    const retried = await holdfastCli(['payouts', 'approve', id, '--reason', 'checked', '--json']);
    assert.equal(JSON.parse(retried.stdout).payout_status, 'FAILED');
    const back = await call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token });
    assert.equal(back.body.payload.payout_status, 'USER-REVERSED');
    assert.equal(await balance(s.wallet.wallet), 10_000);
  });

  it('at or under payout_auto_approve_max a payout executes by itself', async () => {
    const name = client.integrator;
    assert.equal((await holdfastCli(['integrator', 'update', name, '--payout-auto-approve-max', '500'])).status, 0);
    try {
      const s = await seller();
      const small = (await request(s, 500)).body.payload;
      assert.equal(small.payout_status, 'FUNDS-IN-ESCROW');
      const deadline = Date.now() + 15_000;
      let status = small.payout_status;
      // PROCESSING: the execution is on the rail (the sandbox's passes through it within its command).
      while ((status === 'FUNDS-IN-ESCROW' || status === 'PROCESSING') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await call('GET', `/v2/${s.account_id}/payout/${small.payout_status_id}`, { token: client.token })).body.payload
          .payout_status;
      }
      assert.equal(status, 'SUCCESS');
      const big = (await request(s, 501)).body.payload;
      await new Promise((r) => setTimeout(r, 500));
      const still = await call('GET', `/v2/${s.account_id}/payout/${big.payout_status_id}`, { token: client.token });
      assert.equal(still.body.payload.payout_status, 'FUNDS-IN-ESCROW');
    } finally {
      await holdfastCli(['integrator', 'update', name, '--payout-auto-approve-max', '0']);
    }
  });

  it('lists newest first with total, limit and offset; another integrator gets 404', async () => {
    const s = await seller();
    const ids: string[] = [];
    for (const amount of [100, 200, 300]) ids.push((await request(s, amount)).body.payload.payout_status_id);
    const page = await call('GET', `/v2/${s.account_id}/payouts?limit=2&offset=0`, { token: client.token });
    assert.equal(page.status, 200, page.text);
    assert.equal(page.body.payload.total, 3);
    assert.deepEqual(
      page.body.payload.payouts.map((p: { payout_status_id: string }) => p.payout_status_id),
      [ids[2], ids[1]],
    );
    const rest = await call('GET', `/v2/${s.account_id}/payouts?limit=2&offset=2`, { token: client.token });
    assert.deepEqual(
      rest.body.payload.payouts.map((p: { payout_status_id: string }) => p.payout_status_id),
      [ids[0]],
    );
    const other = await newClient();
    assert.equal((await call('GET', `/v2/${s.account_id}/payout/${ids[0]}`, { token: other.token })).status, 404);
    assert.equal((await call('GET', `/v2/${s.account_id}/payouts`, { token: other.token })).status, 404);
    assert.equal((await call('DELETE', `/v2/${s.account_id}/payout/${ids[0]}`, { token: other.token })).status, 404);
    const missing = await call('GET', `/v2/${s.account_id}/payout/po_00000000000000000000000000`, { token: client.token });
    assert.deepEqual(missing.body.codes, ['PAYOUT_NOT_FOUND']);
  });

  it('a payout of a token conversion: exactly its net amount, once; reversing the payout reverses the conversion', async () => {
    const name = unique('payconv-');
    const integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
    await updateIntegrator(h().orm.em.fork(), name, { conversionFeeBps: 300 });
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 100_000 });
    const gems = await newClient({ integrator: name });
    const p = await party(gems);
    await fund(p, 'GEM:convertible', 1000);
    await decideKyc(h().orm.em.fork(), p.account_id, 'ACCEPT', false);
    const destination = await addPaypal(gems, p.account_id, `${p.account_id.toLowerCase()}@example.com`);
    const quote = await call('POST', '/v2/token/convert', {
      token: gems.token,
      body: { account_id: p.account_id, amount: 500, currency: 'GEM' },
    });
    assert.equal(quote.status, 201, quote.text);
    const exchangeId = quote.body.payload.token_exchange_id;
    // USD 2.00 less a 3% fee (6 cents): 194 cents reach the USD wallet.
    assert.deepEqual([quote.body.payload.fiat_amount, quote.body.payload.fee_amount], [200, 6]);
    const payOut = (amount: number, id = exchangeId) =>
      call('POST', `/v2/${p.account_id}/payout`, {
        token: gems.token,
        body: {
          source_payment_method_id: p.wallets['USD:fiat'].pm,
          destination_payment_method_id: destination,
          amount,
          currency: 'USD',
          token_exchange_id: id,
        },
      });
    const early = await payOut(194);
    assert.equal(early.status, 400, early.text);
    assert.deepEqual(early.body.payload.errors, { token_exchange_id: ['NOT_EXECUTED'] });
    assert.equal((await call('POST', `/v2/token/convert/${exchangeId}`, { token: gems.token })).status, 200);
    const wrong = await payOut(150);
    assert.deepEqual(wrong.body.payload.errors, { amount: ['MUST_MATCH_EXCHANGE'] });
    const other = await payOut(194, 'tex_00000000000000000000000000');
    assert.deepEqual(other.body.payload.errors, { token_exchange_id: ['NOT_FOUND'] });
    const paid = await payOut(194);
    assert.equal(paid.status, 201, paid.text);
    assert.equal(paid.body.payload.token_exchange_id, exchangeId);
    const twice = await payOut(194);
    assert.deepEqual(twice.body.payload.errors, { token_exchange_id: ['ALREADY_PAID_OUT'] });
    assert.deepEqual([await balance(p.wallets['USD:fiat'].wallet), await balance(p.wallets['GEM:convertible'].wallet)], [0, 500]);
    const back = await call('DELETE', `/v2/${p.account_id}/payout/${paid.body.payload.payout_status_id}`, { token: gems.token });
    assert.equal(back.body.payload.payout_status, 'USER-REVERSED');
    // The conversion is undone: the USD went back to the integrator, the tokens to the wallet.
    assert.deepEqual([await balance(p.wallets['USD:fiat'].wallet), await balance(p.wallets['GEM:convertible'].wallet)], [0, 1000]);
    const exchange = await call('GET', `/v2/token/convert/${exchangeId}`, { token: gems.token });
    assert.equal(exchange.body.payload.status, 'REVERSED');
  });

  it('a merge is refused while the source has an open payout (its reversal would pay the merged account)', async () => {
    const s = await seller();
    const destination = await party(client);
    const id = (await request(s, 10_000)).body.payload.payout_status_id;
    const merge = () =>
      call('POST', '/v2/merge-accounts', {
        token: client.token,
        body: { source_account_id: s.account_id, destination_account_id: destination.account_id },
      });
    const refused = await merge();
    assert.equal(refused.status, 409, refused.text);
    assert.deepEqual(refused.body.codes, ['ACCOUNT_MERGE_ERROR']);
    assert.match(refused.body.message.join(' '), /open payout/);
    // Paid out, the payout is closed: the merge goes ahead.
    assert.equal((await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).body.payload.payout_status, 'SUCCESS');
    assert.equal((await merge()).status, 200);
  });

  it('execution needs KYC still ACCEPT: a denied check (its payouts block lifted by hand) still stops it; the payout can be taken back', async () => {
    const s = await seller();
    const id = (await request(s, 300)).body.payload.payout_status_id;
    await decideKyc(h().orm.em.fork(), s.account_id, 'DENY', false);
    const operator = await newClient({ integrator: client.integrator, isOperator: true });
    const lifted = await call('DELETE', `/v2/block/${s.account_id}/capability/payouts`, { token: operator.token });
    assert.equal(lifted.status, 200, lifted.text);
    const executed = await call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token });
    assert.equal(executed.status, 409, executed.text);
    assert.deepEqual(executed.body.codes, ['KYC_REQUIRED']);
    assert.equal(
      (await call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token })).body.payload.payout_status,
      'USER-REVERSED',
    );
    assert.equal(await balance(s.wallet.wallet), 10_000);
  });

  it('ledger verify names a payout posting whose payout does not exist (rolled-back write)', async () => {
    const s = await seller();
    const rolledBack = new Error('roll back');
    const holdingId = await systemAccount(h().orm.em.fork(), s.integrator_id, 'payout_holding', 'USD');
    await assert.rejects(
      h()
        .orm.em.fork()
        .transactional(async (tx) => {
          await post(tx, {
            integratorId: s.integrator_id,
            reference: 'payout:po_00000000000000000000000000:hold',
            description: 'a stray payout posting',
            entries: [
              { account: s.wallet.wallet, currency: 'USD', amount: -1 },
              { account: holdingId, currency: 'USD', amount: 1 },
            ],
          });
          const report = await verifyAll(tx);
          assert.ok(
            report.problems.some((p) => p.includes('po_00000000000000000000000000') && p.includes('does not exist')),
            report.problems.join('\n'),
          );
          throw rolledBack;
        }),
      rolledBack,
    );
  });

  it('a reversal racing the execution: exactly one wins', async () => {
    const s = await seller();
    for (let round = 0; round < 3; round++) {
      const id = (await request(s, 100)).body.payload.payout_status_id;
      const [del, patch] = await Promise.all([
        call('DELETE', `/v2/${s.account_id}/payout/${id}`, { token: client.token }),
        call('PATCH', `/v2/${s.account_id}/payout/${id}`, { token: client.token }),
      ]);
      const wins = [del, patch].filter((r) => r.status === 200);
      assert.equal(wins.length, 1, `${del.status} ${patch.status}`);
      assert.ok([del, patch].some((r) => r.status === 409));
    }
    assert.deepEqual((await verifyAll(h().orm.em.fork())).problems, []);
  });
});
