import assert from 'node:assert/strict';
import {
  MAX_TOKEN_TTL_SECONDS,
  TOKEN_CLOCK_SKEW_SECONDS,
  TOKEN_MEMORY_SECONDS,
  issuedBeforeLoginBlock,
  parseGraceHours,
  previousSecretValid,
  tokenTimesProblem,
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

  it('refuses token times Holdfast never issues: no iat, a longer life than it issues, an iat in the future', () => {
    const now = 1_800_000_000;
    assert.equal(tokenTimesProblem(now - 0.25, now - 0.25 + MAX_TOKEN_TTL_SECONDS, now), null, 'a token as issued');
    assert.equal(tokenTimesProblem(now, Math.floor(now) + MAX_TOKEN_TTL_SECONDS + TOKEN_CLOCK_SKEW_SECONDS, now), null);
    assert.equal(tokenTimesProblem(now, now + 10 * 365 * 86_400, now), 'too-long');
    assert.equal(tokenTimesProblem(now - 2 * 3600, now + 60, now), 'too-long', 'an old iat does not excuse a long life');
    assert.equal(tokenTimesProblem(now, now + MAX_TOKEN_TTL_SECONDS + TOKEN_CLOCK_SKEW_SECONDS + 1, now), 'too-long');
    assert.equal(tokenTimesProblem(now + TOKEN_CLOCK_SKEW_SECONDS, now + 600, now), null, 'within the clock skew');
    assert.equal(tokenTimesProblem(now + TOKEN_CLOCK_SKEW_SECONDS + 1, now + 600, now), 'future');
    assert.equal(tokenTimesProblem(undefined, now + 600, now), 'no-iat');
    assert.equal(tokenTimesProblem('1', now + 600, now), 'no-iat');
    assert.equal(tokenTimesProblem(Number.NaN, now + 600, now), 'no-iat');
  });

  it('keeps a replaced key loaded as long as any token it could have signed may be accepted', () => {
    assert.ok(TOKEN_MEMORY_SECONDS >= MAX_TOKEN_TTL_SECONDS + 2 * TOKEN_CLOCK_SKEW_SECONDS);
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
