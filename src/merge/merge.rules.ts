/** Merge rules (pure): when a merge is refused, and which token balances move where. */

/** What decides whether an account may be merged into another. */
export interface MergeFacts {
  /** Active `login` block of the source, if any (closed or already merged). */
  sourceLoginBlock: { reason: string } | null;
  destinationLoginBlocked: boolean;
  /** ESCROWED escrows the source bought. */
  escrowedAsBuyer: number;
  /** ESCROWED escrows that would pay the source on commit. */
  escrowedAsSeller: number;
  /** Unfinished purchases the source buys: OPEN escrows, OPEN (or PROCESSING) invoices, authorized ones included. */
  openAsBuyer: number;
  /** Unfinished purchases that would pay the source: OPEN escrows and invoices naming one of its wallets, token purchases issuing to it. */
  openAsSeller: number;
  /** The source's open payouts (FUNDS-IN-ESCROW, PROCESSING or FAILED): a reversal or a rail's return would give their money back to it. */
  openPayouts: number;
  /** The source's USD wallet balance (minor units). */
  fiatBalance: number;
  /** What open disputes hold in the source's wallets (minor units, all currencies). */
  heldByDisputes: number;
}

/**
 * A 409's message, or null when the merge may go ahead (fiat is not merged: see `mergeAccounts`).
 * A purchase that is not finished and names the source — as buyer or as payee — refuses the
 * merge: once the source is closed, nothing may pay it, so money never lands in a merged account.
 */
export function mergeRefusal(f: MergeFacts): string | null {
  if (f.sourceLoginBlock?.reason === 'merge_account') return 'The source account was already merged.';
  if (f.sourceLoginBlock) return `The source account is closed (login blocked, reason ${f.sourceLoginBlock.reason}).`;
  if (f.destinationLoginBlocked) return 'The destination account is blocked.';
  if (f.heldByDisputes > 0)
    return 'Open disputes hold money in the source account (traced value of a disputed card charge); it cannot be merged until they are decided.';
  if (f.escrowedAsBuyer > 0)
    return `The source account has money in escrow (${f.escrowedAsBuyer} ESCROWED escrow(s) it bought); commit or cancel them first.`;
  if (f.escrowedAsSeller > 0)
    return `The source account is due money from escrow (${f.escrowedAsSeller} ESCROWED escrow(s) pay it); commit or cancel them first.`;
  if (f.openAsBuyer > 0)
    return `The source account is the buyer of ${f.openAsBuyer} unfinished purchase(s) (OPEN escrows or invoices); finish them first (pay, then commit or cancel an escrow).`;
  if (f.openAsSeller > 0)
    return `The source account is due money from ${f.openAsSeller} unfinished purchase(s) (OPEN escrows or invoices that pay it); finish them first (pay, then commit or cancel an escrow).`;
  if (f.openPayouts > 0)
    return `The source account has ${f.openPayouts} open payout(s) (FUNDS-IN-ESCROW, PROCESSING or FAILED), whose reversal or return would give money back to it; let them finish or take them back first.`;
  if (f.fiatBalance > 0)
    return `The source account holds ${f.fiatBalance} USD minor units; fiat balances are not merged, so move them first.`;
  return null;
}

/** A wallet of an account, with its ledger account and balance. */
export interface MergeWallet {
  accountId: string;
  currency: string;
  /** `standard` or `convertible` for token wallets; null for the fiat wallet. */
  walletKind: 'standard' | 'convertible' | null;
  ledgerAccountId: string;
  balance: number;
  /** What open disputes hold of it. */
  held: number;
}

/** One balance that moves: the whole of a source token wallet into the destination's matching wallet. */
export interface MergeTransfer {
  currency: string;
  wallet_kind: 'standard' | 'convertible';
  amount: number;
  from_wallet_id: string;
  to_wallet_id: string;
}

/**
 * Every non-empty token wallet of the source moves whole into the destination's wallet of the
 * same currency and kind. A destination without that wallet cannot take it (an error, not a
 * silent loss).
 */
export function mergeTransfers(
  source: MergeWallet[],
  destination: MergeWallet[],
): { ok: true; transfers: MergeTransfer[] } | { ok: false; message: string } {
  const transfers: MergeTransfer[] = [];
  for (const w of source) {
    if (!w.walletKind || w.balance <= 0) continue;
    const to = destination.find((d) => d.currency === w.currency && d.walletKind === w.walletKind);
    if (!to) return { ok: false, message: `The destination account has no ${w.walletKind} ${w.currency} wallet.` };
    transfers.push({
      currency: w.currency,
      wallet_kind: w.walletKind,
      amount: w.balance,
      from_wallet_id: w.ledgerAccountId,
      to_wallet_id: to.ledgerAccountId,
    });
  }
  return { ok: true, transfers };
}

/** The tag namespace of merges (the tags it puts on both accounts). */
export const MERGE_NAMESPACE = 'account-merge';
