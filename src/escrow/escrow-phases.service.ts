/**
 * The escrow phases a worker runs for a command: pay, commit, cancel. Each runs in one
 * transaction (plain SQL on a pooled connection: this is the hot path) that locks the command
 * and the escrow, decides from the escrow's state, moves money through ledger postings whose
 * references name the escrow and the phase (so a job that runs twice cannot move money twice),
 * writes the phase invoice and the outbox events, and finishes the command with the HTTP
 * answer. Round trips are few: one statement locks and reads the command, the escrow and its
 * invoice; pay and cancel read their payment methods; one statement makes every write, the
 * postings last (the busiest ledger rows are touched only just before commit).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { integratorProfile } from '../auth/auth.service.js';
import { completeCommand, completeCommandWrite, type CommandKind, type CommandResult } from '../commands/command.service.js';
import { inTransaction, together, type Executor, type Write } from '../db/sql.js';
import { failure, success } from '../http/envelope.js';
import { newId } from '../ids.js';
import type { StoredCharge, StoredLineItem } from '../invoices/invoice.entity.js';
import { invoiceView, type InvoiceRecord } from '../invoices/invoice.rules.js';
import { paymentFailure, prepareCharges, settle } from '../invoices/settlement.service.js';
import { postingStatement, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { failpoint } from '../runtime/failpoints.js';
import { eventWrite } from '../webhooks/outbox.service.js';
import { escrowFromRow, escrowView, transitionDecision, TRANSITION_TARGET, type EscrowRecord, type EscrowStatus, type EscrowTransition } from './escrow.rules.js';

const TRANSITIONS: Partial<Record<CommandKind, EscrowTransition>> = { 'escrow.pay': 'pay', 'escrow.commit': 'commit', 'escrow.cancel': 'cancel' };

interface Loaded {
  escrow: EscrowRecord;
  invoice: InvoiceRecord;
}

interface LockedCommand {
  kind: CommandKind;
  state: 'pending' | 'done';
  result: CommandResult | null;
  /** The transaction's `now()`: every `updated_at` this phase writes. */
  now: Date;
  loaded: Loaded | null;
}

/**
 * Locks the command, then the escrow it targets, and reads both with the escrow invoice — one
 * statement. Null when there is no such command.
 */
async function lockCommandAndEscrow(db: Executor, commandId: string): Promise<LockedCommand | null> {
  const [r] = await db.execute<Array<Record<string, any>>>(
    `with c as (
       update command set attempts = attempts + 1, updated_at = now() where id = ?
       returning kind, target_id, state, result_status, result_body
     )
     select c.kind as command_kind, c.state as command_state, c.result_status, c.result_body, now() as tx_now, x.*
       from c left join lateral (
         select e.id, e.integrator_id, e.account_id, e.status, e.currency, e.total_amount, e.escrow_invoice_id, e.commit_invoice_id,
                e.cancel_invoice_id, e.metadata, e.created_at, e.updated_at,
                i.invoice_type, i.state, i.reference_type, i.reference_id, i.description, i.metadata as invoice_metadata,
                i.failure_reason, i.payment_methods, i.line_items, i.created_at as invoice_created_at, i.updated_at as invoice_updated_at
           from escrow e join invoice i on i.id = e.escrow_invoice_id
          where e.id = c.target_id
            for update of e
       ) x on true`, [commandId]);
  if (!r) return null;
  const locked: LockedCommand = {
    kind: r.command_kind,
    state: r.command_state,
    result: r.command_state === 'done' ? { status: r.result_status, body: r.result_body } : null,
    now: new Date(r.tx_now),
    loaded: null,
  };
  if (r.id === null) return locked;
  const invoice: InvoiceRecord = {
    id: r.escrow_invoice_id, integratorId: r.integrator_id, accountId: r.account_id, escrowId: r.id, invoiceType: r.invoice_type,
    state: r.state, referenceType: r.reference_type, referenceId: r.reference_id, description: r.description, metadata: r.invoice_metadata,
    currency: r.currency, totalAmount: Number(r.total_amount), failureReason: r.failure_reason,
    paymentMethods: r.payment_methods as StoredCharge[], lineItems: r.line_items as StoredLineItem[],
    createdAt: new Date(r.invoice_created_at), updatedAt: new Date(r.invoice_updated_at),
  };
  return { ...locked, loaded: { escrow: escrowFromRow(r), invoice } };
}

/** The invoice of a commit or cancel phase (SUCCESS): its id and the write that makes it. */
function phaseInvoice(escrow: EscrowRecord, from: InvoiceRecord, type: string, charges: StoredCharge[]): { id: string; write: Write } {
  const id = newId('inv');
  return {
    id,
    write: {
      sql: `insert into invoice (id, integrator_id, account_id, escrow_id, invoice_type, state, reference_type, reference_id, description,
                            metadata, currency, total_amount, failure_reason, payment_methods, line_items)
       values (?, ?, ?, ?, ?, 'SUCCESS', ?, ?, ?, ?::jsonb, ?, ?, null, ?::jsonb, ?::jsonb)`,
      params: [id, escrow.integratorId, escrow.accountId, escrow.id, `${type}${escrow.currency === 'USD' ? '' : '_virtual'}`, from.referenceType,
        from.referenceId, from.description, JSON.stringify(from.metadata), from.currency, from.totalAmount, JSON.stringify(charges),
        JSON.stringify(from.lineItems)],
    },
  };
}

type Phase = (db: Executor, em: EntityManager, loaded: Loaded) => Promise<{ status: EscrowStatus; postings: Posting[]; writes: Write[] }>;

const pay: Phase = async (db, em, { escrow, invoice }) => {
  const sources = await prepareCharges(db, em, escrow.integratorId, escrow.currency, invoice.paymentMethods, true);
  const reason = paymentFailure(sources);
  if (reason) {
    // Nothing was charged: all-or-nothing, decided before any posting.
    invoice.state = 'FAILED';
    invoice.failureReason = reason;
    return { status: 'ESCROW-FAILED', postings: [], writes: [] };
  }
  invoice.state = 'SUCCESS';
  const holding = await systemAccount(em, escrow.integratorId, 'escrow_holding', escrow.currency);
  return {
    status: 'ESCROWED',
    writes: [],
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
  const made = phaseInvoice(escrow, invoice, 'user_purchase_commit_escrow', []);
  escrow.commitInvoiceId = made.id;
  return {
    status: 'COMMITTED',
    writes: [made.write],
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
  const made = phaseInvoice(escrow, invoice, 'user_purchase_refund_escrow', invoice.paymentMethods);
  escrow.cancelInvoiceId = made.id;
  return {
    status: 'CANCELLED',
    writes: [made.write],
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
    const command = await lockCommandAndEscrow(db, commandId);
    if (!command) return null;
    if (command.result) return command.result;
    const transition = TRANSITIONS[command.kind];
    if (!transition) throw new Error(`command ${commandId} (${command.kind}) is not an escrow command`);
    if (!command.loaded) {
      const gone = { status: 404, body: failure(['Escrow not found.'], ['ESCROW_GET_ERROR'], null) };
      await completeCommand(db, commandId, gone);
      return gone;
    }
    const { escrow, invoice } = command.loaded;
    const integrator = (await integratorProfile(em, escrow.integratorId)).name;
    let result: CommandResult;
    const postings: Posting[] = [];
    const writes: Write[] = [];
    switch (transitionDecision(escrow.status, transition)) {
      case 'already':
        result = { status: 200, body: success(escrowView(escrow, integrator)) };
        break;
      case 'conflict':
        result = stateConflict(escrow, transition, integrator);
        break;
      case 'run': {
        const outcome = await PHASES[transition](db, em, command.loaded);
        if (transition !== 'pay' && outcome.status !== TRANSITION_TARGET[transition]) throw new Error(`escrow ${escrow.id} did not reach ${TRANSITION_TARGET[transition]}`);
        postings.push(...outcome.postings);
        writes.push(...outcome.writes);
        escrow.status = outcome.status;
        escrow.updatedAt = command.now;
        writes.push({
          sql: `update escrow set status = ?, commit_invoice_id = ?, cancel_invoice_id = ?, updated_at = now() where id = ?`,
          params: [outcome.status, escrow.commitInvoiceId, escrow.cancelInvoiceId, escrow.id],
        });
        const view = escrowView(escrow, integrator);
        writes.push(eventWrite(escrow.integratorId, 'escrow-transaction-update', view));
        if (transition === 'pay') {
          invoice.updatedAt = command.now;
          writes.push({
            sql: `update invoice set state = ?, failure_reason = ?, updated_at = now() where id = ?`,
            params: [invoice.state, invoice.failureReason, invoice.id],
          });
          writes.push(eventWrite(escrow.integratorId, 'invoice-completed', invoiceView(invoice)));
        }
        result = { status: 200, body: success(view) };
        break;
      }
    }
    writes.push(completeCommandWrite(commandId, result));
    // Every write of the phase, postings last, in one round trip.
    const postingsStatement = postingStatement(postings);
    const all = together(writes, postingsStatement ?? undefined);
    await db.execute(all.sql, all.params);
    if (postings.length && transition === 'pay') failpoint('escrow.pay.after-charge');
    return result;
  });
}
