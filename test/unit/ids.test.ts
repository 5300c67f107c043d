import assert from 'node:assert/strict';
import { newId, ulid } from '../../src/ids.js';

describe('ids', () => {
  it('are a prefix and a 26-character Crockford ULID, at most 36 characters', () => {
    const id = newId('acct');
    assert.match(id, /^acct_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(id.length <= 36);
  });

  it('sort by creation time, also within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId('evt'));
    assert.deepEqual([...ids].sort(), ids);
    const later = ulid(Date.now() + 60_000);
    assert.ok(ids[999] < `evt_${later}`);
  });

  it('do not repeat (100 000 drawn across several random-pool refills)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(newId('req'));
    assert.equal(seen.size, 100_000);
  });
});
