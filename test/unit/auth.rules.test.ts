import assert from 'node:assert/strict';
import { ALL_SCOPES, grantScopes, missingScopes, parseScopeList, parseScopeOption } from '../../src/auth/auth.rules.js';

describe('auth rules', () => {
  it('splits scope parameters on spaces and commas', () => {
    assert.deepEqual(parseScopeList('a b,c  ,a'), ['a', 'b', 'c']);
    assert.deepEqual(parseScopeList(undefined), []);
  });

  it('grants every client scope when none are asked for, else exactly those asked', () => {
    assert.deepEqual(grantScopes(['a', 'b'], []), { ok: true, scopes: ['a', 'b'] });
    assert.deepEqual(grantScopes(['a', 'b'], ['b']), { ok: true, scopes: ['b'] });
    assert.deepEqual(grantScopes(['a'], ['a', 'c']), { ok: false, notGranted: ['c'] });
  });

  it('reports the scopes an operation needs that a token lacks', () => {
    assert.deepEqual(missingScopes(['a'], ['a', 'b']), ['b']);
    assert.deepEqual(missingScopes(['a', 'b'], []), []);
  });

  it('reads --scopes: all, a list, or names the unknown ones', () => {
    assert.deepEqual(parseScopeOption('all'), { ok: true, scopes: [...ALL_SCOPES] });
    assert.deepEqual(parseScopeOption('read_accounts,sign_tos'), { ok: true, scopes: ['read_accounts', 'sign_tos'] });
    assert.deepEqual(parseScopeOption('read_accounts,nope'), { ok: false, unknown: ['nope'] });
  });

  it('defines the reference contract scopes plus the ones Holdfast adds', () => {
    assert.equal(ALL_SCOPES.length, 24);
    for (const s of [
      'write_payment_methods',
      'write_tokens',
      'write_webhooks',
      'read_webhooks',
      'write_sandbox',
      'read_disputes',
      'write_disputes',
      'read_reports',
      'read_audit',
    ])
      assert.ok(ALL_SCOPES.includes(s as never));
  });
});
