/**
 * Refunds of purchase invoices: `POST /v2/refund` submits an `invoice.refund` command (the web
 * side), `runRefundCommand` runs it on a worker, `refundSummaryOf` answers
 * `GET /v2/invoice/{invoice_id}/refunds`. The money comes from the integrator's default wallet
 * in the invoice's currency and goes back to each payment method that paid, exactly what it has
 * not had back yet, in one posting (`invoice:<refund_invoice_id>:refund`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdAccounts } from '../accounts/account.repository.js';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../auth/auth.service.js';
import { completeCommand, lockCommand, runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { lockBalancesOf } from '../ledger/ledger.repository.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import type { EntryInput } from '../ledger/ledger.rules.js';
import type { CommandBus } from '../queues/command-bus.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { failpoint } from '../runtime/failpoints.js';
import { accountWasMerged, escrowOutcome, insertRefundInvoice, lockInvoice, refundsOf, type RefundRecord } from './invoice.repository.js';
import { invoiceView, type InvoiceRecord } from './invoice.rules.js';
import { findInvoice, invoiceNotFound } from './invoice.service.js';
import {
  REFUND_REJECTED_REASON,
  refundableCharges,
  refundRefusal,
  refundSummary,
  type EscrowOutcome,
  type RefundRequest,
  type RefundStatus,
} from './refund.rules.js';

/** Why the invoice cannot be refunded (null: it can), reading its escrow's outcome when it has one. */
async function refusalOf(db: Db, invoice: InvoiceRecord): Promise<string | null> {
  const escrow: EscrowOutcome = invoice.escrowId ? await escrowOutcome(db, invoice.escrowId) : null;
  return refundRefusal(invoice, escrow);
}
import { prepareCharges } from './settlement.service.js';

/** The 409 of a purchase that cannot be refunded (`REFUND_NOT_ALLOWED`). */
const refundNotAllowed = (why: string) => new AppError('invalid_state', why, { codes: ['REFUND_NOT_ALLOWED'] });

/** The 409 of a purchase with nothing left to refund. */
const nothingToRefund = () =>
  new AppError('invalid_state', 'Everything this invoice charged has been refunded already.', { codes: ['NOTHING_TO_REFUND'] });

/** The refund summary as it stands, read in `db` (no lock: the rows of a finished refund are there). */
async function summaryIn(db: Db, purchase: InvoiceRecord, status?: RefundStatus) {
  const refunds = await refundsOf(db, purchase.id);
  // Only a purchase that can be refunded has anything refundable.
  const refundable = (await refusalOf(db, purchase)) === null ? purchase : { ...purchase, paymentMethods: [] };
  return refundSummary(refundable, refunds, status);
}

/** `GET /v2/invoice/{invoice_id}/refunds`: the refund summary of an invoice the caller may see. */
export async function refundSummaryOf(em: EntityManager, principal: Principal, invoiceId: string, status?: RefundStatus) {
  const invoice = await findInvoice(em, principal, invoiceId);
  return summaryIn(pooled(em), invoice, status);
}

interface RefundOptions {
  respondAsync: boolean;
  syncWaitMs: number;
}

/**
 * `POST /v2/refund`: a full refund of what the invoice has not had back yet, run as an
 * `invoice.refund` command. Concurrent requests share one pending command; a refusal known
 * before the command (no such invoice, one that cannot be refunded) answers at once.
 */
export async function requestRefund(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  body: { invoice_id: string } & RefundRequest,
  opts: RefundOptions,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const invoice = await findInvoice(em, principal, body.invoice_id);
  const refusal = await refusalOf(pooled(em), invoice);
  if (refusal) throw refundNotAllowed(refusal);
  const request: RefundRequest = { reason: body.reason, sub_reason: body.sub_reason ?? '', note: body.note ?? '' };
  return runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, kind: 'invoice.refund', targetId: invoice.id, input: { ...request } },
    {
      ...opts,
      location: `/v2/invoice/${invoice.id}/refunds`,
      current: async () => success(await summaryIn(pooled(em), invoice)),
    },
  );
}

/** Where the refund's money comes from: the integrator's default wallet; in a token currency, token issuance for what it lacks. */
async function refundSources(db: Db, em: EntityManager, purchase: InvoiceRecord, total: number): Promise<EntryInput[] | null> {
  const { integratorId, currency } = purchase;
  const publisher = await systemAccount(em, integratorId, 'publisher_wallet', currency);
  const [row] = await lockBalancesOf(db, [publisher]);
  const balance = row?.balance ?? 0;
  if (currency === 'USD') return balance >= total ? [{ account: publisher, currency, amount: -total }] : null;
  // The integrator mints its own tokens: what its token wallet lacks is issued.
  const fromWallet = Math.min(Math.max(balance, 0), total);
  const issuance = await systemAccount(em, integratorId, 'token_issuance', currency);
  return [
    ...(fromWallet > 0 ? [{ account: publisher, currency, amount: -fromWallet }] : []),
    ...(total > fromWallet ? [{ account: issuance, currency, amount: -(total - fromWallet) }] : []),
  ];
}

/**
 * The `invoice.refund` runner, in one transaction: lock the command, then the purchase invoice
 * (concurrent refunds of one invoice run one after the other), read its refunds and decide what
 * each payment method still has back; refuse when nothing is left; reject (recorded, 409
 * `REFUND_REJECTED`) when the integrator's wallet cannot cover it; else write the SUCCESS refund
 * invoice, its events and the one posting. A command already done answers its stored result.
 */
export async function runRefundCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  const result = await refundInTransaction(em, commandId);
  // A crash here: everything is committed, the job not yet finished in Redis.
  failpoint('refund.after-commit');
  return result;
}

function refundInTransaction(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  return pooled(em).transaction(async (db) => {
    const command = await lockCommand(db, commandId);
    if (!command) return null;
    if (command.state === 'done') return { status: command.result_status!, body: command.result_body };
    const purchase = await lockInvoice(db, command.target_id);
    if (!purchase) throw invoiceNotFound();
    const refusal = await refusalOf(db, purchase);
    if (refusal) throw refundNotAllowed(refusal);
    // Money never lands in a merged account: a merged buyer's refund is refused, not rerouted.
    // The buyer is held (`for key share`, as new purchases hold it) before the check, so a merge
    // either commits first (and the check sees it) or waits for this refund (and then counts the
    // money it returned).
    await holdAccounts(db, [purchase.accountId]);
    if (await accountWasMerged(db, purchase.accountId))
      throw refundNotAllowed('The buyer was merged into another account; its purchases cannot be refunded.');
    const charges = refundableCharges(purchase, await refundsOf(db, purchase.id));
    if (charges.length === 0) throw nothingToRefund();
    const total = charges.reduce((sum, c) => sum + c.amount, 0);
    const destinations = await prepareCharges(db, em, purchase.integratorId, purchase.currency, charges, false);
    const sources = await refundSources(db, em, purchase, total);
    const request = (command.input ?? {}) as unknown as RefundRequest;
    const now = new Date();
    const refund: RefundRecord = {
      id: newId('inv'),
      integratorId: purchase.integratorId,
      accountId: purchase.accountId,
      // Not the escrow's: an escrow's invoices are its phases.
      escrowId: null,
      invoiceType: purchase.currency === 'USD' ? 'user_refund' : 'user_refund_virtual',
      state: sources ? 'SUCCESS' : 'FAILED',
      referenceType: purchase.referenceType,
      referenceId: purchase.referenceId,
      description: `Refund of invoice ${purchase.id}`,
      metadata: {
        refunded_invoice_id: purchase.id,
        reason: request.reason,
        sub_reason: request.sub_reason ?? '',
        note: request.note ?? '',
      },
      currency: purchase.currency,
      totalAmount: total,
      failureReason: sources ? null : REFUND_REJECTED_REASON,
      paymentMethods: charges,
      lineItems: [],
      createdAt: now,
      updatedAt: now,
      refundedInvoiceId: purchase.id,
    };
    await insertRefundInvoice(db, refund);
    const parts = charges.map((c) => ({ payment_method_id: c.payment_method_id, amount: c.amount, currency: c.currency }));
    await insertEvent(db, purchase.integratorId, 'refund-completed', {
      account_id: purchase.accountId,
      invoice_id: refund.id,
      payment_invoice_id: purchase.id,
      successful_refunds: sources ? parts : [],
      failed_refunds: sources ? [] : parts,
    });
    await insertEvent(db, purchase.integratorId, 'invoice-completed', invoiceView(refund));
    const summary = await summaryIn(db, purchase);
    const result: CommandResult = sources
      ? { status: 200, body: success(summary) }
      : errorReply(
          new AppError('invalid_state', "The integrator's wallet cannot cover this refund.", {
            codes: ['REFUND_REJECTED'],
            payload: summary,
          }),
        );
    await completeCommand(db, commandId, result);
    // A crash here: the refund invoice and its events are written but not committed.
    failpoint('refund.before-post');
    if (sources) {
      const posting: Posting = {
        integratorId: purchase.integratorId,
        reference: `invoice:${refund.id}:refund`,
        description: `refund ${refund.id} of invoice ${purchase.id}`,
        entries: [...sources, ...destinations.map((d) => ({ account: d.account, currency: purchase.currency, amount: d.amount }))],
      };
      // The reference is the new refund invoice's: anything but one posting written is a bug.
      if ((await post(db, posting)) !== 1) throw new Error(`refund ${refund.id}: its posting was not written`);
    }
    return result;
  });
}
