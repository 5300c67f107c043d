/**
 * The trace of a disputed purchase's value, made when the dispute opens, in its transaction.
 *
 * The purchase put value into wallets: a token purchase its tokens into the buyer's wallet, a
 * purchase's `user_to_user` lines their shares into the sellers' wallets, an escrow paid by card
 * (once committed) its shares into its recipients' wallets. The disputed part of each (in
 * proportion to the disputed amount, rounded up) is followed through the wallet, first in, first
 * out (dispute-trace.rules.ts): from the buyer's own wallets into escrows it paid (committed: on
 * to their direct recipients; still ESCROWED: the escrow is recorded) and invoices it paid (on to
 * their recipients); from any wallet into conversions (on to the fiat wallet they paid) and
 * payouts (recorded: paid out, or waiting). What is still in a wallet is held there.
 *
 * Everything is read from the ledger: the postings of each movement (`escrow:<id>:commit`,
 * `exchange:<id>:execute`, `payout:<id>:execute` …) say where the value went.
 */
import type { Db } from '../db/sql.js';
import { newId } from '../ids.js';
import type { InvoiceRecord } from '../invoices/invoice.rules.js';
import { addHeld, entriesAfter, entriesOfPostings, lockHeldOf, type PostingEntryRow } from '../ledger/ledger.repository.js';
import { insertHolds } from './dispute.repository.js';
import { disputedShare, ownerOf, spendsOfCredit } from './dispute-trace.rules.js';
import type { DisputeHold, DisputeRecord, TracedVia } from './dispute.rules.js';

/**
 * Checks an escrow the trace found ESCROWED (no commit posting) and locks it so until the
 * opening commits: a cancel or commit of it then waits for the dispute (and reads its holds).
 * One that committed meanwhile — after the trace read the ledger — makes the opening fail: its
 * job runs it again, and the new trace follows the value where the move took it.
 */
async function lockStillEscrowed(lockEscrowStatus: EscrowLock, db: Db, escrowId: string): Promise<void> {
  const status = await lockEscrowStatus(db, escrowId);
  if (status !== 'ESCROWED') throw new Error(`escrow ${escrowId} moved (${status ?? 'gone'}) while a dispute traced it: trace again`);
}

/** The escrow's status, its row locked against a move until the transaction ends (given by the runners' assembly). */
export type EscrowLock = (db: Db, escrowId: string) => Promise<string | undefined>;

/**
 * The row locks the trace takes on what it finds value waiting in (given by the modules that
 * own those rows, which import disputes): an escrow's status (`for share`), and a payout's.
 */
export interface TraceLocks {
  escrow: EscrowLock;
  payoutStatus: (db: Db, payoutId: string) => Promise<string | undefined>;
}

/** A payout in these states has not been claimed for the rail: its value waits in it (a reversed one's came back to its wallet). */
const WAITING_PAYOUT: ReadonlySet<string> = new Set(['FUNDS-IN-ESCROW', 'FAILED', 'USER-REVERSED', 'SUPPORT-REVERSED']);

/** How many later entries of one wallet the trace reads at most (a wallet busier than that is traced that far). */
const TRACE_ENTRY_LIMIT = 5_000;

interface Found {
  wallet: string;
  currency: string;
  amount: number;
  via: TracedVia;
  referenceId: string;
  /** Still in the wallet (held), or gone (paid out, waiting in an escrow or a payout). */
  state: 'in_wallet' | 'paid_out' | 'escrowed' | 'payout_waiting';
}

/** The user wallets a posting credited (not `except`), with their entries. */
function walletCredits(entries: PostingEntryRow[], except: Set<string> = new Set()): PostingEntryRow[] {
  return entries.filter((e) => e.kind === 'user_wallet' && e.amount > 0 && !except.has(e.account_id));
}

/**
 * Follows `disputed` of the credit `entry` through its wallet. `depth` 0 is the buyer's own
 * wallet (its escrows and invoices are followed on to their recipients), 1 a recipient's.
 */
async function follow(
  db: Db,
  entry: PostingEntryRow,
  disputed: number,
  via: TracedVia,
  referenceId: string,
  depth: number,
  found: Found[],
  locks: TraceLocks,
) {
  if (disputed <= 0 || entry.applied_seq === null || entry.balance_after === null) return;
  const after = await entriesAfter(db, entry.account_id, entry.applied_seq, TRACE_ENTRY_LIMIT);
  const { spends, left } = spendsOfCredit(entry.balance_after - entry.amount, entry.amount, disputed, after);
  if (left > 0) found.push({ wallet: entry.account_id, currency: entry.currency, amount: left, via, referenceId, state: 'in_wallet' });
  for (const spend of spends) {
    const [kind, id, phase] = spend.reference.split(':');
    if (kind === 'exchange' && phase === 'execute') {
      // A conversion: on to the fiat wallet it paid, in proportion.
      const entries = await entriesOfPostings(db, [spend.reference]);
      const paid = entries.filter((e) => e.account_id === entry.account_id).reduce((s, e) => s - e.amount, 0);
      for (const credit of walletCredits(entries)) {
        await follow(db, credit, disputedShare(credit.amount, spend.amount, paid), 'conversion', id!, depth, found, locks);
      }
    } else if (kind === 'payout' && phase === 'hold') {
      // Locked, so an execution's claim waits for this opening (and then finds the payout waiting
      // for the dispute); one claimed first is on its way to the rail, whatever the ledger says yet.
      const status = await locks.payoutStatus(db, id!);
      const executed = status !== undefined && !WAITING_PAYOUT.has(status);
      found.push({
        wallet: entry.account_id,
        currency: entry.currency,
        amount: spend.amount,
        via: 'payout',
        referenceId: id!,
        state: executed ? 'paid_out' : 'payout_waiting',
      });
    } else if (depth === 0 && kind === 'escrow' && phase === 'pay') {
      const commit = await entriesOfPostings(db, [`escrow:${id}:commit`, `escrow:${id}:commit:shares`]);
      if (commit.length === 0) {
        await lockStillEscrowed(locks.escrow, db, id!);
        found.push({
          wallet: entry.account_id,
          currency: entry.currency,
          amount: spend.amount,
          via: 'escrow',
          referenceId: id!,
          state: 'escrowed',
        });
        continue;
      }
      // What the escrow held (its commit empties its holding), and the shares its commit paid on.
      const total = commit.filter((e) => e.kind === 'escrow_holding').reduce((s, e) => s - e.amount, 0);
      for (const credit of walletCredits(commit)) {
        await follow(db, credit, disputedShare(credit.amount, spend.amount, total), 'escrow', id!, 1, found, locks);
      }
    } else if (depth === 0 && kind === 'invoice' && phase === 'pay') {
      const entries = await entriesOfPostings(db, [spend.reference, `${spend.reference}:shares`]);
      // What the invoice cost: what its pay took from where it was paid from.
      const total = entries.filter((e) => e.reference === spend.reference && e.amount < 0).reduce((s, e) => s - e.amount, 0);
      for (const credit of walletCredits(entries, new Set([entry.account_id]))) {
        await follow(db, credit, disputedShare(credit.amount, spend.amount, total), 'purchase', id!, 1, found, locks);
      }
    }
  }
}

/** The postings that put a purchase's value into wallets, and how it got there. */
function purchasePostings(invoice: InvoiceRecord): { references: string[]; via: TracedVia; referenceId: string } {
  if (invoice.escrowId) {
    return { references: [`escrow:${invoice.escrowId}:commit:shares`], via: 'escrow', referenceId: invoice.escrowId };
  }
  return {
    references: [`invoice:${invoice.id}:pay`, `invoice:${invoice.id}:pay:shares`, `invoice:${invoice.id}:issue`],
    via: 'purchase',
    referenceId: invoice.id,
  };
}

/** How many times the trace is read again after locking the wallets it found, at most, before it stands as read. */
const TRACE_READS = 5;

/**
 * Traces the dispute's value and holds what is still in wallets (each hold within what the
 * wallet has free: its balance less what other disputes hold); records every finding as a hold
 * row (`held` 0 for value that left, or waits in an escrow or a payout). Answers the rows.
 *
 * The trace reads the ledger without locks, so a move out of a traced wallet (a payout, a
 * conversion, a merge) may commit between the reading and the holds. So the wallets found
 * holding value are locked (a move out of them now waits for this opening) and the trace is read
 * again: when it reads the same, nothing slipped in between; otherwise the new reading is the
 * trace, its wallets locked in turn.
 */
export async function traceAndHold(
  db: Db,
  dispute: DisputeRecord,
  invoice: InvoiceRecord,
  accountOf: (wallet: string) => Promise<string>,
  locks: TraceLocks,
) {
  let found = await traceOf(db, dispute, invoice, accountOf, locks);
  let locked = new Map<string, { balance: number; held: number }>();
  for (let read = 1; ; read++) {
    locked = await lockHeldOf(db, walletsHolding(found));
    const again = await traceOf(db, dispute, invoice, accountOf, locks);
    const moved = JSON.stringify(again) !== JSON.stringify(found);
    found = again;
    if (!moved) break;
    if (read >= TRACE_READS) {
      locked = await lockHeldOf(db, walletsHolding(found));
      break;
    }
  }
  const free = new Map([...locked].map(([id, a]) => [id, Math.max(a.balance - a.held, 0)]));
  const holds: DisputeHold[] = [];
  for (const f of found) {
    const held = f.state === 'in_wallet' ? Math.min(f.amount, free.get(f.wallet) ?? 0) : 0;
    if (held > 0) {
      free.set(f.wallet, free.get(f.wallet)! - held);
      await addHeld(db, f.wallet, held);
    }
    holds.push({
      id: newId('dhl'),
      disputeId: dispute.id,
      integratorId: dispute.integratorId,
      accountId: f.wallet ? await accountOf(f.wallet) : dispute.accountId,
      walletId: f.wallet,
      currency: f.currency,
      amount: f.amount,
      held,
      released: 0,
      clawedBack: 0,
      via: f.via,
      referenceId: f.referenceId,
      state: f.state,
    });
  }
  await insertHolds(db, holds);
  return holds;
}

/** The wallets a trace found value still in. */
const walletsHolding = (found: readonly Found[]) => [...new Set(found.filter((f) => f.state === 'in_wallet').map((f) => f.wallet))];

/** One reading of where the dispute's value went (no locks). */
async function traceOf(
  db: Db,
  dispute: DisputeRecord,
  invoice: InvoiceRecord,
  accountOf: (wallet: string) => Promise<string>,
  locks: TraceLocks,
): Promise<Found[]> {
  const found: Found[] = [];
  if (dispute.amount > 0) {
    const { references, via, referenceId } = purchasePostings(invoice);
    const entries = await entriesOfPostings(db, references);
    // The value the purchase paid in: its total (a token purchase's tokens are counted in proportion to it, as its refunds do).
    const paid = Number(invoice.totalAmount);
    for (const credit of walletCredits(entries)) {
      const buyers = (await accountOf(credit.account_id)) === invoice.accountId;
      await follow(db, credit, disputedShare(credit.amount, dispute.amount, paid), via, referenceId, buyers ? 0 : 1, found, locks);
    }
    // An escrow paid by card and still ESCROWED: its value waits in the escrow.
    if (invoice.escrowId && (await entriesOfPostings(db, [`escrow:${invoice.escrowId}:commit`])).length === 0) {
      await lockStillEscrowed(locks.escrow, db, invoice.escrowId);
      found.push({
        wallet: '',
        currency: invoice.currency,
        amount: dispute.amount,
        via: 'escrow',
        referenceId: invoice.escrowId,
        state: 'escrowed',
      });
    }
  }
  return found;
}

export { ownerOf };
