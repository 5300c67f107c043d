import assert from 'node:assert/strict';
import { hasBadCharacter, hostileFields, MAX_JSON_DEPTH } from '../../src/http/hostile-input.js';
import { MAX_NAMED_FIELDS } from '../../src/http/request-validation.js';

const fields = (body: unknown) => ({ ...hostileFields(body) });

describe('hostile input (the walk over a parsed body)', () => {
  it('finds NUL and unpaired surrogates, and passes proper pairs', () => {
    for (const bad of ['\u0000', 'a\u0000', '\ud800', 'x\udbffy', '\udc00', '\ude00\ud83d', '😀\ud83d'])
      assert.ok(hasBadCharacter(bad), JSON.stringify(bad));
    for (const good of ['', 'plain', 'Ünïcödé', '😀', '\ud83d\ude00', '👩🏽‍🚀', '\ufffd', '\u0001'])
      assert.ok(!hasBadCharacter(good), good);
  });

  it('names each offending value or key by its path, as the request validation names fields', () => {
    assert.deepEqual(fields({ a: { b: ['ok', 'x\u0000'] }, 'k\ud800': 1, n: 1, z: null }), {
      'a.b.1': ['INVALID_CHARACTER'],
      'k\ufffd': ['INVALID_CHARACTER'],
    });
    assert.deepEqual(fields('\u0000'), { body: ['INVALID_CHARACTER'] });
    assert.deepEqual(fields({ ok: { fine: ['😀', 1, true, null, 2 ** 60] } }), {});
  });

  it('walks __proto__ and constructor keys as JSON.parse makes them (own keys), as ordinary fields', () => {
    const parsed = JSON.parse('{"m":{"__proto__":{"x":"\\u0000"},"constructor":{"prototype":{"x":1}}}}');
    assert.deepEqual(Object.entries(hostileFields(parsed)), [['m.__proto__.x', ['INVALID_CHARACTER']]]);
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });

  it(`stops at ${MAX_JSON_DEPTH} levels without recursing, however deep the body`, () => {
    const deep = JSON.parse(`${'['.repeat(500_000)}${']'.repeat(500_000)}`);
    assert.deepEqual(fields(deep), { [Array(MAX_JSON_DEPTH).fill('0').join('.')]: ['TOO_DEEP'] });
    let ok: unknown = 1;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) ok = { a: ok };
    assert.deepEqual(fields(ok), {});
    assert.deepEqual(Object.values(fields({ a: ok })), [['TOO_DEEP']]);
  });

  it('names at most MAX_NAMED_FIELDS (100) fields, then stops', () => {
    const body = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, '\u0000']));
    assert.equal(Object.keys(hostileFields(body)).length, MAX_NAMED_FIELDS);
  });
});
