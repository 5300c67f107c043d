import assert from 'node:assert/strict';
import { templateOrder } from '../../src/http/openapi.js';
import {
  spreadsheetSafe,
  amountDisplay,
  checkExport,
  EXPORT_COLUMNS,
  exportRecord,
  jsonLine,
  postingSumSpecs,
  settlementRows,
  utcDay,
} from '../../src/reports/report.rules.js';

describe('report rules', () => {
  it('a CSV text cell never starts a spreadsheet formula; numbers and plain text stay as they are', () => {
    const cases: Array<[string, string]> = [
      ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
      ['+1+2', "'+1+2"],
      ['-2+3', "'-2+3"],
      ['@SUM(A1)', "'@SUM(A1)"],
      ['\tcmd', "'\tcmd"],
      ['\rcmd', "'\rcmd"],
      ['-12.34', '-12.34'],
      ['+5', '+5'],
      ['a sword', 'a sword'],
      ['', ''],
    ];
    for (const [given, safe] of cases) assert.equal(spreadsheetSafe(given), safe, JSON.stringify(given));
  });

  it('shows amounts as digits in the currency units, signs and leading zeros kept, tokens whole', () => {
    assert.equal(amountDisplay(1234, 'USD'), '12.34');
    assert.equal(amountDisplay(5, 'USD'), '0.05');
    assert.equal(amountDisplay(-5, 'USD'), '-0.05');
    assert.equal(amountDisplay(-123456, 'USD'), '-1234.56');
    assert.equal(amountDisplay(0, 'USD'), '0.00');
    assert.equal(amountDisplay(100, 'GEM'), '100');
    assert.equal(amountDisplay(9_007_199_254_740_991, 'USD'), '90071992547409.91');
  });

  it("checks an export: the kind's own filters, a range that runs forward, a statement's account, the kind's statuses", () => {
    assert.deepEqual(checkExport('invoices', { status: 'LOST', type: 'x' } as never), {
      ok: false,
      fields: Object.assign(Object.create(null), { status: ['NOT_A_FILTER_OF_KIND'], type: ['NOT_A_FILTER_OF_KIND'] }),
    });
    const backwards = checkExport('payouts', { from: '2026-11-02T00:00:00Z', to: '2026-11-02T00:00:00Z' });
    assert.deepEqual(backwards.ok ? {} : { ...backwards.fields }, { to: ['BEFORE_FROM'] });
    const statement = checkExport('statement', {});
    assert.deepEqual(statement.ok ? {} : { ...statement.fields }, { account_id: ['REQUIRED'] });
    const payoutStatus = checkExport('payouts', { status: 'LOST' });
    assert.deepEqual(payoutStatus.ok ? {} : { ...payoutStatus.fields }, { status: ['INVALID_VALUE'] });
    const ok = checkExport('invoices', { states: 'SUCCESS,FAILED', from: '2026-11-01T01:00:00+01:00', format: 'jsonl' });
    assert.ok(ok.ok);
    assert.deepEqual(ok.request.states, ['SUCCESS', 'FAILED']);
    assert.equal(ok.request.from, '2026-11-01T00:00:00.000Z', 'times are read as instants, in UTC');
    assert.equal(ok.request.format, 'jsonl');
    assert.equal(checkExport('disputes', { status: 'LOST' }).ok, true);
    for (const at of ['2026-11-28T23:59:60Z', '0000-01-01T00:00:00Z']) {
      const odd = checkExport('invoices', { from: at });
      assert.deepEqual(odd.ok ? {} : { ...odd.fields }, { from: ['INVALID_VALUE'] }, at);
    }
  });

  it("shapes rows: every column of the kind, amounts as numbers with their display, nulls kept; an event's payload an object in JSON lines", () => {
    const r = exportRecord('payouts', { payout_id: 'po_1', amount: '500', currency: 'USD', created_at: new Date(0), failure_code: null });
    assert.deepEqual(Object.keys(r), [...EXPORT_COLUMNS.payouts]);
    assert.equal(r.amount, 500);
    assert.equal(r.amount_display, '5.00');
    assert.equal(r.created_at, '1970-01-01T00:00:00.000Z');
    assert.equal(r.failure_code, null);
    const e = exportRecord('events', { event_id: 'evt_1', message: { a: 1 }, created_at: new Date(0) });
    assert.equal(e.payload, '{"a":1}');
    assert.deepEqual(JSON.parse(jsonLine('events', e)).payload, { a: 1 });
  });

  it('shapes an audit record: its actor and target flattened, seq a number or null, before and after JSON text (objects in JSON lines)', () => {
    const sealed = exportRecord('audit', {
      audit_id: 'aud_1',
      at: '2026-11-28T10:00:00.000Z',
      actor_kind: 'cli',
      actor_id: 'alice',
      actor_name: 'alice',
      action: 'payout.approve',
      target_type: 'payout',
      target_id: 'po_1',
      reason: 'checked',
      request_id: null,
      seq: '7',
      before: { status: 'FUNDS-IN-ESCROW' },
      after: null,
    });
    assert.deepEqual(Object.keys(sealed), [...EXPORT_COLUMNS.audit]);
    assert.equal(sealed.seq, 7);
    assert.equal(sealed.before, '{"status":"FUNDS-IN-ESCROW"}');
    assert.equal(sealed.after, null);
    assert.equal(exportRecord('audit', { audit_id: 'aud_2', seq: null }).seq, null, 'unsealed');
    const line = JSON.parse(jsonLine('audit', sealed));
    assert.deepEqual([line.before, line.after, line.seq], [{ status: 'FUNDS-IN-ESCROW' }, null, 7]);
    const refused = checkExport('audit', { account_id: 'acc_1', action: 'kyc.decide' });
    assert.deepEqual(refused.ok ? {} : { ...refused.fields }, { account_id: ['NOT_A_FILTER_OF_KIND'] });
    const audit = checkExport('audit', { action: 'kyc.decide', target_id: 'acc_1', actor: 'alice' });
    assert.ok(audit.ok);
    assert.deepEqual([audit.request.action, audit.request.targetId, audit.request.actor], ['kyc.decide', 'acc_1', 'alice']);
    assert.deepEqual(checkExport('invoices', { actor: 'alice' }).ok, false);
  });

  it('settlement: every line per currency, zero where nothing moved, and the net of money in less money out', () => {
    const rows = settlementRows([
      { currency: 'USD', line: 'gross_charges', amount: 6000, postings: 3 },
      { currency: 'USD', line: 'refunds', amount: 1000, postings: 1 },
      { currency: 'USD', line: 'disputes_opened', amount: 2000, postings: 1 },
      { currency: 'USD', line: 'dispute_fees', amount: 1500, postings: 1 },
      { currency: 'USD', line: 'disputes_lost', amount: 2000, postings: 1 },
      { currency: 'USD', line: 'disputes_won', amount: 300, postings: 1 },
      { currency: 'USD', line: 'payouts_sent', amount: 500, postings: 1 },
      { currency: 'USD', line: 'payouts_returned', amount: 700, postings: 1 },
      { currency: 'USD', line: 'conversions', amount: 200, postings: 1 },
      { currency: 'GEM', line: 'conversions', amount: 500, postings: 1 },
    ]);
    assert.equal(rows.length, 20);
    assert.deepEqual(
      rows.filter((r) => r.line === 'net').map((r) => [r.currency, r.amount, r.amount_display, r.postings]),
      [
        ['GEM', 0, '0', null],
        ['USD', 6000 - 1000 - 2000 - 1500 + 300 - 500, '13.00', null],
      ],
    );
    assert.deepEqual(
      rows.find((r) => r.currency === 'GEM' && r.line === 'refunds'),
      { currency: 'GEM', line: 'refunds', amount: 0, amount_display: '0', postings: 0 },
    );
    assert.deepEqual(settlementRows([]), []);
  });

  it('settlement lines sum the postings they name, each reference as a pattern of its exact length', () => {
    const specs = postingSumSpecs();
    assert.ok(specs.some((s) => s.line === 'gross_charges' && s.referencePattern === 'invoice:%:pay' && s.parts === 3 && s.sign === -1));
    assert.ok(specs.some((s) => s.line === 'refunds' && s.referencePattern === 'refund:%:%:reversed' && s.parts === 4));
    assert.ok(specs.some((s) => s.line === 'conversions' && s.magnitude));
  });

  it('reads a UTC day, refusing what is not one', () => {
    assert.deepEqual(utcDay('2026-11-28'), { from: '2026-11-28T00:00:00.000Z', to: '2026-11-29T00:00:00.000Z' });
    assert.deepEqual(utcDay('2024-02-29'), { from: '2024-02-29T00:00:00.000Z', to: '2024-03-01T00:00:00.000Z' });
    for (const bad of ['2026-02-30', '2026-11-28T00:00:00Z', 'today', '20261128', '0000-01-01']) assert.equal(utcDay(bad), undefined, bad);
  });

  it('tries literal path segments before parameters, left to right', () => {
    const sorted = ['/v2/{account_id}/payouts', '/v2/exports/{kind}', '/v1/user-info/{account_id}', '/v1/user-info/search'].sort(
      templateOrder,
    );
    assert.deepEqual(sorted, ['/v1/user-info/search', '/v2/exports/{kind}', '/v1/user-info/{account_id}', '/v2/{account_id}/payouts']);
  });
});
