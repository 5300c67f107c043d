/**
 * Following a disputed purchase's value (pure). A wallet spends first in, first out, in ledger
 * order: what the wallet held before the traced credit is spent first, then the credit itself —
 * its disputed part before the rest — then what came later. A movement that came back to the
 * wallet in full (an escrow paid and then cancelled, a payout requested and then reversed or
 * returned) spent nothing: both of its entries are left out.
 */

/** One entry of a wallet after the traced credit, in the order it was applied (`amount` + raises the balance). */
export interface WalletEntry {
  amount: number;
  reference: string;
}

/** What spent part of the traced value: the posting's reference and how much of the value it took. */
export interface TracedSpend {
  reference: string;
  amount: number;
}

/** The owner of a posting reference (`escrow:<id>:pay` → `escrow:<id>`): the movement its phases belong to. */
export function ownerOf(reference: string): string {
  const [kind, id] = reference.split(':');
  return `${kind}:${id}`;
}

/**
 * Where the disputed part of a credit went: `before` is what the wallet held just before it (spent
 * first), `credit` the credit, `disputed` its disputed part; `after` the wallet's later entries.
 * Answers the debits that spent some of the disputed part, and what of it is still in the wallet.
 */
export function spendsOfCredit(
  before: number,
  credit: number,
  disputed: number,
  after: readonly WalletEntry[],
): { spends: TracedSpend[]; left: number } {
  // Movements that came back in full are left out: their entries net to zero on this wallet.
  const net = new Map<string, number>();
  for (const e of after) net.set(ownerOf(e.reference), (net.get(ownerOf(e.reference)) ?? 0) + e.amount);
  let older = Math.max(before, 0);
  let traced = Math.min(Math.max(disputed, 0), credit);
  const spends: TracedSpend[] = [];
  for (const e of after) {
    if (e.amount >= 0 || net.get(ownerOf(e.reference)) === 0) continue;
    let debit = -e.amount;
    const fromOlder = Math.min(older, debit);
    older -= fromOlder;
    debit -= fromOlder;
    const fromTraced = Math.min(traced, debit);
    if (fromTraced > 0) {
      traced -= fromTraced;
      const last = spends[spends.length - 1];
      if (last && last.reference === e.reference) last.amount += fromTraced;
      else spends.push({ reference: e.reference, amount: fromTraced });
    }
    if (traced === 0) break;
  }
  return { spends, left: traced };
}

/** The disputed part of `amount` when `disputed` of `total` is disputed: in proportion, rounded up, never more than `amount`. */
export function disputedShare(amount: number, disputed: number, total: number): number {
  if (total <= 0 || amount <= 0 || disputed <= 0) return 0;
  const share = (BigInt(amount) * BigInt(disputed) + BigInt(total) - 1n) / BigInt(total);
  return Number(share < BigInt(amount) ? share : BigInt(amount));
}
