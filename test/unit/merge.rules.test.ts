import assert from 'node:assert/strict';
import { mergeRefusal, mergeTransfers, type MergeFacts, type MergeWallet } from '../../src/merge/merge.rules.js';

const clean: MergeFacts = {
  sourceLoginBlock: null,
  destinationLoginBlocked: false,
  escrowedAsBuyer: 0,
  escrowedAsSeller: 0,
  openAsBuyer: 0,
  openAsSeller: 0,
  openPayouts: 0,
  fiatBalance: 0,
  heldByDisputes: 0,
};

describe('merge rules', () => {
  it('allows a merge with nothing in the way', () => {
    assert.equal(mergeRefusal(clean), null);
  });

  const refusals: Array<[string, Partial<MergeFacts>, RegExp]> = [
    ['an already merged source', { sourceLoginBlock: { reason: 'merge_account' } }, /already merged/],
    ['a closed source', { sourceLoginBlock: { reason: 'account_close' } }, /closed/],
    ['a blocked destination', { destinationLoginBlocked: true }, /destination account is blocked/],
    ['a source with money in escrow', { escrowedAsBuyer: 1 }, /money in escrow/],
    ['a source due money from escrow', { escrowedAsSeller: 2 }, /due money from escrow/],
    ['the buyer of an unfinished purchase (an OPEN escrow or invoice)', { openAsBuyer: 1 }, /buyer of 1 unfinished purchase/],
    ['a source an unfinished purchase would pay (an OPEN escrow or invoice)', { openAsSeller: 3 }, /due money from 3 unfinished purchase/],
    ['a source with an open payout (its reversal would pay it)', { openPayouts: 1 }, /1 open payout/],
    ['a source with a fiat balance', { fiatBalance: 1 }, /fiat balances are not merged/],
    ['a source whose wallets open disputes hold', { heldByDisputes: 1 }, /Open disputes hold money/],
  ];
  for (const [what, facts, message] of refusals) {
    it(`refuses ${what}`, () => {
      assert.match(mergeRefusal({ ...clean, ...facts }) ?? '', message);
    });
  }

  const wallet = (accountId: string, currency: string, walletKind: MergeWallet['walletKind'], balance: number): MergeWallet => ({
    accountId,
    currency,
    walletKind,
    ledgerAccountId: `wal_${accountId}_${currency}_${walletKind}`,
    balance,
    held: 0,
  });

  it('moves every non-empty token wallet whole into the matching wallet, and never fiat', () => {
    const source = [wallet('s', 'USD', null, 0), wallet('s', 'GEM', 'standard', 40), wallet('s', 'GEM', 'convertible', 0)];
    const destination = [wallet('d', 'USD', null, 5), wallet('d', 'GEM', 'standard', 1), wallet('d', 'GEM', 'convertible', 2)];
    assert.deepEqual(mergeTransfers(source, destination), {
      ok: true,
      transfers: [
        { currency: 'GEM', wallet_kind: 'standard', amount: 40, from_wallet_id: 'wal_s_GEM_standard', to_wallet_id: 'wal_d_GEM_standard' },
      ],
    });
  });

  it('refuses when the destination lacks a matching wallet', () => {
    const result = mergeTransfers([wallet('s', 'GEM', 'convertible', 3)], [wallet('d', 'GEM', 'standard', 0)]);
    assert.deepEqual(result, { ok: false, message: 'The destination account has no convertible GEM wallet.' });
  });
});
