/**
 * The escrow phases a worker runs for a command: pay, commit, cancel. Each runs in one
 * transaction (plain SQL on a pooled connection: this is the hot path) that locks the command
 * and the escrow, decides from the escrow's state, moves money through ledger postings whose
 * references name the escrow and the phase (so a job that runs twice cannot move money twice),
 * writes the phase invoice and the outbox events, and finishes the command with the HTTP
 * answer. Postings go last, so the busiest ledger rows are touched only just before commit.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorProfile } from '../auth/auth.service.js';
import { completeCommand, lockCommand, type CommandKind, type CommandResult } from '../commands/command.service.js';
import { inTransaction, type Executor } from '../db/sql.js';
import { failure, success } from '../http/envelope.js';
import { newId } from '../ids.js';
import type { StoredCharge, StoredLineItem } from '../invoices/invoice.entity.js';
import { invoiceView, type InvoiceRecord } from '../invoices/invoice.rules.js';
import { paymentFailure, prepareCharges, settle } from '../invoices/settlement.service.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { failpoint } from '../runtime/failpoints.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { escrowFromRow, escrowView, transitionDecision, TRANSITION_TARGET, type EscrowRecord, type EscrowStatus, type EscrowTransition } from './escrow.rules.js';

const TRANSITIONS: Partial<Record<CommandKind, EscrowTransition>> = { 'escrow.pay': 'pay', 'escrow.commit': 'commit', 'escrow.cancel': 'cancel' };

interface Loaded {
  escrow: EscrowRecord;
  invoice: InvoiceRecord;
}

/** Locks the escrow and reads it with its escrow invoice, in one statement. */
async function loadEscrow(db: Executor, escrowId: string): Promise<Loaded | null> {
  const [r] = await db.execute<Array<Record<string, any>>>(
    `select e.id, e.integrator_id, e.account_id, e.status, e.currency, e.total_amount, e.escrow_invoice_id, e.commit_invoice_id,
            e.cancel_invoice_id, e.metadata, e.created_at, e.updated_at,
            i.invoice_type, i.state, i.reference_type, i.reference_id, i.description, i.metadata as invoice_metadata,
            i.failure_reason, i.payment_methods, i.line_items, i.created_at as invoice_created_at, i.updated_at as invoice_updated_at
       from escrow e join invoice i on i.id = e.escrow_invoice_id
      where e.id = ? for update of e`, [escrowId]);
  if (!r) return null;
  const escrow = escrowFromRow(r);
  const invoice: InvoiceRecord = {
    id: r.escrow_invoice_id, integratorId: r.integrator_id, accountId: r.account_id, escrowId: r.id, invoiceType: r.invoice_type,
    state: r.state, referenceType: r.reference_type, referenceId: r.reference_id, description: r.description, metadata: r.invoice_metadata,
    currency: r.currency, totalAmount: Number(r.total_amount), failureReason: r.failure_reason,
    paymentMethods: r.payment_methods as StoredCharge[], lineItems: r.line_items as StoredLineItem[],
    createdAt: new Date(r.invoice_created_at), updatedAt: new Date(r.invoice_updated_at),
  };
  return { escrow, invoice };
}

/** Writes the invoice of a commit or cancel phase (SUCCESS) and returns its id. */
async function insertPhaseInvoice(db: Executor, escrow: EscrowRecord, from: InvoiceRecord, type: string, charges: StoredCharge[]): Promise<string> {
  const id = newId('inv');
  await db.execute(
    `insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description,
                          metadata, currency, total_amount, failure_reason, payment_methods, line_items)
     values (?, ?, ?, ?, ?, 'SUCCESS', ?, ?, ?, ?::jsonb, ?, ?, null, ?::jsonb, ?::jsonb)`,
    [id, escrow.integratorId, escrow.accountId, escrow.id, `${type}${escrow.currency === 'USD' ? '' : '_virtual'}`, from.referenceType,
      from.referenceId, from.description, JSON.stringify(from.metadata), from.currency, from.totalAmount, JSON.stringify(charges),
      JSON.stringify(from.lineItems)]);
  return id;
}

type Phase = (db: Executor, em: EntityManager, loaded: Loaded) => Promise<{ status: EscrowStatus; postings: Posting[] }>;

const pay: Phase = async (db, em, { escrow, invoice }) => {
  const sources = await prepareCharges(db, em, escrow.integratorId, escrow.currency, invoice.paymentMethods, true);
  const reason = paymentFailure(sources);
  if (reason) {
    // Nothing was charged: all-or-nothing, decided before any posting.
    invoice.state = 'FAILED';
    invoice.failureReason = reason;
    return { status: 'ESCROW-FAILED', postings: [] };
  }
  invoice.state = 'SUCCESS';
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  return {
    status: 'ESCROWED',
    postings: [{
      integratorId: escrow.integratorId,
      reference: `escrow:${escrow.id}:pay`,
      description: `escrow ${escrow.id} pay`,
      entries: [
        ...sources.map((s) => ({ account: s.account, currency: escrow.currency, amount: -s.amount })),
        { account: holding, currency: escrow.currency, amount: escrow.totalAmount },
      ],
    }],
  };
};

const commit: Phase = async (db, em, { escrow, invoice }) => {
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  escrow.commitInvoiceId = await insertPhaseInvoice(db, escrow, invoice, 'user_purchase_commit_escrow', []);
  return {
    status: 'COMMITTED',
    postings: await settle(db, em, {
      integratorId: escrow.integratorId,
      currency: escrow.currency,
      reference: `escrow:${escrow.id}:commit`,
      description: `escrow ${escrow.id} commit`,
      from: [{ account: holding, currency: escrow.currency, amount: -escrow.totalAmount }],
      lineItems: invoice.lineItems,
    }),
  };
};

const cancel: Phase = async (db, em, { escrow, invoice }) => {
  const sources = await prepareCharges(db, em, escrow.integratorId, escrow.currency, invoice.paymentMethods, false);
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  escrow.cancelInvoiceId = await insertPhaseInvoice(db, escrow, invoice, 'user_purchase_refund_escrow', invoice.paymentMethods);
  return {
    status: 'CANCELLED',
    postings: [{
      integratorId: escrow.integratorId,
      reference: `escrow:${escrow.id}:cancel`,
      description: `escrow ${escrow.id} refund`,
      entries: [
        { account: holding, currency: escrow.currency, amount: -escrow.totalAmount },
        ...sources.map((s) => ({ account: s.account, currency: escrow.currency, amount: s.amount })),
      ],
    }],
  };
};

const PHASES: Record<EscrowTransition, Phase> = { pay, commit, cancel };

/** The HTTP answer for an escrow in a state that refuses a transition. */
export function stateConflict(escrow: EscrowRecord, transition: EscrowTransition, integrator: string): CommandResult {
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
  return inTransaction(em, async (db) => {
    const command = await lockCommand(db, commandId);
    if (!command) return null;
    if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
    const transition = TRANSITIONS[command.kind];
    if (!transition) throw new Error(`command ${commandId} (${command.kind}) is not an escrow command`);
    const loaded = await loadEscrow(db, command.target_id);
    if (!loaded) {
      const gone = { status: 404, body: failure(['Escrow not found.'], ['ESCROW_GET_ERROR'], null) };
      await completeCommand(db, commandId, gone);
      return gone;
    }
    const { escrow, invoice } = loaded;
    const integrator = (await integratorProfile(em, escrow.integratorId)).name;
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
        const outcome = await PHASES[transition](db, em, loaded);
        if (transition !== 'pay' && outcome.status !== TRANSITION_TARGET[transition]) throw new Error(`escrow ${escrow.id} did not reach ${TRANSITION_TARGET[transition]}`);
        postings.push(...outcome.postings);
        const [updated] = await db.execute<Array<{ updated_at: Date }>>(
          `update escrow set status = ?, commit_invoice_id = ?, cancel_invoice_id = ?, updated_at = now() where id = ? returning updated_at`,
          [outcome.status, escrow.commitInvoiceId, escrow.cancelInvoiceId, escrow.id]);
        escrow.status = outcome.status;
        escrow.updatedAt = new Date(updated.updated_at);
        const view = escrowView(escrow, integrator);
        await insertEvent(db, escrow.integratorId, 'escrow-transaction-update', view);
        if (transition === 'pay') {
          const [inv] = await db.execute<Array<{ updated_at: Date }>>(
            `update invoice set state = ?, failure_reason = ?, updated_at = now() where id = ? returning updated_at`,
            [invoice.state, invoice.failureReason, invoice.id]);
          invoice.updatedAt = new Date(inv.updated_at);
          await insertEvent(db, escrow.integratorId, 'invoice-completed', invoiceView(invoice));
        }
        result = { status: 200, body: success(view) };
        break;
      }
    }
    await completeCommand(db, commandId, result);
    if (postings.length) await post(db, ...postings);
    if (postings.length && transition === 'pay') failpoint('escrow.pay.after-charge');
    return result;
  });
}
