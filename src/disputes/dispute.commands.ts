/**
 * The disputes module's command runners, each in the one command transaction:
 * - `dispute.open` records a processor's notice: it locks the purchase invoice (a refund of it
 *   waits, and waits for it), caps the amount at what the charge still has (what was refunded is
 *   no longer the processor's to take: the notice is kept, with `reported_amount`), and, when the
 *   processor has taken the money, posts `dispute:<id>:open` — the amount to dispute holding and
 *   the integrator's dispute fee to dispute fees, from its default wallet, which this posting
 *   alone may take below zero. A second notice for the same charge answers the dispute it has.
 * - `dispute.close` decides a dispute: WON gives the amount back to the wallet
 *   (`dispute:<id>:won`), LOST moves it to dispute losses (`dispute:<id>:lost`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { inCommandTransaction } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError } from '../errors.js';
import { integratorSettings } from '../integrators/integrator.service.js';
import { escrowOutcome, givenBackToMethod, lockInvoice } from '../invoices/invoice.repository.js';
import { systemAccount, type Posting } from '../ledger/ledger.service.js';
import { methodById } from '../payment-methods/payment-method.repository.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { closeDisputeRow, disputeOfCharge, insertDispute, lockDispute } from './dispute.repository.js';
import {
  closeDecision,
  disputedAmount,
  disputeView,
  fundsAfterClose,
  lostPosting,
  openPosting,
  wonPosting,
  type DisputeAccounts,
  type DisputeRecord,
} from './dispute.rules.js';
import { disputeNotFound, disputeStateError, type OpenDisputeInput } from './dispute.service.js';

const PURCHASE_TYPES = /^(user_purchase(_virtual)?|user_purchase_escrow(_virtual)?|token_purchase)$/;

async function accountsOf(db: Db, d: Pick<DisputeRecord, 'integratorId' | 'currency'>): Promise<DisputeAccounts> {
  return {
    wallet: await systemAccount(db, d.integratorId, 'publisher_wallet', d.currency),
    holding: await systemAccount(db, d.integratorId, 'dispute_holding', d.currency),
    fees: await systemAccount(db, d.integratorId, 'dispute_fees', d.currency),
    losses: await systemAccount(db, d.integratorId, 'dispute_losses', d.currency),
  };
}

/** The `dispute.open` runner. */
export function runOpenDisputeCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
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
    if (!PURCHASE_TYPES.test(invoice.invoiceType) || invoice.state !== 'SUCCESS' || method?.provider !== 'card') {
      throw AppError.invalid(
        { payment_method_id: ['NOT_A_CARD_CHARGE'] },
        'A dispute belongs to a card that paid a purchase invoice (state SUCCESS).',
      );
    }
    const existing = await disputeOfCharge(db, invoice.id, input.payment_method_id);
    if (existing) return { status: 200, body: success(disputeView(existing)) };
    // What the charge still has: what it paid less what refunds gave back (a cancelled escrow gave it all back).
    const cancelled = invoice.escrowId ? (await escrowOutcome(db, invoice.escrowId)) === 'cancelled' : false;
    const left = cancelled ? 0 : Math.max(charged - (await givenBackToMethod(db, invoice.id, input.payment_method_id)), 0);
    const { amount } = disputedAmount(input.amount ?? left, left);
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
        reportedAmount: Math.max(input.amount ?? left, amount),
        currency: invoice.currency,
        reason: input.reason,
        status: 'NEEDS_RESPONSE',
        evidence: {},
        fee,
        funds: moves ? 'withdrawn' : 'none',
        traced: [],
        unrecovered: {},
        provider: input.provider,
        providerDisputeId: input.provider_dispute_id,
      },
      input.due_in_seconds,
    );
    if (!inserted) throw new Error(`dispute of ${invoice.id}/${input.payment_method_id} written meanwhile`);
    const view = disputeView(inserted);
    await insertEvent(db, inserted.integratorId, 'dispute-opened', view);
    const postings: Posting[] = moves ? [openPosting(inserted, await accountsOf(db, inserted))] : [];
    return { status: 200, body: success(view), postings };
  });
}

/** The `dispute.close` runner (input `outcome`: WON or LOST). */
export function runCloseDisputeCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const outcome = (command.input as { outcome: 'WON' | 'LOST' }).outcome;
    const d = await lockDispute(db, command.target_id);
    if (!d) throw disputeNotFound();
    switch (closeDecision(d.status, outcome)) {
      case 'answer':
        return { status: 200, body: success(disputeView(d)) };
      case 'refuse':
        throw disputeStateError(d, `The dispute was decided already: it is ${d.status}.`);
      case 'close': {
        const postings: Posting[] = [];
        if (d.funds === 'withdrawn' && d.amount > 0) {
          const accounts = await accountsOf(db, d);
          postings.push(outcome === 'WON' ? wonPosting(d, accounts) : lostPosting(d, accounts));
        }
        const after = await closeDisputeRow(db, d.id, outcome, d.amount > 0 ? fundsAfterClose(d.funds, outcome) : d.funds);
        const view = disputeView(after);
        await insertEvent(db, d.integratorId, 'dispute-closed', view);
        return { status: 200, body: success(view), postings };
      }
    }
  });
}

export const disputeCommands: CommandRunners = {
  'dispute.open': runOpenDisputeCommand,
  'dispute.close': runCloseDisputeCommand,
};
