/**
 * Value a dispute traced into a movement that then came back to a wallet: an ESCROWED escrow
 * cancelled (its `escrowed` holds), a payout not yet sent reversed (its `payout_waiting` holds).
 * It is the disputed value still, so it is not handed back free:
 *
 * - under an open dispute it is held where it landed (`in_wallet`, within what the wallet has
 *   free), released by WON and clawed back by LOST like any hold;
 * - under a lost dispute (an escrow cancelled after the loss) it is clawed back at once, in a
 *   posting of its own (`dispute:<id>:clawback:<hold id>`), and leaves the dispute's
 *   `unrecovered`; the dispute's `dispute-updated` event says so;
 * - a won dispute has nothing to hold.
 *
 * Each runs in the transaction of the movement that gave the value back, after its posting: the
 * database keeps a wallet's balance at least what it holds, and the posting is what raised it.
 */
import type { Db } from '../db/sql.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import { addHeld, entriesOfPostings, lockHeldOf } from '../ledger/ledger.repository.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { endHold, holdsOf, landHold, lockDispute, lockWaitingHolds, setUnrecovered, type WaitingHold } from './dispute.repository.js';
import { disputedShare } from './dispute-trace.rules.js';
import { disputeView, OPEN_DISPUTE_STATUSES, unrecoveredOf, type DisputeHold, type DisputeRecord } from './dispute.rules.js';

/** Where a movement's value came back: the user wallets its postings credited (net), by ledger account. */
async function landings(db: Db, references: string[]): Promise<Map<string, { currency: string; amount: number }>> {
  const net = new Map<string, { currency: string; amount: number }>();
  for (const e of await entriesOfPostings(db, references)) {
    if (e.kind !== 'user_wallet') continue;
    const at = net.get(e.account_id) ?? { currency: e.currency, amount: 0 };
    at.amount += e.amount;
    net.set(e.account_id, at);
  }
  for (const [wallet, at] of net) if (at.amount <= 0) net.delete(wallet);
  return net;
}

/**
 * The holds a movement's return concerns, held (open disputes) or clawed back (lost ones) where
 * the value landed. `state` and `referenceId` name the movement (an escrow's id, a payout's);
 * `references` are the postings that gave its value back (`escrow:<id>:cancel`; a payout's
 * `reverse` and, for a conversion's payout, the conversion's `reverse`); `paid` is what the
 * movement took, of which each hold's amount is part — the part landing elsewhere (a reversed
 * conversion gives tokens back) is in proportion, rounded up. Without `paid` the value lands as
 * it left (an escrow cancel gives each wallet back what it paid). Answers how many holds moved.
 */
export async function takeBackReturnedValue(
  db: Db,
  state: 'escrowed' | 'payout_waiting',
  referenceId: string,
  references: string[],
  paid?: number,
): Promise<number> {
  const holds = (await lockWaitingHolds(db, state, referenceId)).filter(
    (h) => h.walletId !== '' && (OPEN_DISPUTE_STATUSES.includes(h.disputeStatus) || h.disputeStatus === 'LOST'),
  );
  if (holds.length === 0) return 0;
  const landed = await landings(db, references);
  // Each hold lands in its own wallet when the value came back there, else in the one wallet credited.
  const placed: Array<{ hold: WaitingHold; wallet: string; currency: string; amount: number }> = [];
  for (const hold of holds) {
    const wallet = landed.has(hold.walletId) ? hold.walletId : landed.size === 1 ? [...landed.keys()][0]! : undefined;
    if (!wallet) continue;
    const at = landed.get(wallet)!;
    const amount = paid === undefined ? Math.min(hold.amount, at.amount) : disputedShare(at.amount, hold.amount, paid);
    if (amount > 0) placed.push({ hold, wallet, currency: at.currency, amount });
  }
  const free = new Map(
    [...(await lockHeldOf(db, [...new Set(placed.map((p) => p.wallet))]))].map(([id, a]) => [id, Math.max(a.balance - a.held, 0)]),
  );
  const lost = new Map<string, DisputeHold[]>();
  for (const p of placed) {
    const held = Math.min(p.amount, free.get(p.wallet) ?? 0);
    free.set(p.wallet, (free.get(p.wallet) ?? 0) - held);
    if (held > 0) await addHeld(db, p.wallet, held);
    await landHold(db, p.hold.id, { walletId: p.wallet, accountId: p.hold.accountId, currency: p.currency, amount: p.amount, held });
    if (p.hold.disputeStatus === 'LOST') {
      const list = lost.get(p.hold.disputeId) ?? [];
      list.push({ ...p.hold, walletId: p.wallet, currency: p.currency, amount: p.amount, held, state: 'in_wallet' });
      lost.set(p.hold.disputeId, list);
    }
  }
  // A lost dispute takes back at once what came back: its clawback postings, and what it reports it could not recover.
  for (const [disputeId, list] of lost) {
    const d = await lockDispute(db, disputeId);
    if (!d) throw new Error(`dispute ${disputeId} of a hold is gone`);
    const postings = await clawBackHolds(db, d, list);
    if (postings.length) await post(db, ...postings);
    const after = await holdsOf(db, [d.id]);
    const unrecovered = unrecoveredOf(after);
    await setUnrecovered(db, d.id, unrecovered);
    await insertEvent(db, d.integratorId, 'dispute-updated', disputeView({ ...d, unrecovered }, after));
  }
  return placed.length;
}

/**
 * LOST: what each hold holds is clawed back — tokens to token issuance, fiat to the integrator's
 * default wallet — each its own posting, `dispute:<id>:clawback:<hold id>`, for the caller to
 * post. The hold is lifted first: the database keeps a wallet's balance at least what it holds.
 */
export async function clawBackHolds(
  db: Db,
  d: Pick<DisputeRecord, 'id' | 'integratorId'>,
  holds: readonly DisputeHold[],
): Promise<Posting[]> {
  const tokenCurrency = (await integratorProfile(db, d.integratorId)).tokenCurrency;
  const postings: Posting[] = [];
  for (const h of holds.filter((x) => x.held > 0)) {
    await addHeld(db, h.walletId, -h.held);
    await endHold(db, h.id, 'clawed_back');
    const to = await systemAccount(db, d.integratorId, h.currency === tokenCurrency ? 'token_issuance' : 'publisher_wallet', h.currency);
    postings.push({
      integratorId: d.integratorId,
      reference: `dispute:${d.id}:clawback:${h.id}`,
      description: `dispute ${d.id} lost: traced value clawed back`,
      entries: [
        { account: h.walletId, currency: h.currency, amount: -h.held },
        { account: to, currency: h.currency, amount: h.held },
      ],
    });
  }
  return postings;
}
