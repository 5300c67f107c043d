/**
 * Refunds of purchase invoices: `POST /v2/refund` (everything left) and
 * `POST /v2/line-item/refund` (an amount of one line) submit an `invoice.refund` command (the
 * web side; refund.commands.ts runs it on a worker), `refundSummaryOf` answers
 * `GET /v2/invoice/{invoice_id}/refunds`. The money comes from the integrator's default wallet
 * in the invoice's currency and goes back to the payment methods that paid, each at most what
 * it has not had back yet, in one posting (`invoice:<refund_invoice_id>:refund`); a token
 * purchase's refund also takes its tokens back (`invoice:<refund_invoice_id>:tokens`).
 */
import { disputedByMethod } from '../disputes/dispute.repository.js';
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import type { Principal } from '../integrators/principal.js';
import { runCommand } from '../commands/command.service.js';
import type { AuditContext } from '../audit/audit.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { balancesOf } from '../ledger/ledger.repository.js';
import { walletAccountOf } from '../payment-methods/payment-method.repository.js';
import type { CommandBus } from '../queues/command-bus.js';
import { escrowOutcome, purchaseOfLineItem } from '../invoices/invoice.repository.js';
import type { InvoiceRecord, TokenPurchaseMetadata } from '../invoices/invoice.rules.js';
import { findInvoice } from '../invoices/invoice.service.js';
import { accountWasMerged, refundsOf } from './refund.repository.js';
import {
  blockedByDispute,
  withoutDisputed,
  lineRefundCells,
  refundable,
  refundRefusal,
  refundSummary,
  tokenRefundCap,
  type LineRefundProblem,
  type LineRefundRequest,
  type RefundRequest,
  type RefundStatus,
} from './refund.rules.js';

/** What an `invoice.refund` command carries: a full refund's request, or a line-item refund's. */
export type RefundInput = RefundRequest & Partial<Pick<LineRefundRequest, 'line_item_id' | 'amount' | 'payment_methods'>>;

/** The 409 of a purchase that cannot be refunded (`REFUND_NOT_ALLOWED`). */
export const refundNotAllowed = (why: string) => new AppError('invalid_state', why, { codes: ['REFUND_NOT_ALLOWED'] });

/** The 409 of a purchase (or line) with nothing left to refund. */
/** 409 `DISPUTED`: the card part asked for is disputed — the processor gave it back to the cardholder already. */
export const disputedPart = () =>
  new AppError(
    'invalid_state',
    'The card charge is disputed: the processor has given it back to the cardholder, so it is not refunded again.',
    {
      codes: ['DISPUTED'],
    },
  );

export const nothingToRefund = (why = 'Everything this invoice charged has been refunded already.') =>
  new AppError('invalid_state', why, { codes: ['NOTHING_TO_REFUND'] });

/** The 404 of a line item that is on none of the caller's purchase invoices. */
const lineItemNotFound = () => AppError.notFound('LINE_ITEM_NOT_FOUND', 'Line item not found.');

/** A line-item refund's problem as the error it answers. */
export function lineProblem(problem: LineRefundProblem): AppError {
  if (problem.kind === 'nothing') return nothingToRefund(problem.message);
  if (problem.kind === 'no_line') return lineItemNotFound();
  return AppError.invalid({ [problem.field]: [problem.code] }, problem.message);
}

/** The account a token purchase's tokens went to (it takes them back on refund); null for other purchases. */
export function tokenHolderOf(invoice: InvoiceRecord): TokenPurchaseMetadata | null {
  return invoice.invoiceType === 'token_purchase' ? (invoice.metadata as unknown as TokenPurchaseMetadata) : null;
}

/** Why the invoice cannot be refunded (null: it can), reading its escrow's outcome and whether its buyer was merged. */
export async function refusalOf(db: Db, invoice: InvoiceRecord): Promise<string | null> {
  const escrow = invoice.escrowId ? await escrowOutcome(db, invoice.escrowId) : null;
  const holder = tokenHolderOf(invoice);
  const merged =
    (await accountWasMerged(db, invoice.accountId)) ||
    (holder !== null && holder.destination_account_id !== invoice.accountId && (await accountWasMerged(db, holder.destination_account_id)));
  return refundRefusal(invoice, escrow, merged);
}

/** For a token purchase, the buyer's token wallet that gives its tokens back; undefined otherwise. */
export async function tokenWalletOf(db: Db, invoice: InvoiceRecord): Promise<string | undefined> {
  const holder = tokenHolderOf(invoice);
  if (!holder) return undefined;
  const wallet = await walletAccountOf(db, holder.destination_account_id, holder.token_currency, 'standard');
  if (!wallet) throw new Error(`account ${holder.destination_account_id} has no standard ${holder.token_currency} wallet`);
  return wallet;
}

/** The most a token purchase may still have back: what the tokens still unspent cover (no cap for other purchases). */
export function capOf(invoice: InvoiceRecord, refundedBefore: number, unspentTokens: number | undefined): number | undefined {
  const holder = tokenHolderOf(invoice);
  if (!holder || unspentTokens === undefined) return undefined;
  return tokenRefundCap(holder.tokens, invoice.totalAmount, refundedBefore, unspentTokens);
}

/** The refund summary as it stands, read in `db` (no lock: the rows of a finished refund are there). */
export async function summaryIn(db: Db, purchase: InvoiceRecord, status?: RefundStatus) {
  const refunds = await refundsOf(db, purchase.id);
  // Only a purchase that can be refunded has anything refundable.
  if ((await refusalOf(db, purchase)) !== null) return refundSummary(purchase, refunds, { cap: 0, status });
  const wallet = await tokenWalletOf(db, purchase);
  const unspent = wallet ? ((await balancesOf(db, [wallet]))[0]?.balance ?? 0) : undefined;
  const disputed = await disputedByMethod(db, purchase.id);
  return refundSummary(purchase, refunds, { cap: capOf(purchase, refundable(purchase, refunds).refunded, unspent), status, disputed });
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

/** Runs an `invoice.refund` command for the purchase and answers as commands do (its summary while it runs). */
function submitRefund(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  purchase: InvoiceRecord,
  input: RefundInput,
  inputKey: string | undefined,
  opts: RefundOptions,
  audit: AuditContext | undefined,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  return runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, kind: 'invoice.refund', targetId: purchase.id, input: { ...input }, inputKey, audit },
    {
      ...opts,
      location: `/v2/invoice/${purchase.id}/refunds`,
      current: async () => success(await summaryIn(pooled(em), purchase)),
    },
  );
}

/** The request's reason, sub-reason and note, as stored with the refund. */
function reasonOf(body: RefundRequest): RefundRequest {
  return { reason: body.reason, sub_reason: body.sub_reason ?? '', note: body.note ?? '' };
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
  audit?: AuditContext,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const invoice = await findInvoice(em, principal, body.invoice_id);
  const refusal = await refusalOf(pooled(em), invoice);
  if (refusal) throw refundNotAllowed(refusal);
  return submitRefund(em, bus, principal, invoice, reasonOf(body), undefined, opts, audit);
}

/**
 * `POST /v2/line-item/refund`: `amount` of one line of a purchase, back to the given payment
 * methods in order. Checked at once against what is left (a 400 or 409 without a command), and
 * again by the command under the purchase's lock. Different partial refunds asked at once both
 * run, one after the other, within what the line has left; identical ones share one command.
 */
export async function requestLineItemRefund(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  body: LineRefundRequest,
  opts: RefundOptions,
  audit?: AuditContext,
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const db = pooled(em);
  const invoiceId = await purchaseOfLineItem(db, principal.integratorId, body.line_item_id);
  if (!invoiceId) throw lineItemNotFound();
  const invoice = await findInvoice(em, principal, invoiceId).catch((err: unknown) => {
    throw err instanceof AppError && err.kind === 'not_found' ? lineItemNotFound() : err;
  });
  const refusal = await refusalOf(db, invoice);
  if (refusal) throw refundNotAllowed(refusal);
  const refunds = await refundsOf(db, invoice.id);
  const all = refundable(invoice, refunds);
  const left = withoutDisputed(all, await disputedByMethod(db, invoice.id));
  if (blockedByDispute(all, left, body.payment_methods)) throw disputedPart();
  const wallet = await tokenWalletOf(db, invoice);
  const unspent = wallet ? ((await balancesOf(db, [wallet]))[0]?.balance ?? 0) : undefined;
  const planned = lineRefundCells(left, body, capOf(invoice, left.refunded, unspent));
  if (!planned.ok) throw lineProblem(planned.problem);
  const input: RefundInput = {
    ...reasonOf(body),
    line_item_id: body.line_item_id,
    amount: body.amount,
    payment_methods: [...body.payment_methods],
  };
  // Identical requests in flight at once share one command (one refund); a request made after
  // an identical one finished is a new refund of its own.
  const inputKey = createHash('sha256').update(JSON.stringify(input)).digest('hex');
  return submitRefund(em, bus, principal, invoice, input, inputKey, opts, audit);
}
