import assert from 'node:assert/strict';
import { checkChain, checkHead, cliActor, normalReason, personalDataPaths, sealHash, type AuditView } from '../../src/audit/audit.rules.js';

const view = (seq: number, extra: Partial<AuditView> = {}): AuditView => ({
  audit_id: `aud_${seq}`,
  at: '2026-11-28T12:00:00.000Z',
  integrator_id: 'int_1',
  actor: { kind: 'cli', id: 'alice', name: 'alice' },
  action: 'payout.approve',
  target: { type: 'payout', id: `po_${seq}` },
  reason: 'checked',
  before: { status: 'FUNDS-IN-ESCROW' },
  after: { status: 'PROCESSING' },
  request_id: null,
  seq,
  sealed_at: null,
  ...extra,
});

/** A well-sealed chain of `n` records. */
function chain(n: number) {
  const out: Array<{ view: AuditView; prevHash: string | null; hash: string }> = [];
  let prev: string | null = null;
  for (let seq = 1; seq <= n; seq++) {
    const v = view(seq);
    const hash = sealHash(v, prev);
    out.push({ view: v, prevHash: prev, hash });
    prev = hash;
  }
  return out;
}

describe('audit rules', () => {
  it('the hash covers every field, the sequence number and the previous hash, and not key order', () => {
    const base = sealHash(view(1), null);
    assert.match(base, /^[0-9a-f]{64}$/);
    assert.equal(sealHash({ ...view(1), after: { status: 'PROCESSING' }, before: { status: 'FUNDS-IN-ESCROW' } }, null), base);
    assert.notEqual(sealHash(view(1, { reason: 'checked!' }), null), base);
    assert.notEqual(sealHash(view(2), null), sealHash({ ...view(2), seq: 3 }, null));
    assert.notEqual(sealHash(view(1), 'a'.repeat(64)), base);
    assert.equal(sealHash(view(1, { sealed_at: '2026-11-28T12:00:01.000Z' }), null), base, 'sealed_at is set after the hash');
  });

  it('a whole chain passes; an edit, a gap and a wrong prev_hash are named at the first break', () => {
    const whole = chain(4);
    assert.deepEqual(checkChain('int_1', whole, { seq: 0, hash: null }), { seq: 4, hash: whole[3].hash });
    const edited = whole.map((r, i) => (i === 1 ? { ...r, view: { ...r.view, reason: 'other' } } : r));
    const e = checkChain('int_1', edited, { seq: 0, hash: null });
    assert.ok('break' in e);
    assert.deepEqual([e.break.seq, e.break.auditId], [2, 'aud_2']);
    assert.match(e.break.problem, /edited/);
    const gap = checkChain('int_1', [whole[0], whole[2], whole[3]], { seq: 0, hash: null });
    assert.ok('break' in gap);
    assert.deepEqual([gap.break.seq, gap.break.auditId], [2, 'aud_3']);
    assert.match(gap.break.problem, /sealed record 2 missing before aud_3 \(seq 3\): removed/);
    const resealed = [whole[0], { ...whole[1], prevHash: 'f'.repeat(64) }];
    const r = checkChain('int_1', resealed, { seq: 0, hash: null });
    assert.ok('break' in r);
    assert.match(r.break.problem, /prev_hash/);
    // Continuing from a batch before.
    assert.deepEqual(checkChain('int_1', whole.slice(2), { seq: 2, hash: whole[1].hash }), { seq: 4, hash: whole[3].hash });
  });

  it('the chain head names the last sealed record: a removed tail is named', () => {
    const whole = chain(3);
    assert.equal(checkHead('int_1', { seq: 3, hash: whole[2].hash }, { seq: 3, hash: whole[2].hash }), undefined);
    assert.equal(checkHead('int_1', { seq: 0, hash: null }, undefined), undefined);
    assert.match(
      checkHead('int_1', { seq: 2, hash: whole[1].hash }, { seq: 3, hash: whole[2].hash })!.problem,
      /record 3 missing at the end/,
    );
    assert.match(checkHead('int_1', { seq: 3, hash: whole[2].hash }, { seq: 3, hash: whole[1].hash })!.problem, /does not name/);
  });

  it('personal data is named wherever it hides in before or after', () => {
    assert.deepEqual(personalDataPaths({ before: { state: 'DENY' }, after: { state: 'ACCEPT', fields: ['customer_email_address'] } }), []);
    assert.deepEqual(personalDataPaths({ before: null, after: { person: { first_name: 'Ada' }, list: [{ Email: 'a@b' }] } }), [
      'after.person.first_name',
      'after.list[0].Email',
    ]);
  });

  it('the CLI actor is --actor or the OS user; reasons are trimmed and bounded', () => {
    assert.deepEqual(cliActor(undefined, 'root'), { kind: 'cli', id: 'root', name: 'root' });
    assert.deepEqual(cliActor(' alice ', 'root'), { kind: 'cli', id: 'alice', name: 'alice' });
    assert.equal(normalReason('  why  '), 'why');
    assert.equal(normalReason('   '), null);
    assert.equal(normalReason('x'.repeat(1001)), undefined);
  });
});
