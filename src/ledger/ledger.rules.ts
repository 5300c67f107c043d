/** Ledger rules (pure): what makes a posting acceptable. */

export interface EntryInput {
  /** Ledger account id. */
  account: string;
  currency: string;
  /** Signed minor units: positive credits the account, negative debits it. */
  amount: number;
}

/** Problems with a posting's entries; empty when it may be posted. */
export function postingProblems(entries: EntryInput[]): string[] {
  const problems: string[] = [];
  if (entries.length < 2) problems.push('a posting needs at least two entries');
  const sums = new Map<string, number>();
  for (const e of entries) {
    if (!Number.isSafeInteger(e.amount) || e.amount === 0)
      problems.push(`entry on ${e.account}: amount must be a non-zero whole number of minor units`);
    if (!/^[A-Z]{3}$/.test(e.currency)) problems.push(`entry on ${e.account}: currency must be 3 capital letters`);
    sums.set(e.currency, (sums.get(e.currency) ?? 0) + e.amount);
  }
  for (const [currency, sum] of sums) if (sum !== 0) problems.push(`entries in ${currency} sum to ${sum}, not 0`);
  return problems;
}

/**
 * Entries merged per (account, currency), zero sums dropped, ordered by account id. (The
 * balance trigger itself updates accounts in account-id order, so statements lock the rows
 * they share in the same order whatever order their entries come in.)
 */
export function mergeEntries(entries: EntryInput[]): EntryInput[] {
  const merged = new Map<string, EntryInput>();
  for (const e of entries) {
    const key = `${e.account}\u0000${e.currency}`;
    const prior = merged.get(key);
    merged.set(key, prior ? { ...prior, amount: prior.amount + e.amount } : { ...e });
  }
  return [...merged.values()].filter((e) => e.amount !== 0).sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
}

/** The wallet ledger account of a wallet payment method: `pm_X` → `wal_X`. */
export function walletIdOf(paymentMethodId: string): string {
  return `wal_${paymentMethodId.slice(paymentMethodId.indexOf('_') + 1)}`;
}
