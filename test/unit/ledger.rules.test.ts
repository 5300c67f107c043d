import assert from 'node:assert/strict';
import { mergeEntries, postingProblems, walletIdOf } from '../../src/ledger/ledger.rules.js';

describe('ledger rules', () => {
  it('accepts a posting that balances per currency', () => {
    assert.deepEqual(
      postingProblems([
        { account: 'a', currency: 'USD', amount: -500 },
        { account: 'b', currency: 'USD', amount: 500 },
        { account: 'c', currency: 'VCD', amount: 7 },
        { account: 'd', currency: 'VCD', amount: -7 },
      ]),
      [],
    );
  });

  const bad: Array<[string, Parameters<typeof postingProblems>[0], RegExp]> = [
    ['one entry', [{ account: 'a', currency: 'USD', amount: 0 }], /at least two entries/],
    [
      'unbalanced',
      [
        { account: 'a', currency: 'USD', amount: -5 },
        { account: 'b', currency: 'USD', amount: 4 },
      ],
      /USD sum to -1/,
    ],
    [
      'balanced only across currencies',
      [
        { account: 'a', currency: 'USD', amount: -5 },
        { account: 'b', currency: 'VCD', amount: 5 },
      ],
      /USD sum to -5/,
    ],
    [
      'a fraction',
      [
        { account: 'a', currency: 'USD', amount: -1.5 },
        { account: 'b', currency: 'USD', amount: 1.5 },
      ],
      /whole number/,
    ],
    [
      'a zero entry',
      [
        { account: 'a', currency: 'USD', amount: 0 },
        { account: 'b', currency: 'USD', amount: 0 },
      ],
      /non-zero/,
    ],
    [
      'an unsafe integer',
      [
        { account: 'a', currency: 'USD', amount: -(2 ** 53) },
        { account: 'b', currency: 'USD', amount: 2 ** 53 },
      ],
      /whole number/,
    ],
    [
      'a bad currency',
      [
        { account: 'a', currency: 'usd', amount: -1 },
        { account: 'b', currency: 'usd', amount: 1 },
      ],
      /3 capital letters/,
    ],
  ];
  for (const [what, entries, problem] of bad) {
    it(`refuses ${what}`, () => {
      assert.match(postingProblems(entries).join('; '), problem);
    });
  }

  it('merges entries per account, drops zero sums and orders them by account id', () => {
    assert.deepEqual(
      mergeEntries([
        { account: 'z', currency: 'USD', amount: 3 },
        { account: 'a', currency: 'USD', amount: -5 },
        { account: 'z', currency: 'USD', amount: 2 },
        { account: 'm', currency: 'USD', amount: 4 },
        { account: 'm', currency: 'USD', amount: -4 },
      ]),
      [
        { account: 'a', currency: 'USD', amount: -5 },
        { account: 'z', currency: 'USD', amount: 5 },
      ],
    );
  });

  it('derives a wallet id from its payment method id', () => {
    assert.equal(walletIdOf('pm_01ABC'), 'wal_01ABC');
  });
});
