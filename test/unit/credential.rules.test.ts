import assert from 'node:assert/strict';
import {
  MAX_TOKEN_TTL_SECONDS,
  TOKEN_MEMORY_SECONDS,
  issuedBeforeLoginBlock,
  parseGraceHours,
  previousSecretValid,
} from '../../src/auth/credential.rules.js';

describe('credential rules', () => {
  it('refuses a user token issued at or before the latest login block, to the millisecond', () => {
    const block = new Date('2026-11-26T12:00:00.500Z');
    assert.equal(issuedBeforeLoginBlock(Date.parse('2026-11-26T12:00:00.499Z'), block), true);
    assert.equal(issuedBeforeLoginBlock(block.getTime(), block), true);
    // The same second, after the block was lifted: a new login.
    assert.equal(issuedBeforeLoginBlock(Date.parse('2026-11-26T12:00:00.501Z'), block), false);
    assert.equal(issuedBeforeLoginBlock(0, null), false, 'an account never blocked');
  });

  it('remembers keys and revoked sessions longer than any token lives', () => {
    assert.ok(TOKEN_MEMORY_SECONDS > MAX_TOKEN_TTL_SECONDS);
  });

  it('takes a grace of 0 to 168 whole hours, 24 by default', () => {
    assert.deepEqual(parseGraceHours(undefined), { ok: true, hours: 24 });
    assert.deepEqual(parseGraceHours('0'), { ok: true, hours: 0 });
    assert.deepEqual(parseGraceHours('168'), { ok: true, hours: 168 });
    for (const bad of ['169', '-1', '1.5', '', 'x', '1000']) assert.deepEqual(parseGraceHours(bad), { ok: false }, bad);
  });

  it('accepts a rotated-out secret only before its grace ends', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    assert.equal(previousSecretValid(new Date('2026-11-26T12:00:01Z'), now), true);
    assert.equal(previousSecretValid(now, now), false);
    assert.equal(previousSecretValid(null, now), false);
  });
});
