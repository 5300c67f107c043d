import assert from 'node:assert/strict';
import { sessionTokenScopes } from '../../src/sessions/user-session.rules.js';

describe('user session rules', () => {
  it("a session's token holds the scopes that opened it, as far as the client still holds them", () => {
    const client = ['write_user_tokens', 'read_invoices', 'read_payment_methods'];
    assert.deepEqual(sessionTokenScopes(['write_user_tokens'], client), ['write_user_tokens']);
    assert.deepEqual(sessionTokenScopes(['read_invoices', 'sign_tos'], client), ['read_invoices'], 'the client lost sign_tos');
    assert.deepEqual(sessionTokenScopes([], client), []);
    assert.deepEqual(sessionTokenScopes(['read_invoices', 'read_invoices'], client), ['read_invoices']);
  });

  it("a session recorded without scopes (older than the record) holds the client's", () => {
    assert.deepEqual(sessionTokenScopes(null, ['read_invoices', 'sign_tos']), ['read_invoices', 'sign_tos']);
    assert.deepEqual(sessionTokenScopes(null, []), []);
  });
});
