import assert from 'node:assert/strict';
import { CONSOLE_ROLES, exportFormQuery, mayExport } from '../../src/console/console.rules.js';
import { EXPORT_KINDS } from '../../src/reports/report.rules.js';

describe('console rules: the exports page', () => {
  it('reads the form: days as UTC days, `to` included (up to the next midnight), empty fields as none', () => {
    const asked = exportFormQuery({ kind: 'invoices', format: 'csv', from: '2026-11-01', to: '2026-11-30', account_id: '' });
    assert.ok(asked.ok);
    assert.equal(asked.kind, 'invoices');
    assert.deepEqual(asked.query, {
      format: 'csv',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
      account_id: undefined,
    });
    const oneDay = exportFormQuery({ kind: 'payouts', from: '2026-11-28', to: '2026-11-28' });
    assert.ok(oneDay.ok, 'from and to the same day: that day');
    assert.deepEqual(
      [oneDay.query.from, oneDay.query.to, oneDay.query.format],
      ['2026-11-28T00:00:00.000Z', '2026-11-29T00:00:00.000Z', 'csv'],
    );
    const bare = exportFormQuery({ kind: 'audit', from: '', to: '', format: 'jsonl' });
    assert.ok(bare.ok);
    assert.deepEqual([bare.query.from, bare.query.to, bare.query.format], [undefined, undefined, 'jsonl']);
  });

  it('names every field in error, for people: a bad day, kind or format; a statement without account; a range backwards', () => {
    const bad = exportFormQuery({ kind: 'ledger', format: 'xlsx', from: 'yesterday', to: '2026-02-30' });
    assert.deepEqual(bad.ok ? {} : bad.fields, {
      kind: `one of ${EXPORT_KINDS.join(', ')}`,
      format: 'CSV or JSON lines',
      from: 'a day as YYYY-MM-DD',
      to: 'a day as YYYY-MM-DD',
    });
    const statement = exportFormQuery({ kind: 'statement' });
    assert.deepEqual(statement.ok ? {} : statement.fields, { account_id: 'required for this kind of records' });
    const backwards = exportFormQuery({ kind: 'invoices', from: '2026-11-02', to: '2026-11-01' });
    assert.deepEqual(backwards.ok ? {} : backwards.fields, { to: 'a day on or after From' });
    const audit = exportFormQuery({ kind: 'audit', account_id: 'acc_1' });
    assert.deepEqual(audit.ok ? {} : audit.fields, { account_id: 'this kind of records takes none: leave it empty' });
    const long = exportFormQuery({ kind: 'invoices', account_id: 'x'.repeat(65) });
    assert.deepEqual(long.ok ? {} : long.fields, { account_id: 'not an account id' });
  });

  it('every role, viewer up, downloads every kind, the audit trail too (it reads the audit page already)', () => {
    for (const role of CONSOLE_ROLES) for (const kind of EXPORT_KINDS) assert.equal(mayExport(role, kind), true, `${role} ${kind}`);
  });
});
