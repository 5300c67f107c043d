/**
 * Paying a standard invoice (the worker's side of POST /v2/invoice/{id}/pay): in one
 * transaction, lock the command and the invoice, decide every charge before posting (all or
 * nothing), settle the line items straight to their wallets, record `invoice-completed`, and
 * finish the command. Safe to run any number of times (unique posting references).
 */
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { completeCommand, lockCommand, type CommandResult } from '../commands/command.service.js';
import { failure, success } from '../http/envelope.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import type { TokenPurchaseMetadata } from '../tokens/tokens.service.js';
import { recordEvent } from '../webhooks/outbox.service.js';
import { Invoice, type IInvoice } from './invoice.entity.js';
import { invoiceView } from './invoice.rules.js';
import { invoicePayDecision, invoiceStateConflict } from './invoice.service.js';
import { paymentFailure, prepareCharges, settle } from './settlement.service.js';

/** The issuing half of a token purchase: new standard tokens, from issuance to the buyer's wallet. */
async function issueTokens(em: EntityManager, invoice: IInvoice): Promise<Posting> {
  const meta = invoice.metadata as unknown as TokenPurchaseMetadata;
  const [wallet] = await em.execute<Array<{ id: string }>>(
    `select la.id from ledger_account la join payment_method pm on pm.id = la.payment_method_id
      where pm.account_id = ? and pm.provider = 'wallet' and pm.processing_currency = ? and pm.wallet_kind = 'standard'`,
    [meta.destination_account_id, meta.token_currency]);
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

export async function runInvoiceCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return em.transactional(async (tx) => {
    const command = await lockCommand(tx, commandId);
    if (!command) return null;
    if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
    const invoice = await tx.findOne(Invoice, { id: command.target_id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    let result: CommandResult;
    const postings: Posting[] = [];
    if (!invoice) {
      result = { status: 404, body: failure(['Invoice not found.'], ['INVOICE_GET_ERROR'], null) };
    } else {
      const decision = invoicePayDecision(invoice);
      if (decision === 'already') result = { status: 200, body: success(invoiceView(invoice)) };
      else if (decision === 'conflict') result = invoiceStateConflict(invoice);
      else {
        const sources = await prepareCharges(tx, invoice.integratorId, invoice.currency, invoice.paymentMethods, true);
        const reason = paymentFailure(sources);
        if (reason) {
          invoice.state = 'FAILED';
          invoice.failureReason = reason;
        } else {
          invoice.state = 'SUCCESS';
          if (invoice.invoiceType === 'token_purchase') postings.push(await issueTokens(tx, invoice));
          postings.push(...await settle(tx, {
            integratorId: invoice.integratorId,
            currency: invoice.currency,
            reference: `invoice:${invoice.id}:pay`,
            description: `invoice ${invoice.id} pay`,
            from: sources.map((s) => ({ account: s.account, currency: invoice.currency, amount: -s.amount })),
            lineItems: invoice.lineItems,
          }));
        }
        invoice.updatedAt = new Date();
        await tx.flush();
        const view = invoiceView(invoice);
        recordEvent(tx, invoice.integratorId, 'invoice-completed', view);
        result = { status: 200, body: success(view) };
      }
    }
    await tx.flush();
    await completeCommand(tx, commandId, result);
    if (postings.length) await post(tx, ...postings);
    return result;
  });
}
