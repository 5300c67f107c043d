import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { recordAudit, sealAudit } from '../../src/audit/audit.service.js';
import { db } from '../../src/db/sql.js';
import { createIntegrator } from '../../src/integrators/integrator.service.js';
import { decideKyc } from '../../src/kyc/kyc.service.js';
import { fundPublisherWallet } from '../../src/ledger/ledger.service.js';
import { armFailpoints } from '../../src/runtime/failpoints.js';
import { call, h, holdfastCli, newClient, unique, type TestClient } from '../support/harness.js';
import { balance, fund, party, settlementFromPostings, settlementNet, type Party } from '../support/money.js';

type Row = Record<string, string>;

/** A CSV export parsed by a CSV library (RFC 4180: CRLF, quoted fields), its header as keys. */
function csvRows(text: string): Row[] {
  return parse(text, { columns: true, record_delimiter: '\r\n', strict: true } as never) as Row[];
}

const sum = (rows: Row[], column = 'amount') => rows.reduce((n, r) => n + Number(r[column]), 0);

describe('exports and the settlement report (GET /v2/exports/{kind}, GET /v2/reports/settlement, holdfast export|report)', () => {
  let client: TestClient;
  let other: TestClient;
  let name: string;
  let integratorId: string;
  let buyer: Party;
  let seller: Party;
  const invoices: string[] = [];
  let payoutId: string;
  let disputeId: string;
  const today = new Date().toISOString().slice(0, 10);

  const get = (path: string, token = client.token) => call('GET', path, { token });

  async function paidInvoice(amount: number): Promise<string> {
    const created = await call('POST', '/v2/invoice', {
      token: client.token,
      body: {
        account_id: buyer.account_id,
        payment_methods: [{ payment_method_id: buyer.card, amount: 0 }],
        line_items: [{ amount, currency: 'USD', transaction_type: 'user_to_integrator', description: `sword, "steel", ${amount}` }],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.payload.invoice_id;
    const paid = await call('POST', `/v2/invoice/${id}/pay`, { token: client.token });
    assert.equal(paid.body.payload.state, 'SUCCESS', paid.text);
    return id;
  }

  before(async () => {
    name = unique('rep-');
    integratorId = (await createIntegrator(h().orm.em.fork(), { name, tokenCurrency: 'GEM', tokensPerUsd: 250 })).id;
    client = await newClient({ integrator: name });
    other = await newClient();
    await fundPublisherWallet(h().orm.em.fork(), { integratorId, currency: 'USD', amount: 1_000_000 });
    buyer = await party(client, true);

    // Card charges: 10.00, 20.00, 30.00.
    for (const amount of [1000, 2000, 3000]) invoices.push(await paidInvoice(amount));
    // A refund of the first, in full.
    const refunded = await call('POST', '/v2/refund', {
      token: client.token,
      body: { invoice_id: invoices[0], reason: 'product_related' },
    });
    assert.equal(refunded.status, 200, refunded.text);
    // A dispute of the second, opened and lost.
    const opened = await call('POST', '/v2/sandbox/disputes', {
      token: client.token,
      body: { invoice_id: invoices[1], payment_method_id: buyer.card },
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(opened.status, 200, opened.text);
    disputeId = opened.body.payload.dispute_id;
    const lost = await call('POST', `/v2/sandbox/disputes/${disputeId}/close`, {
      token: client.token,
      body: { outcome: 'lost' },
      headers: { 'idempotency-key': unique('k') },
    });
    assert.equal(lost.body.payload.status, 'LOST', lost.text);

    // A seller with KYC accepted: a payout of 5.00 and a conversion of 500 GEM (USD 2.00, no fee).
    seller = await party(client);
    await fund(seller, 'USD:fiat', 10_000);
    await fund(seller, 'GEM:convertible', 1000);
    await decideKyc(h().orm.em.fork(), seller.account_id, 'ACCEPT', false);
    const destination = await call('POST', `/v1/${seller.account_id}/payment_methods`, {
      token: client.token,
      body: { type: 'paypal', paypal: { email: `${seller.account_id.toLowerCase()}@example.com` } },
    });
    const requested = await call('POST', `/v2/${seller.account_id}/payout`, {
      token: client.token,
      body: {
        source_payment_method_id: seller.wallets['USD:fiat'].pm,
        destination_payment_method_id: destination.body.payload.id,
        amount: 500,
        currency: 'USD',
      },
    });
    assert.equal(requested.status, 201, requested.text);
    payoutId = requested.body.payload.payout_status_id;
    const executed = await call('PATCH', `/v2/${seller.account_id}/payout/${payoutId}`, { token: client.token });
    assert.equal(executed.body.payload.payout_status, 'SUCCESS', executed.text);
    const quoted = await call('POST', '/v2/token/convert', {
      token: client.token,
      body: { account_id: seller.account_id, amount: 500, currency: 'GEM' },
    });
    assert.equal(quoted.status, 201, quoted.text);
    const converted = await call('POST', `/v2/token/convert/${quoted.body.payload.token_exchange_id}`, { token: client.token });
    assert.equal(converted.body.payload.status, 'EXECUTED', converted.text);
  });

  afterEach(() => armFailpoints([]));

  it('exports invoices as RFC 4180 CSV: a header, every invoice once, amounts in minor units with a display column, quotes kept', async () => {
    const res = await get(`/v2/exports/invoices?account_id=${buyer.account_id}`);
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="holdfast-invoices-\d{8}T\d{6}Z\.csv"$/);
    assert.ok(res.text.endsWith('\r\n'));
    const rows = csvRows(res.text);
    const listed = await get(`/v2/invoice/account/${buyer.account_id}?limit=100`);
    assert.equal(rows.length, listed.body.payload.total, 'as many rows as the list counts');
    assert.deepEqual(new Set(rows.map((r) => r.invoice_id)), new Set(listed.body.payload.invoices.map((i: any) => i.invoice_id)));
    const purchases = rows.filter((r) => r.invoice_type === 'user_purchase');
    assert.deepEqual(
      purchases.map((r) => [r.invoice_id, r.amount, r.amount_display, r.state]),
      [
        [invoices[0], '1000', '10.00', 'SUCCESS'],
        [invoices[1], '2000', '20.00', 'SUCCESS'],
        [invoices[2], '3000', '30.00', 'SUCCESS'],
      ],
    );
    // Filters as the list's: only the refund invoice.
    const refundsOnly = csvRows((await get(`/v2/exports/invoices?account_id=${buyer.account_id}&invoice_types=user_refund`)).text);
    assert.deepEqual(
      refundsOnly.map((r) => [r.refunded_invoice_id, r.amount]),
      [[invoices[0], '1000']],
    );
  });

  it('exports refunds, payouts, disputes and events that add up to the ledger and to their lists; jsonl too', async () => {
    const refunds = csvRows((await get(`/v2/exports/refunds?invoice_id=${invoices[0]}`)).text);
    assert.deepEqual(
      refunds.map((r) => [r.refunded_invoice_id, r.state, r.amount, r.amount_display]),
      [[invoices[0], 'SUCCESS', '1000', '10.00']],
    );

    const payouts = csvRows((await get(`/v2/exports/payouts?account_id=${seller.account_id}`)).text);
    assert.deepEqual(
      payouts.map((r) => [r.payout_id, r.status, r.amount, r.amount_display]),
      [[payoutId, 'SUCCESS', '500', '5.00']],
    );
    const listedPayouts = await get(`/v2/${seller.account_id}/payouts`);
    assert.equal(payouts.length, listedPayouts.body.payload.total);
    // Added up to the ledger: what the payouts' execute postings put in payout clearing.
    const [cleared] = await h()
      .orm.em.fork()
      .execute<Array<{ s: string }>>(
        `select coalesce(sum(e.amount), 0) as s from ledger_posting p join ledger_entry e on e.posting_id = p.id
           join ledger_account a on a.id = e.ledger_account_id
          where p.integrator_id = ? and a.kind = 'payout_clearing'`,
        [integratorId],
      );
    assert.equal(sum(payouts.filter((r) => r.status === 'SUCCESS')), Number(cleared.s));

    const disputes = csvRows((await get('/v2/exports/disputes?status=LOST')).text);
    assert.deepEqual(
      disputes.map((r) => [r.dispute_id, r.invoice_id, r.amount, r.fee, r.fee_display, r.closed_at !== '']),
      [[disputeId, invoices[1], '2000', '1500', '15.00', true]],
    );

    const events = csvRows((await get(`/v2/exports/events?account_id=${buyer.account_id}`)).text);
    const listedEvents = await get(`/v2/events?account_id=${buyer.account_id}&limit=100`);
    assert.equal(events.length, listedEvents.body.payload.total);
    assert.ok(events.length > 0);
    for (const e of events) assert.equal(JSON.parse(e.payload).account_id ?? buyer.account_id, buyer.account_id);

    const jsonl = await get(`/v2/exports/payouts?account_id=${seller.account_id}&format=jsonl`);
    assert.equal(jsonl.headers.get('content-type'), 'application/x-ndjson');
    assert.ok(jsonl.text.endsWith('\n'));
    const lines = jsonl.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.payout_id, l.amount, l.amount_display, l.failure_code]),
      [[payoutId, 500, '5.00', null]],
    );
    const eventLines = (await get(`/v2/exports/events?account_id=${buyer.account_id}&format=jsonl`)).text.trimEnd().split('\n');
    assert.equal(typeof JSON.parse(eventLines[0]).payload, 'object', "an event's payload is an object in JSON lines");
  });

  it("exports an account's statement whose amounts add up to its wallets' balances, each balance_after running", async () => {
    const rows = csvRows((await get(`/v2/exports/statement?account_id=${seller.account_id}`)).text);
    for (const [currency, wallet] of [
      ['USD', seller.wallets['USD:fiat'].wallet],
      ['GEM', seller.wallets['GEM:convertible'].wallet],
    ]) {
      const mine = rows.filter((r) => r.wallet_id === wallet);
      assert.ok(mine.length >= 2);
      assert.equal(sum(mine), await balance(wallet), `${currency}: the entries add up to the balance`);
      assert.equal(Number(mine.at(-1)!.balance_after), await balance(wallet));
      let running = 0;
      for (const r of mine) {
        running += Number(r.amount);
        assert.equal(Number(r.balance_after), running);
      }
    }
    assert.ok(rows.some((r) => r.reference === `payout:${payoutId}:hold` && r.amount === '-500' && r.amount_display === '-5.00'));
    // A time range: nothing before the account existed.
    const none = await get(`/v2/exports/statement?account_id=${seller.account_id}&to=2000-01-01T00:00:00Z`);
    assert.equal(
      none.text,
      `${'entry_id,posted_at,account_id,wallet_id,wallet_type,currency,amount,amount_display,balance_after,balance_after_display,reference,description'}\r\n`,
    );
  });

  it("another integrator's records are absent; its account answers 404; bad kind, date and filters answer 400 naming the field", async () => {
    const theirs = csvRows((await get('/v2/exports/invoices', other.token)).text);
    assert.deepEqual(theirs, []);
    const disputes = csvRows((await get('/v2/exports/disputes', other.token)).text);
    assert.deepEqual(disputes, []);
    const foreign = await get(`/v2/exports/statement?account_id=${buyer.account_id}`, other.token);
    assert.equal(foreign.status, 404);
    assert.equal((await get(`/v2/exports/invoices?account_id=${buyer.account_id}`, other.token)).status, 404);

    const bad = async (path: string, field: string, code?: string) => {
      const res = await get(path);
      assert.equal(res.status, 400, `${path}: ${res.text}`);
      assert.ok(res.body.payload.errors[field], `${path} names ${field}: ${res.text}`);
      if (code) assert.deepEqual(res.body.payload.errors[field], [code]);
    };
    await bad('/v2/exports/ledger', 'kind');
    await bad('/v2/exports/invoices?from=yesterday', 'from');
    await bad('/v2/exports/invoices?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z', 'to', 'BEFORE_FROM');
    await bad('/v2/exports/invoices?status=LOST', 'status', 'NOT_A_FILTER_OF_KIND');
    await bad('/v2/exports/payouts?status=LOST', 'status', 'INVALID_VALUE');
    await bad('/v2/exports/payouts?nope=1', 'nope');
    await bad('/v2/exports/statement', 'account_id', 'REQUIRED');
    await bad('/v2/exports/invoices?format=xlsx', 'format');
    await bad(`/v2/exports/audit?account_id=${buyer.account_id}`, 'account_id', 'NOT_A_FILTER_OF_KIND');
    await bad('/v2/exports/invoices?actor=alice', 'actor', 'NOT_A_FILTER_OF_KIND');
    await bad('/v2/exports/audit?action=payout.explode', 'action');
    await bad('/v2/reports/settlement?date=2026-02-30', 'date');
    await bad('/v2/reports/settlement', 'date');

    const narrow = await newClient({ integrator: name, scopes: ['read_invoices'] });
    assert.equal((await get('/v2/exports/invoices', narrow.token)).status, 401);
    assert.equal((await get(`/v2/reports/settlement?date=${today}`, narrow.token)).status, 401);
  });

  it("exports the audit trail: read_audit needed too; the rows are GET /v2/audit's, oldest first; filters; formulas defused; jsonl", async () => {
    // Two records of an operator's CLI besides the API's refund: free text a spreadsheet would run.
    const formula = '=HYPERLINK("https://evil.example","click")';
    const cli = { kind: 'cli' as const, id: '@ops', name: '@ops' };
    await recordAudit(db(h().orm.em.fork()), {
      integratorId,
      context: { actor: cli, reason: formula },
      action: 'block.apply',
      target: { type: 'account', id: buyer.account_id },
      before: null,
      after: { capability: 'purchase', note: '+1, "quoted"' },
    });
    await recordAudit(db(h().orm.em.fork()), {
      integratorId,
      context: { actor: cli, reason: 'lifted' },
      action: 'block.lift',
      target: { type: 'account', id: buyer.account_id },
      before: { capability: 'purchase' },
      after: null,
    });
    await sealAudit(h().orm.em.fork(), 100_000);

    // The scope: read_reports alone is refused as any missing scope is, naming both.
    const reportsOnly = await newClient({ integrator: name, scopes: ['read_reports'] });
    const refused = await get('/v2/exports/audit', reportsOnly.token);
    assert.equal(refused.status, 401, refused.text);
    assert.deepEqual(refused.body.codes, ['INSUFFICIENT_SCOPE']);
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
    assert.match(refused.headers.get('www-authenticate') ?? '', /scope="read_reports read_audit"/);
    const auditOnly = await newClient({ integrator: name, scopes: ['read_audit'] });
    assert.equal((await get('/v2/exports/audit', auditOnly.token)).status, 401);
    assert.equal((await get('/v2/exports/invoices', reportsOnly.token)).status, 200, 'the other kinds need read_reports only');
    const both = await newClient({ integrator: name, scopes: ['read_reports', 'read_audit'] });

    const res = await get('/v2/exports/audit', both.token);
    assert.equal(res.status, 200, res.text);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="holdfast-audit-\d{8}T\d{6}Z\.csv"$/);
    assert.equal(
      res.text.split('\r\n')[0],
      'audit_id,at,actor_kind,actor_id,actor_name,action,target_type,target_id,reason,request_id,seq,before,after',
    );
    const rows = csvRows(res.text);
    const listed = (await get('/v2/audit?limit=100', both.token)).body.payload;
    assert.ok(listed.total >= 3, 'the refund, the block and the lift');
    assert.equal(rows.length, listed.total);
    const cell = (v: unknown) => (v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    const safe = (v: string) => (/^[=+\-@]/.test(v) ? `'${v}` : v);
    assert.deepEqual(
      rows,
      [...listed.records].reverse().map((r: any) => ({
        audit_id: r.audit_id,
        at: r.at,
        actor_kind: r.actor.kind,
        actor_id: safe(r.actor.id),
        actor_name: safe(r.actor.name),
        action: r.action,
        target_type: r.target.type,
        target_id: r.target.id,
        reason: safe(cell(r.reason)),
        request_id: cell(r.request_id),
        seq: cell(r.seq),
        before: cell(r.before),
        after: cell(r.after),
      })),
      "the list's records, oldest first, flattened",
    );
    assert.ok(rows.some((r) => r.action === 'refund.request' && r.actor_kind === 'client' && r.target_id === invoices[0]));
    const block = rows.find((r) => r.action === 'block.apply')!;
    assert.equal(block.reason, `'${formula}`, 'a formula is written with a leading quote');
    assert.equal(block.actor_name, "'@ops");
    assert.deepEqual(JSON.parse(block.after), { capability: 'purchase', note: '+1, "quoted"' });
    assert.equal(block.before, '');
    assert.ok(
      rows.every((r) => /^\d+$/.test(r.seq)),
      'sealed records carry their seq',
    );

    // Filters as GET /v2/audit's, and a time range.
    const lifts = csvRows((await get('/v2/exports/audit?action=block.lift', both.token)).text);
    assert.deepEqual(
      lifts.map((r) => [r.action, r.reason]),
      [['block.lift', 'lifted']],
    );
    const byActor = csvRows((await get('/v2/exports/audit?actor=@ops', both.token)).text);
    assert.deepEqual(
      byActor.map((r) => r.action),
      ['block.apply', 'block.lift'],
    );
    const about = csvRows((await get(`/v2/exports/audit?target_id=${invoices[0]}`, both.token)).text);
    assert.deepEqual(
      about.map((r) => r.action),
      ['refund.request'],
    );
    const after = csvRows((await get(`/v2/exports/audit?from=${encodeURIComponent(block.at)}`, both.token)).text);
    assert.deepEqual(
      after.map((r) => r.action),
      ['block.apply', 'block.lift'],
    );
    assert.deepEqual(csvRows((await get('/v2/exports/audit?to=2000-01-01T00:00:00Z', both.token)).text), []);
    // Another integrator's export has none of these.
    const theirs = csvRows((await get('/v2/exports/audit', other.token)).text);
    assert.ok(theirs.every((r) => !rows.some((mine) => mine.audit_id === r.audit_id)));

    // JSON lines: the same records, before and after as objects, the formula as it is.
    const jsonl = await get('/v2/exports/audit?format=jsonl&actor=@ops', both.token);
    assert.equal(jsonl.headers.get('content-type'), 'application/x-ndjson');
    const lines = jsonl.text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.map((l) => [l.action, l.reason, l.before, l.after, typeof l.seq]),
      [
        ['block.apply', formula, null, { capability: 'purchase', note: '+1, "quoted"' }, 'number'],
        ['block.lift', 'lifted', { capability: 'purchase' }, null, 'number'],
      ],
    );
  });

  it('a failure once rows went out cuts the connection: the client never gets a file that looks complete', async () => {
    armFailpoints(['export.after-first-batch']);
    const res = await fetch(`${h().baseUrl}/v2/exports/invoices?account_id=${buyer.account_id}`, {
      headers: { authorization: `Bearer ${client.token}` },
    });
    assert.equal(res.status, 200, `the headers went out before the failure (${res.status === 200 ? '' : await res.text()})`);
    await assert.rejects(res.text(), 'the body ends in a cut connection, not a clean end');
    armFailpoints([]);
    // The app is fine afterwards, and the cursor's connection went back to the pool.
    for (let i = 0; i < 12; i += 1) assert.equal((await get(`/v2/exports/payouts?account_id=${seller.account_id}`)).status, 200);
  });

  it('settlement: each line equals the postings summed independently, and the activity made', async () => {
    const res = await get(`/v2/reports/settlement?date=${today}`);
    assert.equal(res.status, 200, res.text);
    const report = res.body.payload;
    assert.equal(report.integrator_id, integratorId);
    const line = (currency: string, l: string) => report.lines.find((x: any) => x.currency === currency && x.line === l);

    // Independently: every entry of the integrator's postings of the day, classified by the test's own query.
    const usd = await settlementFromPostings(integratorId, today, 'USD');
    for (const [l, amount] of Object.entries(usd)) assert.equal(line('USD', l).amount, amount, `USD ${l}`);
    // …and what the activity was: three charges, one refund, a dispute opened and lost with its fee, a payout, a conversion.
    assert.deepEqual(usd, {
      gross_charges: 6000,
      refunds: 1000,
      disputes_opened: 2000,
      disputes_won: 0,
      disputes_lost: 2000,
      dispute_fees: 1500,
      payouts_sent: 500,
      payouts_returned: 0,
      conversions: 200,
    });
    assert.equal(line('USD', 'net').amount, settlementNet(usd));
    assert.equal(settlementNet(usd), 6000 - 1000 - 2000 - 1500 - 500);
    assert.equal(line('USD', 'net').amount_display, '10.00');
    assert.equal(line('USD', 'gross_charges').postings, 3);
    assert.equal(line('USD', 'dispute_fees').amount_display, '15.00');
    assert.equal(line('GEM', 'conversions').amount, 500);
    assert.equal(line('GEM', 'gross_charges').amount, 0);

    // Another integrator's report has none of it; a day without postings has no lines.
    const theirs = await get(`/v2/reports/settlement?date=${today}`, other.token);
    assert.ok(theirs.body.payload.lines.every((l: any) => l.amount === 0 || l.line === 'net'));
    assert.deepEqual((await get('/v2/reports/settlement?date=2001-01-01')).body.payload.lines, []);
  });

  it('holdfast export streams the same CSV to stdout; holdfast report settlement prints the same lines', async function () {
    this.timeout(300_000);
    const api = (await get(`/v2/exports/invoices?account_id=${buyer.account_id}`)).text;
    const cli = await holdfastCli(['export', 'invoices', '--integrator', name, '--account-id', buyer.account_id]);
    assert.equal(cli.status, 0, cli.stderr);
    assert.deepEqual(csvRows(cli.stdout), csvRows(api));
    const jsonl = await holdfastCli(['export', 'payouts', '--integrator', name, '--format', 'jsonl']);
    assert.equal(JSON.parse(jsonl.stdout.trim()).payout_id, payoutId);
    const refused = await holdfastCli(['export', 'invoices', '--integrator', name, '--status', 'LOST']);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /status: NOT_A_FILTER_OF_KIND/);
    assert.equal((await holdfastCli(['export', 'nope', '--integrator', name])).status, 2);
    assert.match((await holdfastCli(['export', '--help'])).stdout, /holdfast export KIND --integrator NAME/);
    const auditApi = (await get('/v2/exports/audit?action=refund.request')).text;
    const auditCli = await holdfastCli(['export', 'audit', '--integrator', name, '--action', 'refund.request']);
    assert.equal(auditCli.status, 0, auditCli.stderr);
    assert.deepEqual(csvRows(auditCli.stdout), csvRows(auditApi));
    assert.equal(csvRows(auditCli.stdout).length, 1);
    const targetCli = await holdfastCli(['export', 'audit', '--integrator', name, '--target-id', invoices[0], '--format', 'jsonl']);
    assert.equal(JSON.parse(targetCli.stdout.trim()).target_id, invoices[0]);

    const report = await holdfastCli(['report', 'settlement', '--date', today, '--integrator', name, '--csv']);
    assert.equal(report.status, 0, report.stderr);
    const rows = csvRows(report.stdout);
    const apiLines = (await get(`/v2/reports/settlement?date=${today}`)).body.payload.lines;
    assert.deepEqual(
      rows.map((r) => [r.integrator, r.date, r.currency, r.line, Number(r.amount), r.amount_display]),
      apiLines.map((l: any) => [name, today, l.currency, l.line, l.amount, l.amount_display]),
    );
    const text = await holdfastCli(['report', 'settlement', '--date', today, '--integrator', name]);
    assert.match(text.stdout, /USD\s+net\s+10\.00/);
    assert.equal((await holdfastCli(['report', 'settlement', '--date', 'today'])).status, 2);
  });
});
