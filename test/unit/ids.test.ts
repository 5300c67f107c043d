import assert from 'node:assert/strict';
import { newId, ulid } from '../../src/ids.js';

describe('ids', () => {
  it('are a prefix and a 26-character Crockford ULID, at most 36 characters', () => {
    const id = newId('acct');
    assert.match(id, /^acct_[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.ok(id.length <= 36);
  });

  it('sort by creation time', () => {
    assert.ok(ulid(1_700_000_000_000) < ulid(1_700_000_000_001));
    assert.ok(ulid(1_700_000_000_000) < ulid(2_000_000_000_000));
    assert.equal(ulid(0).slice(0, 10), '0000000000');
  });

  it('do not repeat (100 000 drawn across several random-pool refills)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100_000; i++) seen.add(newId('req'));
    assert.equal(seen.size, 100_000);
  });
});
