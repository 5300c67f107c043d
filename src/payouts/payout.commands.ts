/**
 * The payouts module's command runners (each in one transaction, safe to run again: a done
 * command answers its stored result, postings have unique references `payout:<id>:<phase>`):
 * - `payout.request`: under the account's lock, the request's checks again, then the payout
 *   (FUNDS-IN-ESCROW) and its `hold` posting, wallet → payout holding; at or under the
 *   integrator's automatic-approval limit it also submits the payout's `payout.execute`;
 * - `payout.execute`: the sandbox provider pays the destination (`execute` posting, holding →
 *   payout clearing; SUCCESS) or refuses it (FAILED, the money stays held);
 * - `payout.reverse`: the money goes back to the wallet (`reverse` posting; USER-REVERSED or
 *   SUPPORT-REVERSED).
 * Each state change emits `payout-complete`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorOfAccount, lockAccount } from '../accounts/account.repository.js';
import { integratorSettings } from '../integrators/integrator.service.js';
import { assertCanPayOut } from '../blocks/block.service.js';
import { inCommandTransaction, runCommandWith, submitCommand } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { lockForPosting, post, systemAccount } from '../ledger/ledger.service.js';
import { fiatWalletOf, payoutDestination } from '../payment-methods/payment-method.repository.js';
import { findKycState, kycRequired } from '../kyc/kyc.service.js';
import { failpoint } from '../runtime/failpoints.js';
import { exchangeReversalAccounts, linkExchangeToPayout, reverseTokenExchange } from '../tokens/conversion.service.js';
import { insertEvent } from '../webhooks/outbox.repository.js';
import { insertPayout, lockPayout, payoutById, setPayoutStatus } from './payout.repository.js';
import {
  autoApproved,
  canExecute,
  canReverse,
  payoutEvent,
  payoutView,
  reversedStatus,
  sandboxExecution,
  type ExecuteMode,
  type PayoutRecord,
  type ReverseBy,
} from './payout.rules.js';
import { checkPayoutRequest, payoutNotFound, payoutStateConflict, type PayoutRequest } from './payout.service.js';

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

export async function runPayoutExecute(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  const result = await executeInCommand(em, commandId);
  // A crash here: the execution is committed, the job not yet finished in Redis.
  failpoint('payout.execute.after-commit');
  return result;
}

function executeInCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const mode = ((command.input as { mode?: ExecuteMode } | null)?.mode ?? 'approve') as ExecuteMode;
    const payout = await lockPayout(db, command.target_id);
    if (!payout) throw payoutNotFound();
    // Automatic approval of a payout reversed (or executed) first: nothing left to do.
    if (mode === 'auto' && payout.status !== 'FUNDS-IN-ESCROW') return { status: 200, body: success(payoutView(payout)) };
    if (!canExecute(payout.status, mode)) throw payoutStateConflict(payout, mode === 'staging' ? 'executed at once' : 'approved');
    await assertCanPayOut(db, payout.accountId);
    // Money leaves only an account whose identity check stands (a block lifted by hand does not bypass it).
    const kyc = await findKycState(db, payout.accountId);
    if (kyc !== 'ACCEPT') throw kycRequired(kyc);
    const destination = await payoutDestination(db, payout.accountId, payout.destinationPaymentMethodId);
    const verdict = sandboxExecution(destination?.sandboxOutcome ?? 'payout_fails');
    // A crash here: nothing of the execution is committed.
    failpoint('payout.execute.before-post');
    if (verdict.ok) {
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
      payout.status = 'SUCCESS';
      payout.failureCode = null;
      payout.failureReason = null;
    } else {
      payout.status = 'FAILED';
      payout.failureCode = verdict.code;
      payout.failureReason = verdict.reason;
    }
    payout.updatedAt = await setPayoutStatus(db, payout.id, payout.status, { code: payout.failureCode, reason: payout.failureReason });
    await changed(db, payout);
    return { status: 200, body: success(payoutView(payout)) };
  });
}

export async function runPayoutReverse(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const by = ((command.input as { by?: ReverseBy } | null)?.by ?? 'user') as ReverseBy;
    const payout = await lockPayout(db, command.target_id);
    if (!payout) throw payoutNotFound();
    if (!canReverse(payout.status)) throw payoutStateConflict(payout, 'reversed');
    const wallet = await fiatWalletOf(db, payout.accountId, payout.sourcePaymentMethodId);
    if (!wallet) throw new Error(`payout ${payout.id}: its source wallet is gone`);
    const holding = await systemAccount(db, payout.integratorId, 'payout_holding', payout.currency);
    // A payout that took a conversion's money reverses the conversion too: its accounts are
    // locked with the payout's, all at once, in the one order.
    const exchange = payout.tokenExchangeId ? await exchangeReversalAccounts(db, payout.tokenExchangeId) : [];
    await lockForPosting(db, [wallet.ledgerAccountId, holding, ...exchange]);
    await post(db, {
      integratorId: payout.integratorId,
      reference: `payout:${payout.id}:reverse`,
      description: `payout ${payout.id} reversed`,
      entries: [
        { account: holding, currency: payout.currency, amount: -payout.amount },
        { account: wallet.ledgerAccountId, currency: payout.currency, amount: payout.amount },
      ],
    });
    // The payout took a conversion's money: reversing the payout reverses the conversion too
    // (the money goes back to the integrator, the tokens to the convertible wallet).
    if (payout.tokenExchangeId) await reverseTokenExchange(db, payout.tokenExchangeId);
    payout.status = reversedStatus(by);
    payout.updatedAt = await setPayoutStatus(db, payout.id, payout.status, { code: payout.failureCode, reason: payout.failureReason });
    await changed(db, payout);
    return { status: 200, body: success(payoutView(payout)) };
  });
}

export const payoutCommands: CommandRunners = {
  'payout.request': runPayoutRequest,
  'payout.execute': runPayoutExecute,
  'payout.reverse': runPayoutReverse,
};

/**
 * The operator's `holdfast payouts approve|reject ID`: submits the payout's `payout.execute`
 * (approval; a FAILED payout is retried) or `payout.reverse` (SUPPORT-REVERSED) command and runs
 * it in this process. Answers the command's result (the payout, or the refusal).
 */
export async function operatorPayoutCommand(em: EntityManager, payoutId: string, action: 'approve' | 'reject'): Promise<CommandResult> {
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
  });
  const result = await runCommandWith(payoutCommands[kind]!, em, commandId);
  return result ?? { status: 404, body: null };
}
