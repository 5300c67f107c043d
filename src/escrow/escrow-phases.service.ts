/**
 * The escrow phases a worker runs for a command: pay, commit, cancel. Each runs in one
 * transaction that locks the command and the escrow, decides from the escrow's state, moves
 * money through ledger postings whose references name the escrow and the phase (so a job that
 * runs twice cannot move money twice), writes the phase invoice and the outbox events, and
 * finishes the command with the HTTP answer.
 */
import { LockMode } from '@mikro-orm/core';
import { integratorProfile } from '../auth/auth.service.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../ids.js';
import { completeCommand, lockCommand, type CommandKind, type CommandResult } from '../commands/command.service.js';
import { failure, success } from '../http/envelope.js';
import { Invoice, type IInvoice } from '../invoices/invoice.entity.js';
import { invoiceView } from '../invoices/invoice.rules.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { recordEvent } from '../webhooks/outbox.service.js';
import { failpoint } from '../runtime/failpoints.js';
import { Escrow, type IEscrow } from './escrow.entity.js';
import { escrowView, transitionDecision, TRANSITION_TARGET, type EscrowTransition } from './escrow.rules.js';
import { paymentFailure, prepareCharges, settle } from '../invoices/settlement.service.js';

const TRANSITIONS: Partial<Record<CommandKind, EscrowTransition>> = { 'escrow.pay': 'pay', 'escrow.commit': 'commit', 'escrow.cancel': 'cancel' };

function phaseInvoice(escrow: IEscrow, from: IInvoice, type: string, charges: IInvoice['paymentMethods']) {
  const now = new Date();
  return {
    id: newId('inv'),
    integratorId: escrow.integratorId,
    accountId: escrow.accountId,
    escrowId: escrow.id,
    invoiceType: `${type}${escrow.currency === 'USD' ? '' : '_virtual'}`,
    state: 'SUCCESS' as const,
    referenceType: from.referenceType,
    referenceId: from.referenceId,
    description: from.description,
    metadata: from.metadata,
    currency: from.currency,
    totalAmount: from.totalAmount,
    failureReason: null,
    paymentMethods: charges,
    lineItems: from.lineItems,
    createdAt: now,
    updatedAt: now,
  };
}

async function pay(em: EntityManager, escrow: IEscrow, invoice: IInvoice): Promise<Posting[]> {
  const sources = await prepareCharges(em, escrow.integratorId, escrow.currency, invoice.paymentMethods, true);
  const reason = paymentFailure(sources);
  if (reason) {
    // Nothing was charged: all-or-nothing, decided before any posting.
    escrow.status = 'ESCROW-FAILED';
    invoice.state = 'FAILED';
    invoice.failureReason = reason;
    return [];
  }
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  escrow.status = 'ESCROWED';
  invoice.state = 'SUCCESS';
  return [{
    integratorId: escrow.integratorId,
    reference: `escrow:${escrow.id}:pay`,
    description: `escrow ${escrow.id} pay`,
    entries: [
      ...sources.map((s) => ({ account: s.account, currency: escrow.currency, amount: -s.amount })),
      { account: holding, currency: escrow.currency, amount: escrow.totalAmount },
    ],
  }];
}

async function commit(em: EntityManager, escrow: IEscrow, invoice: IInvoice): Promise<Posting[]> {
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  const commitInvoice = em.create(Invoice, phaseInvoice(escrow, invoice, 'user_purchase_commit_escrow', []));
  escrow.commitInvoiceId = commitInvoice.id;
  escrow.status = 'COMMITTED';
  return settle(em, {
    integratorId: escrow.integratorId,
    currency: escrow.currency,
    reference: `escrow:${escrow.id}:commit`,
    description: `escrow ${escrow.id} commit`,
    from: [{ account: holding, currency: escrow.currency, amount: -escrow.totalAmount }],
    lineItems: invoice.lineItems,
  });
}

async function cancel(em: EntityManager, escrow: IEscrow, invoice: IInvoice): Promise<Posting[]> {
  const sources = await prepareCharges(em, escrow.integratorId, escrow.currency, invoice.paymentMethods, false);
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  const cancelInvoice = em.create(Invoice, phaseInvoice(escrow, invoice, 'user_purchase_refund_escrow', invoice.paymentMethods));
  escrow.cancelInvoiceId = cancelInvoice.id;
  escrow.status = 'CANCELLED';
  return [{
    integratorId: escrow.integratorId,
    reference: `escrow:${escrow.id}:cancel`,
    description: `escrow ${escrow.id} refund`,
    entries: [
      { account: holding, currency: escrow.currency, amount: -escrow.totalAmount },
      ...sources.map((s) => ({ account: s.account, currency: escrow.currency, amount: s.amount })),
    ],
  }];
}

/** The HTTP answer for an escrow in a state that refuses a transition. */
export function stateConflict(escrow: IEscrow, transition: EscrowTransition, integrator: string): CommandResult {
  return {
    status: 409,
    body: failure([`The escrow is ${escrow.status}; ${transition} is not allowed.`], ['ESCROW_STATE_ERROR'], escrowView(escrow, integrator)),
  };
}

/**
 * Runs one escrow command to its end (the worker's job). Safe to run any number of times:
 * a finished command returns its stored result; an escrow already past the phase is answered
 * as it stands; postings are unique per escrow and phase.
 */
export async function runEscrowCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return em.transactional(async (tx) => {
    const command = await lockCommand(tx, commandId);
    if (!command) return null;
    if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
    const transition = TRANSITIONS[command.kind];
    if (!transition) throw new Error(`command ${commandId} (${command.kind}) is not an escrow command`);
    const escrow = await tx.findOne(Escrow, { id: command.target_id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!escrow) {
      const gone = { status: 404, body: failure(['Escrow not found.'], ['ESCROW_GET_ERROR'], null) };
      await completeCommand(tx, commandId, gone);
      return gone;
    }
    const integrator = (await integratorProfile(tx, escrow.integratorId)).name;
    let result: CommandResult;
    const postings: Posting[] = [];
    switch (transitionDecision(escrow.status, transition)) {
      case 'already':
        result = { status: 200, body: success(escrowView(escrow, integrator)) };
        break;
      case 'conflict':
        result = stateConflict(escrow, transition, integrator);
        break;
      case 'run': {
        const invoice = await tx.findOneOrFail(Invoice, { id: escrow.escrowInvoiceId });
        const phase = transition === 'pay' ? pay : transition === 'commit' ? commit : cancel;
        postings.push(...await phase(tx, escrow, invoice));
        if (transition !== 'pay' && escrow.status !== TRANSITION_TARGET[transition]) throw new Error(`escrow ${escrow.id} did not reach ${TRANSITION_TARGET[transition]}`);
        escrow.updatedAt = new Date();
        invoice.updatedAt = new Date();
        await tx.flush();
        const view = escrowView(escrow, integrator);
        recordEvent(tx, escrow.integratorId, 'escrow-transaction-update', view);
        if (transition === 'pay') recordEvent(tx, escrow.integratorId, 'invoice-completed', invoiceView(invoice));
        result = { status: 200, body: success(view) };
        break;
      }
    }
    await tx.flush();
    await completeCommand(tx, commandId, result);
    // Last, so the busiest rows (escrow holding, clearing, publisher wallets) stay locked only
    // from here to the commit.
    if (postings.length) await post(tx, ...postings);
    if (postings.length && transition === 'pay') failpoint('escrow.pay.after-charge');
    return result;
  });
}
