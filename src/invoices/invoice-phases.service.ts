/**
 * Paying a standard invoice (the worker's side of POST /v2/invoice/{id}/pay and of token
 * purchase): in one plain-SQL transaction, lock the command and the invoice, decide every
 * charge before posting (all or nothing), settle the line items straight to their wallets
 * (and issue tokens for a token purchase), record `invoice-completed`, finish the command.
 * Safe to run any number of times (unique posting references).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { completeCommand, lockCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { inTransaction, type Executor } from '../db/sql.js';
import { success } from '../envelope.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import type { StoredCharge, StoredLineItem } from './invoice.entity.js';
import { invoiceView, type InvoiceRecord, type TokenPurchaseMetadata } from './invoice.rules.js';
import { invoiceNotFound, invoicePayDecision, invoiceStateConflict, noChargesYet } from './invoice.service.js';
import { paymentFailure, prepareCharges, settle } from './settlement.service.js';

async function loadInvoice(db: Executor, invoiceId: string): Promise<InvoiceRecord | null> {
  const [r] = await db.execute<Array<Record<string, any>>>('select * from invoice where id = ? for update', [invoiceId]);
  if (!r) return null;
  return {
    id: r.id,
    integratorId: r.integrator_id,
    accountId: r.account_id,
    escrowId: r.escrow_id,
    invoiceType: r.invoice_type,
    state: r.state,
    referenceType: r.reference_type,
    referenceId: r.reference_id,
    description: r.description,
    metadata: r.metadata,
    currency: r.currency,
    totalAmount: Number(r.total_amount),
    failureReason: r.failure_reason,
    paymentMethods: r.payment_methods as StoredCharge[],
    lineItems: r.line_items as StoredLineItem[],
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** The issuing half of a token purchase: new standard tokens, from issuance to the buyer's wallet. */
async function issueTokens(db: Executor, em: EntityManager, invoice: InvoiceRecord): Promise<Posting> {
  const meta = invoice.metadata as unknown as TokenPurchaseMetadata;
  const [wallet] = await db.execute<Array<{ id: string }>>(
    `select la.id from ledger_account la join payment_method pm on pm.id = la.payment_method_id
      where pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = ? and pm.wallet_kind = 'standard'`,
    [meta.destination_account_id, meta.token_currency],
  );
  const issuance = await systemAccount(em, invoice.integratorId, 'token_issuance', meta.token_currency);
  return {
    integratorId: invoice.integratorId,
    reference: `invoice:${invoice.id}:issue`,
    description: `invoice ${invoice.id} issues ${meta.tokens} ${meta.token_currency}`,
    entries: [
      { account: issuance, currency: meta.token_currency, amount: -meta.tokens },
      { account: wallet.id, currency: meta.token_currency, amount: meta.tokens },
    ],
  };
}

/**
 * The `invoice.pay` runner: pays the command's invoice in one transaction. A pay that cannot
 * run (no such invoice, a state that refuses it) throws its AppError before anything is written.
 */
export async function runInvoiceCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return inTransaction(em, async (db) => {
    const command = await lockCommand(db, commandId);
    if (!command) return null;
    if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
    const invoice = await loadInvoice(db, command.target_id);
    if (!invoice) throw invoiceNotFound();
    const decision = invoicePayDecision(invoice);
    let result: CommandResult;
    const postings: Posting[] = [];
    if (decision === 'already') result = { status: 200, body: success(invoiceView(invoice)) };
    else if (decision === 'conflict') throw invoiceStateConflict(invoice);
    // An authorized invoice whose buyer has not named its payment methods: nothing to charge yet.
    else if (invoice.paymentMethods.length === 0) throw noChargesYet(invoice);
    else {
      const sources = await prepareCharges(db, em, invoice.integratorId, invoice.currency, invoice.paymentMethods, true);
      const reason = paymentFailure(sources);
      if (reason) {
        invoice.state = 'FAILED';
        invoice.failureReason = reason;
      } else {
        invoice.state = 'SUCCESS';
        if (invoice.invoiceType === 'token_purchase') postings.push(await issueTokens(db, em, invoice));
        postings.push(
          ...(await settle(db, em, {
            integratorId: invoice.integratorId,
            currency: invoice.currency,
            reference: `invoice:${invoice.id}:pay`,
            description: `invoice ${invoice.id} pay`,
            from: sources.map((s) => ({ account: s.account, currency: invoice.currency, amount: -s.amount })),
            lineItems: invoice.lineItems,
          })),
        );
      }
      const [updated] = await db.execute<Array<{ updated_at: Date }>>(
        `update invoice set state = ?, failure_reason = ?, updated_at = now() where id = ? returning updated_at`,
        [invoice.state, invoice.failureReason, invoice.id],
      );
      invoice.updatedAt = new Date(updated.updated_at);
      const view = invoiceView(invoice);
      await insertEvent(db, invoice.integratorId, 'invoice-completed', view);
      result = { status: 200, body: success(view) };
    }
    await completeCommand(db, commandId, result);
    if (postings.length) await post(db, ...postings);
    return result;
  });
}
