/**
 * The payouts module's command runners (safe to run again: a done command answers its stored
 * result, postings have unique references `payout:<id>:<phase>`):
 * - `payout.request`: under the account's lock, the request's checks again, then the payout
 *   (FUNDS-IN-ESCROW) and its `hold` posting, wallet → payout holding; at or under the
 *   integrator's automatic-approval limit it also submits the payout's `payout.execute`;
 * - `payout.execute`: the payout's next attempt at the payout rail (PROCESSING, committed
 *   before the rail's call), then the rail's answer: paid (`execute` posting, holding → payout
 *   clearing; SUCCESS), refused (FAILED, the money stays held) or taken (PROCESSING);
 * - `payout.settle`: a rail's later outcome for a PROCESSING payout (SUCCESS, FAILED, RETURNED
 *   with its `return` posting, holding → wallet; UNCLAIMED keeps it PROCESSING);
 * - `payout.reverse`: the money goes back to the wallet (`reverse` posting; USER-REVERSED or
 *   SUPPORT-REVERSED).
 * Each state change emits `payout-complete`. The runners that call the rail are made with the
 * adapter the process runs on (`payoutCommandRunners`).
 */
import { assertPayoutNotWaitingForDispute } from '../disputes/dispute.service.js';
import { lockWaitingHolds } from '../disputes/dispute.repository.js';
import { takeBackReturnedValue } from '../disputes/dispute-returns.service.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorOfAccount, lockAccount } from '../accounts/account.repository.js';
import { integratorSettings } from '../integrators/integrator.service.js';
import { assertCanPayOut } from '../blocks/block.service.js';
import { type AuditContext, recordAudit } from '../audit/audit.service.js';
import { inCommandStep, inCommandTransaction, type LockedCommand, runCommandWith, submitCommand } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { lockForPosting, post, systemAccount } from '../ledger/ledger.service.js';
import { fiatWalletOf, payoutDestination } from '../payment-methods/payment-method.repository.js';
import { findKycState, kycRequired } from '../kyc/kyc.service.js';
import type { PayoutRail, PayoutSendInput, PayoutSendResult } from '../rails/payout-rail.port.js';
import { RailUnavailableError } from '../rails/rail-unavailable.error.js';
import { payoutAttemptRef, paypalPayoutObjects } from '../rails/paypal-provider-object.rules.js';
import { failpoint } from '../runtime/failpoints.js';
import { exchangeReversalAccounts, linkExchangeToPayout, reverseTokenExchange } from '../tokens/conversion.service.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import { savePaypalAttemptObjects } from './payout-snapshot.service.js';
import { insertPayout, lockPayout, payoutById, recordRailReport, setPayoutStatus, startPayoutAttempt } from './payout.repository.js';
import {
  autoApproved,
  canExecute,
  canReverse,
  outcomeApplies,
  outcomeFailure,
  outcomeStatus,
  payoutEvent,
  payoutView,
  reversedStatus,
  senderBatchId,
  type ExecuteMode,
  type PayoutRecord,
  type RailOutcome,
  type ReverseBy,
} from './payout.rules.js';
import { checkPayoutRequest, payoutNotFound, payoutStateConflict, type PayoutRequest, type SettleInput } from './payout.service.js';

/** Records a payout's change: its event. */
async function changed(db: Db, payout: PayoutRecord): Promise<void> {
  await insertEvent(db, payout.integratorId, 'payout-complete', payoutEvent(payout));
}

export async function runPayoutRequest(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const input = command.input as unknown as PayoutRequest & { payout_id: string };
    const accountId = command.target_id;
    const integratorId = await integratorOfAccount(db, accountId);
    if (!integratorId) throw new Error(`payout request ${commandId}: account ${accountId} does not exist`);
    // One request of an account at a time: the limit and the balance are checked against what the others left.
    await lockAccount(db, integratorId, accountId, 'update');
    const walletId = (await fiatWalletOf(db, accountId, input.source_payment_method_id))?.ledgerAccountId;
    const holding = await systemAccount(db, integratorId, 'payout_holding', input.currency);
    await lockForPosting(db, [walletId, holding]);
    const wallet = await checkPayoutRequest(db, integratorId, accountId, input);
    const now = new Date();
    const payout: PayoutRecord = {
      id: input.payout_id,
      integratorId,
      accountId,
      status: 'FUNDS-IN-ESCROW',
      amount: input.amount,
      currency: input.currency,
      sourcePaymentMethodId: input.source_payment_method_id,
      destinationPaymentMethodId: input.destination_payment_method_id,
      tokenExchangeId: input.token_exchange_id ?? null,
      failureCode: null,
      failureReason: null,
      attempt: 0,
      attemptCommandId: null,
      providerBatchId: null,
      providerItemId: null,
      providerStatus: null,
      createdAt: now,
      updatedAt: now,
    };
    await insertPayout(db, payout);
    if (payout.tokenExchangeId) await linkExchangeToPayout(db, payout.tokenExchangeId, payout.id);
    await post(db, {
      integratorId,
      reference: `payout:${payout.id}:hold`,
      description: `payout ${payout.id} held`,
      entries: [
        { account: wallet, currency: payout.currency, amount: -payout.amount },
        { account: holding, currency: payout.currency, amount: payout.amount },
      ],
    });
    await changed(db, payout);
    const result: CommandResult = { status: 201, body: success(payoutView(payout)) };
    if (autoApproved(payout.amount, (await integratorSettings(db, integratorId)).payoutAutoApproveMax)) {
      const execute = await submitCommand(db, {
        integratorId,
        kind: 'payout.execute',
        targetId: payout.id,
        input: { mode: 'auto' },
        inputKey: 'auto',
      });
      result.next = [{ commandId: execute, kind: 'payout.execute' }];
    }
    return result;
  });
}

/**
 * `payout.execute`, in two transactions around the rail's call. First (`claimAttempt`) the
 * checks and the attempt: the payout becomes PROCESSING on its next attempt, owned by this
 * command, and is committed so before the rail hears of it (from then on it cannot be reversed,
 * so the rail can never pay a payout whose money went back to the wallet). Then the rail's call,
 * outside any transaction; a `RailUnavailableError` (or a crash) leaves the command pending and
 * its job retries with backoff: the run finds the payout PROCESSING on this command's attempt
 * and sends that attempt again, with the same `sender_batch_id`, which the rail never pays twice.
 * Last, in the command's transaction, PayPal's batch and item as it answered are stored
 * (`provider_object`, behind `payout:<id>:<attempt>`) and the rail's answer is applied as any outcome is
 * (`applyOutcome`): SUCCESS and FAILED settle it at once (the sandbox), PROCESSING leaves it for
 * `payout.settle`.
 */
function runPayoutExecute(rail: PayoutRail) {
  return async (em: EntityManager, commandId: string): Promise<CommandResult | null> => {
    const step = await inCommandStep(em, commandId, claimAttempt);
    if (!step) return null;
    if ('done' in step) return step.done;
    const sending = step.value;
    let answer: RailAnswer | undefined;
    if (sending && 'input' in sending) {
      answer = { attempt: sending.input.attempt, ...(await rail.send(sending.input)) };
      // A crash here: the rail took the attempt, nothing of its answer is committed.
      failpoint('payout.execute.after-send');
    } else if (sending) {
      answer = { attempt: sending.attempt, status: 'FAILED', ...sending.refused };
    }
    const result = await inCommandTransaction(em, commandId, async (db, command) => {
      const payout = await lockPayout(db, command.target_id);
      if (!payout) throw payoutNotFound();
      // What PayPal answered of the attempt (its batch and item), kept for operators and `ledger verify`.
      if (answer?.snapshot && rail.name === 'paypal')
        await savePaypalAttemptObjects(
          db,
          paypalPayoutObjects(answer.snapshot, payout.integratorId, payoutAttemptRef(payout.id, answer.attempt)),
        );
      if (answer) await applyOutcome(db, payout, railOutcome(answer));
      return { status: 200, body: success(payoutView(payout)) };
    });
    // A crash here: the execution is committed, the job not yet finished in Redis.
    failpoint('payout.execute.after-commit');
    return result;
  };
}

/** What the rail answered of an attempt (or, for a destination gone, the refusal made without it). */
type RailAnswer = PayoutSendResult & { attempt: number };

/**
 * The execution's first transaction: null when there is nothing to send (an automatic approval
 * of a payout reversed or executed first); else the attempt to send — or, when its destination
 * is no longer the account's PayPal method, the refusal to record without calling the rail.
 */
async function claimAttempt(
  db: Db,
  command: LockedCommand,
): Promise<{ input: PayoutSendInput } | { attempt: number; refused: { failureCode: string; failureReason: string } } | null> {
  const mode = ((command.input as { mode?: ExecuteMode } | null)?.mode ?? 'approve') as ExecuteMode;
  const payout = await lockPayout(db, command.target_id);
  if (!payout) throw payoutNotFound();
  // This command's attempt, started by a run that did not finish: the same attempt again.
  if (payout.status === 'PROCESSING' && payout.attemptCommandId === command.id) return attemptToSend(db, payout, false);
  if (mode === 'auto' && payout.status !== 'FUNDS-IN-ESCROW') return null;
  if (!canExecute(payout.status, mode)) throw payoutStateConflict(payout, mode === 'staging' ? 'executed at once' : 'approved');
  await assertCanPayOut(db, payout.accountId);
  // A payout holding value an open card dispute traced waits for the dispute.
  await assertPayoutNotWaitingForDispute(db, payout.id);
  // Money leaves only an account whose identity check stands (a block lifted by hand does not bypass it).
  const kyc = await findKycState(db, payout.accountId);
  if (kyc !== 'ACCEPT') throw kycRequired(kyc);
  // A crash here: nothing of the execution is committed.
  failpoint('payout.execute.before-post');
  const before = { status: payout.status, attempt: payout.attempt };
  payout.attempt += 1;
  payout.status = 'PROCESSING';
  payout.updatedAt = await startPayoutAttempt(db, payout.id, payout.attempt, command.id);
  // An approval (the CLI's, or the staging PATCH): recorded with the attempt it starts.
  if (command.audit)
    await recordAudit(db, {
      integratorId: payout.integratorId,
      context: command.audit,
      action: 'payout.approve',
      target: { type: 'payout', id: payout.id },
      before,
      after: { status: payout.status, attempt: payout.attempt, amount: payout.amount, currency: payout.currency },
    });
  return attemptToSend(db, payout, true);
}

/**
 * The attempt's call to the rail. A destination that is no longer the account's PayPal method
 * fails an attempt the rail has not heard of (`fresh`, started in this transaction); once the
 * rail may have it, the attempt is never failed here (the rail could still pay it): the command
 * errs and retries, for an operator to see.
 */
async function attemptToSend(db: Db, payout: PayoutRecord, fresh: boolean) {
  const destination = await payoutDestination(db, payout.accountId, payout.destinationPaymentMethodId);
  if (!destination) {
    if (!fresh) throw new Error(`payout ${payout.id}: its destination is gone while attempt ${payout.attempt} may be with the rail`);
    return {
      attempt: payout.attempt,
      refused: { failureCode: 'destination_rejected', failureReason: "The destination is no longer one of the account's payout methods." },
    };
  }
  const input: PayoutSendInput = {
    payoutId: payout.id,
    attempt: payout.attempt,
    senderBatchId: senderBatchId(payout.id, payout.attempt),
    resend: !fresh,
    amount: payout.amount,
    currency: payout.currency,
    receiver: destination.email,
    note: `Payout ${payout.id}`,
  };
  return { input };
}

/** The rail's answer to `send` as an outcome. */
function railOutcome(answer: RailAnswer): PayoutOutcome {
  const status: RailOutcome | 'PROCESSING' = answer.status === 'SUCCESS' ? 'SUCCEEDED' : answer.status;
  return {
    status,
    attempt: answer.attempt,
    providerBatchId: answer.providerBatchId,
    providerItemId: answer.providerItemId,
    failureCode: answer.failureCode,
    failureReason: answer.failureReason,
    snapshot: answer.snapshot,
  };
}

/** A rail's report on one attempt of a payout: an outcome, or (from `send`) PROCESSING. */
export interface PayoutOutcome {
  status: RailOutcome | 'PROCESSING';
  attempt: number;
  providerBatchId?: string | null;
  providerItemId?: string | null;
  failureCode?: string | null;
  failureReason?: string | null;
  snapshot?: Record<string, unknown> | null;
}

/**
 * Applies a rail's report to a payout (locked by the caller): when `outcomeApplies` (PROCESSING,
 * this attempt) it records what the rail said and moves the payout — SUCCESS posts `execute`
 * (payout holding → payout clearing), RETURNED posts `return` (payout holding → the source
 * wallet; a payout of a token conversion reverses the conversion too, as a reversal does),
 * FAILED keeps the money held, PROCESSING and UNCLAIMED move nothing — and emits
 * `payout-complete` for a new state, or for a payout the rail has taken and left PROCESSING
 * (not for the moment it passes through PROCESSING within its execution). Any other report
 * changes nothing. Mutates `payout`; answers whether it applied.
 */
async function applyOutcome(db: Db, payout: PayoutRecord, outcome: PayoutOutcome): Promise<boolean> {
  if (!outcomeApplies(payout, outcome.attempt)) return false;
  await recordRailReport(db, payout.id, { ...outcome, providerStatus: outcome.status });
  payout.providerBatchId = outcome.providerBatchId ?? payout.providerBatchId;
  payout.providerItemId = outcome.providerItemId ?? payout.providerItemId;
  payout.providerStatus = outcome.status;
  const next = outcome.status === 'PROCESSING' ? 'PROCESSING' : outcomeStatus(outcome.status);
  if (next === 'PROCESSING') {
    // Once, when the rail has taken the attempt (its `send` answered); an UNCLAIMED report changes nothing the integrator sees.
    if (outcome.status === 'PROCESSING') await changed(db, payout);
    return true;
  }
  if (next === 'SUCCESS') {
    const holding = await systemAccount(db, payout.integratorId, 'payout_holding', payout.currency);
    const clearing = await systemAccount(db, payout.integratorId, 'payout_clearing', payout.currency);
    await lockForPosting(db, [holding, clearing]);
    await post(db, {
      integratorId: payout.integratorId,
      reference: `payout:${payout.id}:execute`,
      description: `payout ${payout.id} paid out`,
      entries: [
        { account: holding, currency: payout.currency, amount: -payout.amount },
        { account: clearing, currency: payout.currency, amount: payout.amount },
      ],
    });
    payout.failureCode = null;
    payout.failureReason = null;
  } else if (next === 'RETURNED') {
    await returnToWallet(db, payout);
  } else {
    const failure = outcomeFailure(outcome.status as RailOutcome, outcome.failureCode, outcome.failureReason);
    payout.failureCode = failure.code;
    payout.failureReason = failure.reason;
  }
  payout.status = next;
  payout.updatedAt = await setPayoutStatus(db, payout.id, payout.status, { code: payout.failureCode, reason: payout.failureReason });
  await changed(db, payout);
  return true;
}

/** A returned payout's money back in its source wallet (`return` posting), and its token conversion reversed. */
async function returnToWallet(db: Db, payout: PayoutRecord): Promise<void> {
  await postBackToWallet(db, payout, 'return', 'returned by the rail');
}

/**
 * Moves a payout's money from payout holding back to its source wallet (posting
 * `payout:<id>:<phase>`) and, for a payout that took a token conversion's money, reverses the
 * conversion (the money goes back to the integrator, the tokens to the convertible wallet): its
 * accounts are locked with the payout's, all at once, in the one order.
 */
async function postBackToWallet(db: Db, payout: PayoutRecord, phase: 'reverse' | 'return', what: string): Promise<void> {
  const wallet = await fiatWalletOf(db, payout.accountId, payout.sourcePaymentMethodId);
  if (!wallet) throw new Error(`payout ${payout.id}: its source wallet is gone`);
  const holding = await systemAccount(db, payout.integratorId, 'payout_holding', payout.currency);
  const exchange = payout.tokenExchangeId ? await exchangeReversalAccounts(db, payout.tokenExchangeId) : [];
  await lockForPosting(db, [wallet.ledgerAccountId, holding, ...exchange]);
  await post(db, {
    integratorId: payout.integratorId,
    reference: `payout:${payout.id}:${phase}`,
    description: `payout ${payout.id} ${what}`,
    entries: [
      { account: holding, currency: payout.currency, amount: -payout.amount },
      { account: wallet.ledgerAccountId, currency: payout.currency, amount: payout.amount },
    ],
  });
  if (payout.tokenExchangeId) await reverseTokenExchange(db, payout.tokenExchangeId);
}

/**
 * `payout.settle`: applies a rail's outcome (the command's input, `SettleInput`) to its payout
 * with `applyOutcome` — only a PROCESSING payout on the outcome's attempt moves; a duplicate, an
 * older attempt's outcome or one after the payout settled is answered with the payout as it is.
 */
export async function runPayoutSettle(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const input = command.input as unknown as SettleInput;
    const payout = await lockPayout(db, command.target_id);
    if (!payout) throw payoutNotFound();
    const before = { status: payout.status, attempt: payout.attempt };
    const applied = await applyOutcome(db, payout, {
      status: input.status,
      attempt: input.attempt,
      providerBatchId: input.provider_batch_id,
      providerItemId: input.provider_item_id,
      failureCode: input.failure_code,
      failureReason: input.failure_reason,
      snapshot: input.snapshot,
    });
    // A rail outcome a client gave (the staging PATCH), not the provider's.
    if (applied && command.audit)
      await recordAudit(db, {
        integratorId: payout.integratorId,
        context: command.audit,
        action: 'payout.rail_outcome',
        target: { type: 'payout', id: payout.id },
        before,
        after: { status: payout.status, attempt: payout.attempt, rail_outcome: input.status },
      });
    return { status: 200, body: success(payoutView(payout)) };
  });
}

export async function runPayoutReverse(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const by = ((command.input as { by?: ReverseBy } | null)?.by ?? 'user') as ReverseBy;
    const { payout, reversed, before } = await reverseLockedPayout(db, command.target_id, by);
    if (!payout) throw payoutNotFound();
    if (!reversed || !before) throw payoutStateConflict(payout, 'reversed');
    // The operator's rejection (`holdfast payouts reject`); a user's reversal is no operator action.
    if (command.audit)
      await recordAudit(db, {
        integratorId: payout.integratorId,
        context: command.audit,
        action: 'payout.reject',
        target: { type: 'payout', id: payout.id },
        before: { status: before },
        after: { status: payout.status, amount: payout.amount, currency: payout.currency },
      });
    return { status: 200, body: success(payoutView(payout)) };
  });
}

/**
 * Reverses a payout in the caller's transaction when it can be (FUNDS-IN-ESCROW or FAILED): the
 * money back to its wallet (`reverse` posting, a conversion it took reversed too), the new
 * status, `payout-complete`. Value a dispute traced into the payout (its `payout_waiting`
 * holds) is held where it landed (clawed back at once for a lost dispute): it is still the
 * disputed value. Answers the payout as it is now (undefined: there is none) and whether this
 * reversed it. The disputes waiting on it are locked first, as a dispute's
 * close locks them before it reverses the payout: one order, no deadlock.
 */
async function reverseLockedPayout(
  db: Db,
  payoutId: string,
  by: ReverseBy,
): Promise<{ payout?: PayoutRecord; reversed: boolean; before?: PayoutRecord['status'] }> {
  await lockWaitingHolds(db, 'payout_waiting', payoutId);
  const payout = await lockPayout(db, payoutId);
  if (!payout || !canReverse(payout.status)) return { payout, reversed: false };
  const before = payout.status;
  await postBackToWallet(db, payout, 'reverse', 'reversed');
  const back = [`payout:${payout.id}:reverse`, ...(payout.tokenExchangeId ? [`exchange:${payout.tokenExchangeId}:reverse`] : [])];
  await takeBackReturnedValue(db, 'payout_waiting', payout.id, back, payout.amount);
  payout.status = reversedStatus(by);
  payout.updatedAt = await setPayoutStatus(db, payout.id, payout.status, { code: payout.failureCode, reason: payout.failureReason });
  await changed(db, payout);
  return { payout, reversed: true, before };
}

/**
 * A lost dispute's reversal of a payout not yet sent that holds its value (the dispute runners
 * get it where the runners are assembled): SUPPORT-REVERSED, in the dispute's transaction.
 * Answers whether it was reversed (false: it had moved on, or is gone).
 */
export async function reversePayoutForDispute(db: Db, payoutId: string): Promise<boolean> {
  return (await reverseLockedPayout(db, payoutId, 'support')).reversed;
}

/** The payouts module's runners, the execution on `rail` (the adapter the process runs on). */
export function payoutCommandRunners(rail: PayoutRail): CommandRunners {
  return {
    'payout.request': runPayoutRequest,
    'payout.execute': runPayoutExecute(rail),
    'payout.settle': runPayoutSettle,
    'payout.reverse': runPayoutReverse,
  };
}

/**
 * The operator's `holdfast payouts approve|reject ID`: submits the payout's `payout.execute`
 * (approval; a FAILED payout is retried, a new attempt) or `payout.reverse` (SUPPORT-REVERSED)
 * command and runs it in this process, on `rail`, carrying `audit` (the operator, the reason)
 * for the runner to record the decision in the audit trail. Answers the command's result (the payout, or
 * the refusal); when the rail is unavailable, 202 with the payout as it stands (PROCESSING): the
 * command stays pending and a worker's sweeper runs it again.
 */
export async function operatorPayoutCommand(
  em: EntityManager,
  rail: PayoutRail,
  payoutId: string,
  action: 'approve' | 'reject',
  audit?: AuditContext,
): Promise<CommandResult> {
  const db = pooled(em);
  const payout = await payoutById(db, payoutId);
  if (!payout) throw payoutNotFound();
  const kind = action === 'approve' ? 'payout.execute' : 'payout.reverse';
  const commandId = await submitCommand(db, {
    integratorId: payout.integratorId,
    kind,
    targetId: payout.id,
    input: action === 'approve' ? { mode: 'approve' } : { by: 'support' },
    inputKey: action,
    audit,
  });
  try {
    const result = await runCommandWith(payoutCommandRunners(rail)[kind]!, em, commandId);
    return result ?? { status: 404, body: null };
  } catch (err) {
    if (!(err instanceof RailUnavailableError)) throw err;
    const current = (await payoutById(db, payoutId)) ?? payout;
    return { status: 202, body: success(payoutView(current)) };
  }
}
