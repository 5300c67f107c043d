/**
 * The escrow phases a worker runs for a command: pay, commit, cancel. This is the hot path,
 * and it is built for few round trips and short locks:
 *
 * - Commands that reach the worker together (the same turn of the event loop) run as one
 *   batch: one statement reads them all (their escrows, invoices and payment methods), one
 *   statement writes every phase's outcome (both in escrow-phase.flow.ts).
 * - Neither statement runs inside an explicit transaction. The write is guarded instead: each
 *   escrow moves only if it is still in the state it was read in, and everything else a phase
 *   writes (its invoice, outbox events, ledger postings, the command's result) is written only
 *   with that move — all in the one statement, which PostgreSQL commits on its own. The
 *   ledger rows every phase touches (escrow holding, clearing, the publisher's wallet) are so
 *   locked only while that statement commits, never while this process works.
 * - A command whose escrow moved meanwhile is read again and decided again; a batch whose write
 *   fails (a wallet spent meanwhile: the database refuses the overdraft) is rerun command by
 *   command, so one command's failure is never another's.
 *
 * Postings are unique per escrow and phase, and a command's result is stored once: a job that
 * runs twice (or two jobs for one escrow) cannot move money twice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { CommandKind, CommandResult } from '../commands/command.registry.js';
import { batchedPerPool } from '../db/batch.js';
import { db as pooled, type Db } from '../db/sql.js';
import type { CardProcessor, CardProvider, CardVerdicts } from '../rails/card-processor.port.js';
import { sandboxCardProcessor } from '../rails/sandbox-card.adapter.js';
import {
  authorizeCardCharges,
  refundCardCharges,
  releaseCardAuthorizations,
  settleCardAuthorizations,
  type CardAuthorizations,
} from '../invoices/card-charges.service.js';
import { success } from '../envelope.js';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { StoredCharge } from '../invoices/invoice.entity.js';
import { invoiceView, type InvoiceRecord } from '../invoices/invoice.rules.js';
import { evaluateCharges, paymentFailure, settle } from '../invoices/settlement.service.js';
import { isOverdraft, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { isContention as isLockContention } from '../db/postgres-failures.js';
import { failpoint } from '../runtime/failpoints.js';
import { cancelsWithOpenCardRefunds } from '../invoices/invoice.repository.js';
import { firstDoneCommand } from '../commands/command.service.js';
import { recordCancelRefunds, recordedCancelParts } from '../refunds/refund-reversal.service.js';
import type { EventName } from '../webhooks/webhook.rules.js';
import { readPhaseCommands, writePhasePlans, type Plan, type ReadCommand } from './escrow-phase.flow.js';
import { lockWaitingHolds } from '../disputes/dispute.repository.js';
import { takeBackReturnedValue } from '../disputes/dispute-returns.service.js';
import {
  escrowStateConflict,
  escrowView,
  transitionDecision,
  TRANSITION_TARGET,
  type EscrowRecord,
  type EscrowTransition,
} from './escrow.rules.js';

const TRANSITIONS: Partial<Record<CommandKind, EscrowTransition>> = {
  'escrow.pay': 'pay',
  'escrow.commit': 'commit',
  'escrow.cancel': 'cancel',
};

/** Rounds of read-decide-write before a batch gives up (its jobs then retry with backoff). */
const MAX_ROUNDS = 20;

/** The invoice of a commit or cancel phase (SUCCESS), copied from the escrow invoice. */
function phaseInvoice(escrow: EscrowRecord, from: InvoiceRecord, type: string, charges: StoredCharge[], at: Date): InvoiceRecord {
  return {
    ...from,
    id: newId('inv'),
    invoiceType: `${type}${escrow.currency === 'USD' ? '' : '_virtual'}`,
    state: 'SUCCESS',
    failureReason: null,
    paymentMethods: charges,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Decides one command from what was read: its answer, and what its phase writes. `balances`
 * is shared by the batch (money one pay spends is gone for the next). A refusal is not thrown:
 * it is a result of the batch's one write, made from its AppError by `errorReply`.
 */
async function plan(
  em: EntityManager,
  command: ReadCommand,
  balances: Map<string, number>,
  cards: CardVerdicts,
  unasked?: Set<string>,
): Promise<Plan> {
  const transition = TRANSITIONS[command.kind];
  if (!transition) throw new Error(`command ${command.id} (${command.kind}) is not an escrow command`);
  if (!command.loaded) return { commandId: command.id, result: errorReply(AppError.notFound('ESCROW_GET_ERROR', 'Escrow not found.')) };
  const { escrow: read, invoice: escrowInvoice, methods } = command.loaded;
  const integrator = (await integratorProfile(em, read.integratorId)).name;
  const decision = transitionDecision(read.status, transition);
  if (decision === 'already') return { commandId: command.id, result: { status: 200, body: success(escrowView(read, integrator)) } };
  if (decision === 'conflict') return { commandId: command.id, result: errorReply(escrowStateConflict(read, transition, integrator)) };
  // Money never lands in a merged account: an escrow that would pay one neither pays nor commits (a cancel still refunds).
  if ((transition === 'pay' || transition === 'commit') && command.loaded.paysMergedAccount) {
    return {
      commandId: command.id,
      result: errorReply(escrowStateConflict(read, transition, integrator, 'it pays an account that was merged into another')),
    };
  }
  // Value a card dispute traced waits in this escrow: it is not released to the sellers while the dispute is open (it may be cancelled).
  if (transition === 'commit' && command.loaded.frozenByDispute) {
    return {
      commandId: command.id,
      result: errorReply(
        new AppError(
          'invalid_state',
          'A card charge that paid this escrow is disputed: it cannot be committed until the dispute is decided (it may be cancelled).',
          {
            codes: ['DISPUTE_OPEN'],
            payload: escrowView(read, integrator),
          },
        ),
      ),
    };
  }
  // An authorized escrow whose buyer has not named its payment methods (the invoice's pay does): nothing to charge yet.
  if (transition === 'pay' && escrowInvoice.paymentMethods.length === 0) {
    return {
      commandId: command.id,
      result: errorReply(escrowStateConflict(read, transition, integrator, 'its buyer has not chosen the payment methods yet')),
    };
  }

  const escrow = { ...read, updatedAt: command.now };
  const { integratorId, currency, totalAmount } = escrow;
  const holding = await systemAccount(em, integratorId, 'escrow_holding', currency);
  const postings: Posting[] = [];
  let invoiceChange: { id: string; state: string; failureReason: string | null } | undefined;
  let made: InvoiceRecord | undefined;
  if (transition === 'pay') {
    for (const [wallet, balance] of command.loaded.balances) if (!balances.has(wallet)) balances.set(wallet, balance);
    const sources = await evaluateCharges(pooled(em), integratorId, currency, escrowInvoice.paymentMethods, methods, balances, cards);
    const reason = paymentFailure(sources);
    // A wallet that fell short before the cards were asked covers the pay now: ask them first.
    if (!reason && unasked?.size) throw new Error(`escrow ${escrow.id}: its cards were not authorized yet; run again`);
    if (reason) {
      // All or nothing: decided before any posting. Money a failing pay set aside goes back.
      for (const s of sources) if (s.outcome.ok && balances.has(s.account)) balances.set(s.account, balances.get(s.account)! + s.amount);
      escrow.status = 'ESCROW-FAILED';
    } else {
      escrow.status = 'ESCROWED';
      postings.push({
        integratorId,
        reference: `escrow:${escrow.id}:pay`,
        description: `escrow ${escrow.id} pay`,
        entries: [
          ...sources.map((s) => ({ account: s.account, currency, amount: -s.amount })),
          { account: holding, currency, amount: totalAmount },
        ],
      });
    }
    invoiceChange = { id: escrowInvoice.id, state: reason ? 'FAILED' : 'SUCCESS', failureReason: reason ?? null };
  } else if (transition === 'commit') {
    made = phaseInvoice(escrow, escrowInvoice, 'user_purchase_commit_escrow', [], command.now);
    escrow.commitInvoiceId = made.id;
    escrow.status = 'COMMITTED';
    postings.push(
      ...(await settle(pooled(em), {
        integratorId,
        currency,
        reference: `escrow:${escrow.id}:commit`,
        description: `escrow ${escrow.id} commit`,
        from: [{ account: holding, currency, amount: -totalAmount }],
        lineItems: escrowInvoice.lineItems,
      })),
    );
  } else {
    // A refund goes back to where each charge came from; what wallets hold now does not matter.
    // A disputed card part is not: the processor gave it back to the cardholder already, and the
    // dispute took it from the integrator's wallet — it goes back there.
    const refunded = withoutDisputedCharges(escrowInvoice.paymentMethods, command.loaded.disputed);
    const sources = await evaluateCharges(pooled(em), integratorId, currency, refunded, methods, new Map(), cards);
    const toIntegrator = totalAmount - refunded.reduce((sum, c) => sum + c.amount, 0);
    made = phaseInvoice(escrow, escrowInvoice, 'user_purchase_refund_escrow', refunded, command.now);
    escrow.cancelInvoiceId = made.id;
    escrow.status = 'CANCELLED';
    postings.push({
      integratorId,
      reference: `escrow:${escrow.id}:cancel`,
      description: `escrow ${escrow.id} refund`,
      entries: [
        { account: holding, currency, amount: -totalAmount },
        ...sources.map((s) => ({ account: s.account, currency, amount: s.amount })),
        ...(toIntegrator > 0
          ? [{ account: await systemAccount(pooled(em), integratorId, 'publisher_wallet', currency), currency, amount: toIntegrator }]
          : []),
      ],
    });
  }
  if (transition !== 'pay' && escrow.status !== TRANSITION_TARGET[transition])
    throw new Error(`escrow ${escrow.id} did not reach ${TRANSITION_TARGET[transition]}`);
  const view = escrowView(escrow, integrator);
  const events: Array<{ integratorId: string; name: EventName; message: unknown }> = [
    { integratorId, name: 'escrow-transaction-update', message: view },
  ];
  if (invoiceChange) {
    const completed: InvoiceRecord = {
      ...escrowInvoice,
      state: invoiceChange.state as InvoiceRecord['state'],
      failureReason: invoiceChange.failureReason,
      updatedAt: command.now,
    };
    events.push({ integratorId, name: 'invoice-completed', message: invoiceView(completed) });
  }
  return {
    commandId: command.id,
    result: { status: 200, body: success(view) },
    move: {
      escrowId: escrow.id,
      from: read.status,
      to: escrow.status,
      commitInvoiceId: escrow.commitInvoiceId ?? null,
      cancelInvoiceId: escrow.cancelInvoiceId ?? null,
      at: command.now,
      invoice: invoiceChange,
      phaseInvoice: made,
      events,
      postings,
    },
  };
}

/** An escrow's charges less what disputes took of each (a charge left with nothing is left out). */
function withoutDisputedCharges(charges: StoredCharge[], disputed: ReadonlyMap<string, number>): StoredCharge[] {
  if (disputed.size === 0) return charges;
  const left = new Map(disputed);
  return charges
    .map((c) => {
      const taken = Math.min(left.get(c.payment_method_id) ?? 0, c.amount);
      if (taken) left.set(c.payment_method_id, (left.get(c.payment_method_id) ?? 0) - taken);
      return { ...c, amount: c.amount - taken };
    })
    .filter((c) => c.amount > 0);
}

/**
 * The cancel of an escrow a dispute traced value into (read as `returnsDisputedValue`): the
 * slower path, which the common cancel never takes. In one transaction: the disputes waiting in
 * the escrow locked (a close of one waits, in the order a close takes them), the phase's usual
 * guarded write, then — after its posting put the money back in the buyer's wallet — that
 * value held there for an open dispute, or clawed back for a lost one
 * (`takeBackReturnedValue`). Answers whether the command's result was stored (false: the escrow
 * moved meanwhile; read again).
 */
async function writeCancelReturningDisputedValue(db: Db, p: Plan): Promise<boolean> {
  return db.transaction(async (tx) => {
    const escrowId = p.move!.escrowId;
    await lockWaitingHolds(tx, 'escrowed', escrowId);
    const stored = await writePhasePlans(tx, [p]);
    if (!stored.has(p.commandId)) return false;
    await takeBackReturnedValue(tx, 'escrowed', escrowId, [`escrow:${escrowId}:cancel`]);
    return true;
  });
}

/** A write refused because of what others did meanwhile: worth deciding again. */
function isContention(err: unknown): boolean {
  return isOverdraft(err) || isLockContention(err);
}

/** What running a command came to: its result (null: no such command), or the error that stopped it. */
type Outcome = CommandResult | null | Error;

/**
 * Runs escrow commands to their end; each command's outcome. A command that cannot be run (a
 * broken row, a write the database refuses for a reason other than contention) fails alone: the
 * others of its batch still finish.
 */
async function runEscrowCommands(em: EntityManager, cards: CardProcessor, ids: string[]): Promise<Map<string, Outcome>> {
  const db = pooled(em);
  const results = new Map<string, Outcome>();
  let pending = [...new Set(ids)];
  for (let round = 0; pending.length; round++) {
    if (round === MAX_ROUNDS) {
      for (const id of pending) results.set(id, new Error(`escrow command ${id} still contended after ${MAX_ROUNDS} rounds`));
      break;
    }
    const read = await readPhaseCommands(db, pending);
    const plans: Plan[] = [];
    const again: string[] = [];
    const escrows = new Set<string>();
    const balances = new Map<string, number>();
    const authorized = cards.provider ? await authorizePays(db, cards.provider, read, results) : undefined;
    for (const id of pending) {
      const command = read.get(id);
      if (!command) results.set(id, null);
      else if (command.result) results.set(id, command.result);
      else if (results.has(id))
        continue; // its cards could not be asked (the provider is unavailable)
      else if (command.loaded && escrows.has(command.loaded.escrow.id))
        again.push(id); // one move per escrow per write
      else {
        if (command.loaded) escrows.add(command.loaded.escrow.id);
        try {
          const auth = authorized?.get(id);
          plans.push(await plan(em, command, balances, auth?.verdicts ?? cards, auth?.unasked));
        } catch (err) {
          results.set(id, err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
    // A cancel that gives back value a dispute traced into the escrow leaves the batch: its own transaction.
    const apart = plans.filter((p) => p.move?.to === 'CANCELLED' && read.get(p.commandId)?.loaded?.returnsDisputedValue);
    if (apart.length) plans.splice(0, plans.length, ...plans.filter((p) => !apart.includes(p)));
    for (const p of apart) {
      try {
        if (await writeCancelReturningDisputedValue(db, p)) results.set(p.commandId, p.result);
        else again.push(p.commandId);
      } catch (err) {
        if (isContention(err)) again.push(p.commandId);
        else results.set(p.commandId, err instanceof Error ? err : new Error(String(err)));
      }
    }
    if (plans.length) {
      if (plans.some((p) => p.move?.to === 'ESCROWED')) failpoint('escrow.pay.before-charge');
      try {
        const stored = await writePhasePlans(db, plans);
        for (const p of plans) {
          if (stored.has(p.commandId)) results.set(p.commandId, p.result);
          else again.push(p.commandId); // its escrow moved, or another run finished it: read again
        }
        if (plans.some((p) => stored.has(p.commandId) && p.move?.to === 'ESCROWED')) failpoint('escrow.pay.after-charge');
      } catch (err) {
        if (plans.length > 1) {
          // One command's failure is not the others': each alone.
          const alone = await Promise.all(plans.map((p) => runEscrowCommands(em, cards, [p.commandId])));
          for (const m of alone) for (const [id, r] of m) results.set(id, r);
        } else if (isContention(err)) {
          again.push(plans[0].commandId);
        } else {
          results.set(plans[0].commandId, err instanceof Error ? err : new Error(String(err)));
        }
      }
    }
    pending = again;
  }
  return results;
}

/**
 * A real card processor's authorizations for the batch's pays that would run, made before the
 * decision (src/invoices/card-charges.service.ts says why), by command. A pay whose provider
 * cannot answer gets that error as its outcome (it retries); the others go on.
 */
async function authorizePays(
  db: Db,
  provider: CardProvider,
  read: Map<string, ReadCommand>,
  results: Map<string, Outcome>,
): Promise<Map<string, CardAuthorizations>> {
  const authorized = new Map<string, CardAuthorizations>();
  await Promise.all(
    [...read.values()].map(async (command) => {
      const loaded = command.loaded;
      if (command.kind !== 'escrow.pay' || command.result || !loaded || loaded.paysMergedAccount) return;
      if (transitionDecision(loaded.escrow.status, 'pay') !== 'run' || loaded.invoice.paymentMethods.length === 0) return;
      try {
        authorized.set(command.id, await authorizeCardCharges(db, provider, command.id, loaded.invoice, loaded.methods, loaded.balances));
      } catch (err) {
        results.set(command.id, err instanceof Error ? err : new Error(String(err)));
      }
    }),
  );
  return authorized;
}

/**
 * After an escrow command's outcome is written (on every run of its job): a real processor's
 * authorizations of a pay are captured or released, a cancel's card charges refunded.
 */
async function settleWithProvider(db: Db, provider: CardProvider, commandId: string): Promise<void> {
  const command = (await readPhaseCommands(db, [commandId])).get(commandId);
  const loaded = command?.loaded;
  if (!command || !loaded) return;
  if (command.kind === 'escrow.pay') {
    // A hold left open (its capture failed) of an escrow cancelled meanwhile is released, never
    // captured: the cancel already gave the money back in the ledger.
    if (loaded.escrow.status === 'CANCELLED') await releaseCardAuthorizations(db, provider, commandId, loaded.invoice);
    else await settleCardAuthorizations(db, provider, commandId, loaded.invoice);
  } else if (command.kind === 'escrow.cancel' && loaded.escrow.status === 'CANCELLED' && loaded.escrow.cancelInvoiceId) {
    // Each card part's outcome is recorded on the cancel invoice: refunded, or refused and reversed
    // (the money stays with the integrator, reported in `refund-completed`). A part left without
    // one (the provider down past the job's retries) is found by the sweep (`cancelsWithOpenCardRefunds`).
    const cancelInvoiceId = loaded.escrow.cancelInvoiceId;
    const settled = await recordedCancelParts(db, cancelInvoiceId);
    // A disputed card part is not refunded: the processor gave it back to the cardholder already.
    const paid = { ...loaded.invoice, paymentMethods: withoutDisputedCharges(loaded.invoice.paymentMethods, loaded.disputed) };
    const outcomes = await refundCardCharges(db, provider, commandId, paid, cancelInvoiceId, settled);
    if (outcomes.size) await recordCancelRefunds(db, cancelInvoiceId, outcomes);
  }
}

/**
 * The cancel commands whose card refunds are not all recorded, their cancel invoice untouched for
 * `olderThanMs` (the provider was down past their job's retries, or a crash came between the
 * refund and its record): run again, such a done command refunds what is left under the same
 * idempotency keys (the step after the cancel runs on every run). The command is the escrow's
 * first done cancel, the one that cancelled it.
 */
export async function cancelsWithOpenRefunds(db: Db, olderThanMs: number): Promise<Array<{ id: string; kind: CommandKind }>> {
  const found: Array<{ id: string; kind: CommandKind }> = [];
  for (const c of await cancelsWithOpenCardRefunds(db, olderThanMs)) {
    const commandId = await firstDoneCommand(db, c.escrow_id, 'escrow.cancel');
    if (commandId) found.push({ id: commandId, kind: 'escrow.cancel' });
  }
  return found;
}

/**
 * The escrow runner paying cards through `cards`: runs one escrow command to its end (the
 * worker's job). Safe to run any number of times: a finished command returns its stored result;
 * an escrow already past the phase is answered as it stands; postings are unique per escrow and
 * phase. Rejects when the command could not be run (its job then retries with backoff). The
 * commands of a turn of the event loop run together (one batch per connection pool).
 */
export function escrowRunnerWith(cards: CardProcessor): (em: EntityManager, commandId: string) => Promise<CommandResult | null> {
  const runBatched = batchedPerPool(async (em: EntityManager, commandIds: string[]): Promise<Outcome[]> => {
    const results = await runEscrowCommands(em, cards, commandIds);
    return commandIds.map((id) => results.get(id) ?? null);
  }, 64);
  return async (em, commandId) => {
    const outcome = await runBatched(em, commandId);
    if (outcome instanceof Error) throw outcome;
    if (cards.provider && outcome) await settleWithProvider(pooled(em), cards.provider, commandId);
    return outcome;
  };
}

/** Runs one escrow command to its end on the sandbox card processor (see `escrowRunnerWith`). */
export const runEscrowCommand = escrowRunnerWith(sandboxCardProcessor);
