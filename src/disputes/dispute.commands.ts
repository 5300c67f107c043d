/**
 * The disputes module's command runners, each in the one command transaction:
 * - `dispute.open` records a processor's notice, never refusing one (only the sandbox's API
 *   opening refuses): it locks the purchase invoice (a refund of it waits, and waits for it),
 *   caps the amount at what the charge still has (what was refunded is no longer the processor's
 *   to take: the notice is kept, with `reported_amount`, and flagged), and, when the
 *   processor has taken the money, posts `dispute:<id>:open` — the amount to dispute holding and
 *   the integrator's dispute fee to dispute fees, from its default wallet, which this posting
 *   alone may take below zero. A second notice for the same charge answers the dispute it has.
 * - `dispute.close` decides a dispute: WON gives the amount back to the wallet
 *   (`dispute:<id>:won`), LOST moves it to dispute losses (`dispute:<id>:lost`).
 *
 * The runners are made with what they need of the modules that build on disputes (escrows and
 * payouts import disputes, so disputes cannot import them): `disputeCommandsWith`, assembled
 * with the other modules' runners (workers/commands.processor.ts).
 */
import { failpoint } from '../runtime/failpoints.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { commandResult, inCommandTransaction, submitCommand } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import { integratorSettings } from '../integrators/integrator.service.js';
import { escrowOutcome, givenBackToMethod, lockInvoice } from '../invoices/invoice.repository.js';
import { systemAccount, type Posting } from '../ledger/ledger.service.js';
import { addHeld, paymentMethodOfAccount } from '../ledger/ledger.repository.js';
import { clawBackHolds } from './dispute-returns.service.js';
import { methodById } from '../payment-methods/payment-method.repository.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import {
  addDisputeFlag,
  applyDisputeNotice,
  closeDisputeRow,
  disputeOfCharge,
  endHold,
  holdsOf,
  insertDispute,
  lockDispute,
  lockDisputeOfCharge,
  setUnrecovered,
} from './dispute.repository.js';
import { traceAndHold } from './dispute-trace.service.js';
import {
  closeDecision,
  disputedAmount,
  disputeView,
  fundsAfterClose,
  isDisputablePurchase,
  lostPosting,
  openingFlags,
  openPosting,
  wonPosting,
  type DisputeAccounts,
  type DisputeHold,
  type DisputeRecord,
  unrecoveredOf,
} from './dispute.rules.js';
import { disputeNotFound, disputeStateError, viewOf, type OpenDisputeInput } from './dispute.service.js';
import { noticeChange, type DisputeNoticeInput } from './stripe-dispute.rules.js';

async function accountsOf(db: Db, d: Pick<DisputeRecord, 'integratorId' | 'currency'>): Promise<DisputeAccounts> {
  return {
    wallet: await systemAccount(db, d.integratorId, 'publisher_wallet', d.currency),
    holding: await systemAccount(db, d.integratorId, 'dispute_holding', d.currency),
    fees: await systemAccount(db, d.integratorId, 'dispute_fees', d.currency),
    losses: await systemAccount(db, d.integratorId, 'dispute_losses', d.currency),
  };
}

/** What the dispute runners need of the modules that import disputes (given where the runners are assembled). */
export interface DisputeRunnerDeps {
  /**
   * The escrow's status, its row locked against a move (`for share`) until the transaction
   * ends; undefined when there is no such escrow (escrow.repository's `lockEscrowStatus`).
   */
  lockEscrowStatus(db: Db, escrowId: string): Promise<string | undefined>;
  /** The payout's status, its row locked (`for share`) against an execution's claim (payout.repository's `lockPayoutStatus`). */
  lockPayoutStatus(db: Db, payoutId: string): Promise<string | undefined>;
  /**
   * Reverses a payout not yet sent in the caller's transaction, as an operator's rejection does
   * (SUPPORT-REVERSED, its `payout:<id>:reverse` posting and `payout-complete` event), its
   * disputed value held where it landed; false when it can no longer be reversed
   * (payout.commands' `reversePayoutForDispute`).
   */
  reversePayout(db: Db, payoutId: string): Promise<boolean>;
}

/**
 * The `dispute.open` runner. A processor's notice (`provider` stripe) is never refused: when
 * Holdfast has no paid card charge of a purchase behind it (its invoice is not SUCCESS, say), it
 * is recorded with nothing to dispute (`amount` 0, flagged `NOT_A_PAID_CHARGE`), and a notice for
 * more than the charge still has is capped (`CAPPED`), for an operator to look at. Only the
 * sandbox's opening (`POST /v2/sandbox/disputes`) answers 400 `NOT_A_CARD_CHARGE`.
 */
function runOpenDisputeCommand(deps: DisputeRunnerDeps) {
  return (em: EntityManager, commandId: string) => openDispute(em, commandId, deps);
}

function openDispute(em: EntityManager, commandId: string, deps: DisputeRunnerDeps): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const input = command.input as unknown as OpenDisputeInput;
    const invoice = await lockInvoice(db, input.invoice_id);
    if (!invoice || invoice.integratorId !== input.integrator_id) {
      throw AppError.notFound('INVOICE_NOT_FOUND', 'No invoice with this id.');
    }
    const charged = invoice.paymentMethods
      .filter((c) => c.payment_method_id === input.payment_method_id)
      .reduce((sum, c) => sum + c.amount, 0);
    const method = charged > 0 ? await methodById(db, input.payment_method_id) : undefined;
    const paidCharge = isDisputablePurchase(invoice.invoiceType) && invoice.state === 'SUCCESS' && method?.provider === 'card';
    if (!paidCharge && input.provider === 'sandbox') {
      throw AppError.invalid(
        { payment_method_id: ['NOT_A_CARD_CHARGE'] },
        'A dispute belongs to a card that paid a purchase invoice (state SUCCESS).',
      );
    }
    const existing = await disputeOfCharge(db, invoice.id, input.payment_method_id);
    if (existing) return { status: 200, body: success(await viewOf(db, existing)) };
    // What the charge still has: what it paid less what refunds gave back (a cancelled escrow gave
    // it all back; a charge Holdfast does not hold as paid has nothing).
    const cancelled = invoice.escrowId ? (await escrowOutcome(db, invoice.escrowId)) === 'cancelled' : false;
    const left = !paidCharge || cancelled ? 0 : Math.max(charged - (await givenBackToMethod(db, invoice.id, input.payment_method_id)), 0);
    const reported = input.amount ?? left;
    const { amount, capped } = disputedAmount(reported, left);
    const fee = (await integratorSettings(db, invoice.integratorId)).disputeFee;
    const moves = input.withdrawn && amount + fee > 0;
    const inserted = await insertDispute(
      db,
      {
        id: command.target_id,
        integratorId: invoice.integratorId,
        invoiceId: invoice.id,
        paymentMethodId: input.payment_method_id,
        accountId: invoice.accountId,
        amount,
        reportedAmount: Math.max(reported, amount),
        currency: invoice.currency,
        reason: input.reason,
        status: 'NEEDS_RESPONSE',
        evidence: {},
        fee,
        funds: moves ? 'withdrawn' : 'none',
        unrecovered: {},
        provider: input.provider,
        providerDisputeId: input.provider_dispute_id,
        flags: openingFlags({ paidCharge, capped }),
        inquiry: !!input.inquiry,
      },
      input.due_in_seconds,
    );
    if (!inserted) throw new Error(`dispute of ${invoice.id}/${input.payment_method_id} written meanwhile`);
    // Where the purchase's value went: what is still in wallets is held there from now on.
    const holds =
      amount > 0
        ? await traceAndHold(db, inserted, invoice, (wallet) => accountOfWallet(db, wallet), {
            escrow: deps.lockEscrowStatus,
            payoutStatus: deps.lockPayoutStatus,
          })
        : [];
    const view = disputeView(inserted, holds);
    await insertEvent(db, inserted.integratorId, 'dispute-opened', view);
    const postings: Posting[] = moves ? [openPosting(inserted, await accountsOf(db, inserted))] : [];
    // A crash here: the dispute, its trace and holds, its event and the command's result roll back together.
    failpoint('dispute.before-commit');
    return { status: 200, body: success(view), postings };
  }).then(afterCommit);
}

/** A crash right after a dispute command committed: its job is not yet finished in Redis (the rerun answers the stored result). */
function afterCommit<T>(result: T): T {
  failpoint('dispute.after-commit');
  return result;
}

/** The `dispute.close` runner (input `outcome`: WON or LOST). */
function runCloseDisputeCommand(deps: DisputeRunnerDeps) {
  return (em: EntityManager, commandId: string) => closeDispute(em, commandId, deps);
}

function closeDispute(em: EntityManager, commandId: string, deps: DisputeRunnerDeps): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const outcome = (command.input as { outcome: 'WON' | 'LOST' }).outcome;
    const d = await lockDispute(db, command.target_id);
    if (!d) throw disputeNotFound();
    switch (closeDecision(d.status, outcome)) {
      case 'answer':
        return { status: 200, body: success(await viewOf(db, d)) };
      case 'refuse':
        throw disputeStateError(await viewOf(db, d), `The dispute was decided already: it is ${d.status}.`);
      case 'close': {
        const postings: Posting[] = [];
        if (d.funds === 'withdrawn' && d.amount > 0) {
          const accounts = await accountsOf(db, d);
          postings.push(outcome === 'WON' ? wonPosting(d, accounts) : lostPosting(d, accounts));
        }
        if (outcome === 'LOST') {
          // The traced payouts not yet sent are reversed first, here, in this transaction: their
          // money lands back in the wallet and is held there (payout_waiting → in_wallet), so the
          // clawback below takes it like any hold. One transaction for the reversals, the
          // clawbacks and the close: a crash or a rerun finds all of it done or none of it, and
          // each posting (`payout:<id>:reverse`, `dispute:<id>:clawback:<hold>`) is unique. (The
          // other way — submitting `payout.reverse` commands as `next` and clawing back in a
          // follow-up — would leave a LOST dispute whose clawback has not happened yet, and the
          // payout free to be approved between the two.)
          for (const h of await holdsOf(db, [d.id])) if (h.state === 'payout_waiting') await deps.reversePayout(db, h.referenceId);
        }
        const holds = await holdsOf(db, [d.id]);
        postings.push(...(outcome === 'WON' ? await releaseHolds(db, holds) : await clawBackHolds(db, d, holds)));
        const closed = await closeDisputeRow(db, d.id, outcome, d.amount > 0 ? fundsAfterClose(d.funds, outcome) : d.funds);
        const after = await holdsOf(db, [d.id]);
        if (outcome === 'LOST') await setUnrecovered(db, d.id, unrecoveredOf(after));
        const view = disputeView({ ...closed, unrecovered: outcome === 'LOST' ? unrecoveredOf(after) : closed.unrecovered }, after);
        await insertEvent(db, d.integratorId, 'dispute-closed', view);
        failpoint('dispute.before-commit');
        return { status: 200, body: success(view), postings };
      }
    }
  }).then(afterCommit);
}

/** The user account a wallet's ledger account belongs to. */
async function accountOfWallet(db: Db, wallet: string): Promise<string> {
  const method = await paymentMethodOfAccount(db, wallet);
  const row = method ? await methodById(db, method) : undefined;
  if (!row) throw new Error(`ledger account ${wallet} is no wallet`);
  return row.account_id;
}

/** WON: every hold is released; nothing moves. */
async function releaseHolds(db: Db, holds: readonly DisputeHold[]): Promise<Posting[]> {
  for (const h of holds.filter((x) => x.held > 0)) {
    await addHeld(db, h.walletId, -h.held);
    await endHold(db, h.id, 'released');
  }
  return [];
}

/**
 * The `dispute.notice` runner: a processor's later notice on a dispute (Stripe's
 * `charge.dispute.*`, through `applyStripeDisputeEvent`), applied to the charge's dispute with
 * its row locked — the same row `dispute.close` locks, so notices and decisions take turns.
 * What it changes is `noticeChange`'s: the money forward (`dispute:<id>:open`, `:won`, `:lost`,
 * each at most once), UNDER_REVIEW, the evidence deadline, and a decision submitted as
 * `dispute.close` (named in `next`). A notice whose dispute is still being opened waits for it
 * (on the invoice's row, which the opening holds; its job is retried when the opening has not
 * started yet); one whose opening was refused is refused. A notice of another processor dispute
 * of the same charge flags the charge's dispute `SECOND_PROVIDER_DISPUTE` (once) and moves nothing.
 */
export async function runDisputeNoticeCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  // The opening submitted with the notice usually runs beside it: wait for it a little here
  // (no transaction, no lock held) before leaving it to the job's retries.
  for (let attempt = 1; ; attempt++) {
    try {
      return await applyNotice(em, commandId);
    } catch (err) {
      if (!(err instanceof OpeningPending) || attempt >= OPENING_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
    }
  }
}

/** How many times a notice looks for the dispute being opened before its job is retried (about 3 s in all). */
const OPENING_ATTEMPTS = 7;

/** A notice's dispute is still being opened (its `dispute.open` is pending): worth trying again. */
class OpeningPending extends Error {}

/** A notice's due date moving by less than this is the opening's own rounding: no `dispute-updated` for it. */
const DEADLINE_NOISE_MS = 60_000;

function applyNotice(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const input = command.input as unknown as DisputeNoticeInput;
    let d = await lockDisputeOfCharge(db, input.invoice_id, input.payment_method_id);
    if (!d && input.opened_by) {
      // An opening under way holds the invoice's row: wait for it, then look again.
      await lockInvoice(db, input.invoice_id);
      d = await lockDisputeOfCharge(db, input.invoice_id, input.payment_method_id);
    }
    if (!d) {
      if (input.opened_by && !(await commandResult(db, input.opened_by)))
        throw new OpeningPending(`dispute notice ${command.id}: the dispute is still being opened (${input.opened_by})`);
      throw disputeNotFound();
    }
    if (d.integratorId !== input.integrator_id) throw disputeStateError(d, "The charge's dispute is not the one this notice is about.");
    if (d.providerDisputeId !== input.provider_dispute_id) {
      // The processor reports a second dispute of a charge Holdfast keeps one dispute for: it is
      // recorded as a flag on the charge's dispute (its object is stored, and `ledger verify`
      // names it); its money moves nothing here, for an operator to settle with the processor.
      if (d.flags.includes('SECOND_PROVIDER_DISPUTE')) return { status: 200, body: success(await viewOf(db, d)) };
      const flagged = await addDisputeFlag(db, d.id, 'SECOND_PROVIDER_DISPUTE');
      const view = await viewOf(db, flagged);
      await insertEvent(db, d.integratorId, 'dispute-updated', view);
      return { status: 200, body: success(view) };
    }
    const change = noticeChange(d, {
      status: input.status,
      dueBy: input.due_by ? new Date(input.due_by) : null,
      withdrawn: input.withdrawn,
      reinstated: input.reinstated,
      inquiry: !!input.inquiry,
    });
    const postings: Posting[] = [];
    if (change.phases.length) {
      const accounts = await accountsOf(db, d);
      for (const phase of change.phases)
        postings.push(phase === 'open' ? openPosting(d, accounts) : phase === 'won' ? wonPosting(d, accounts) : lostPosting(d, accounts));
    }
    let after = d;
    if (change.funds !== d.funds || change.status || change.dueBy || change.escalated) {
      after = await applyDisputeNotice(db, d.id, {
        funds: change.funds,
        status: change.status,
        evidenceDueBy: change.dueBy,
        escalated: change.escalated,
      });
      const moved = change.dueBy && Math.abs(change.dueBy.getTime() - d.evidenceDueBy.getTime()) >= DEADLINE_NOISE_MS;
      if (change.funds !== d.funds || change.status || change.escalated || moved)
        await insertEvent(db, d.integratorId, 'dispute-updated', await viewOf(db, after));
    }
    const next: CommandResult['next'] = [];
    if (change.close) {
      const closeId = await submitCommand(db, {
        integratorId: d.integratorId,
        kind: 'dispute.close',
        targetId: d.id,
        input: { outcome: change.close },
        inputKey: change.close,
      });
      next.push({ commandId: closeId, kind: 'dispute.close' });
    }
    return { status: 200, body: success(await viewOf(db, after)), postings, ...(next.length ? { next } : {}) };
  });
}

/** The disputes module's runners, with what they need of the modules that build on disputes. */
export function disputeCommandsWith(deps: DisputeRunnerDeps): CommandRunners {
  return {
    'dispute.open': runOpenDisputeCommand(deps),
    'dispute.close': runCloseDisputeCommand(deps),
    'dispute.notice': runDisputeNoticeCommand,
  };
}
