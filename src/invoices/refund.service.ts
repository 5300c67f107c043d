/**
 * Refunds of purchase invoices: `POST /v2/refund` (everything left) and
 * `POST /v2/line-item/refund` (an amount of one line) submit an `invoice.refund` command (the
 * web side), `runRefundCommand` runs it on a worker, `refundSummaryOf` answers
 * `GET /v2/invoice/{invoice_id}/refunds`. The money comes from the integrator's default wallet
 * in the invoice's currency and goes back to the payment methods that paid, each at most what
 * it has not had back yet, in one posting (`invoice:<refund_invoice_id>:refund`); a token
 * purchase's refund also takes its tokens back (`invoice:<refund_invoice_id>:tokens`).
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdAccounts } from '../accounts/account.repository.js';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../integrators/principal.js';
import { completeCommand, lockCommand, runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import { isContention } from '../db/postgres-failures.js';
import { success } from '../envelope.js';
import { balancesOf, lockBalancesOf } from '../ledger/ledger.repository.js';
import { post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import { isWalletAccount, type EntryInput } from '../ledger/ledger.rules.js';
import { walletAccountOf } from '../payment-methods/payment-method.repository.js';
import type { CommandBus } from '../queues/command-bus.js';
import { failpoint } from '../runtime/failpoints.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import {
  accountWasMerged,
  escrowOutcome,
  insertRefundInvoice,
  lockInvoice,
  purchaseOfLineItem,
  refundsOf,
  type RefundRecord,
} from './invoice.repository.js';
import { invoiceView, type InvoiceRecord, type TokenPurchaseMetadata } from './invoice.rules.js';
import { findInvoice, invoiceNotFound } from './invoice.service.js';
import {
  REFUND_DECLINED_REASON,
  REFUND_REJECTED_REASON,
  fullRefundCells,
  lineRefundCells,
  refundable,
  refundableTotal,
  refundCharges,
  refundLines,
  refundRefusal,
  refundSummary,
  tokenRefundCap,
  tokensTakenBack,
  type LineRefundProblem,
  type LineRefundRequest,
  type RefundCell,
  type RefundRequest,
  type RefundStatus,
} from './refund.rules.js';
import { prepareCharges } from './settlement.service.js';

/** How many times a refund runs when PostgreSQL aborts it for contention (deadlock, serialization). */
const CONTENTION_ATTEMPTS = 3;

/** What an `invoice.refund` command carries: a full refund's request, or a line-item refund's. */
type RefundInput = RefundRequest & Partial<Pick<LineRefundRequest, 'line_item_id' | 'amount' | 'payment_methods'>>;

/** The 409 of a purchase that cannot be refunded (`REFUND_NOT_ALLOWED`). */
const refundNotAllowed = (why: string) => new AppError('invalid_state', why, { codes: ['REFUND_NOT_ALLOWED'] });

/** The 409 of a purchase (or line) with nothing left to refund. */
const nothingToRefund = (why = 'Everything this invoice charged has been refunded already.') =>
  new AppError('invalid_state', why, { codes: ['NOTHING_TO_REFUND'] });

/** The 404 of a line item that is on none of the caller's purchase invoices. */
const lineItemNotFound = () => AppError.notFound('LINE_ITEM_NOT_FOUND', 'Line item not found.');

/** A line-item refund's problem as the error it answers. */
function lineProblem(problem: LineRefundProblem): AppError {
  if (problem.kind === 'nothing') return nothingToRefund(problem.message);
  if (problem.kind === 'no_line') return lineItemNotFound();
  return AppError.invalid({ [problem.field]: [problem.code] }, problem.message);
}

/** The account a token purchase's tokens went to (it takes them back on refund); null for other purchases. */
function tokenHolderOf(invoice: InvoiceRecord): TokenPurchaseMetadata | null {
  return invoice.invoiceType === 'token_purchase' ? (invoice.metadata as unknown as TokenPurchaseMetadata) : null;
}

/** Why the invoice cannot be refunded (null: it can), reading its escrow's outcome and whether its buyer was merged. */
async function refusalOf(db: Db, invoice: InvoiceRecord): Promise<string | null> {
  const escrow = invoice.escrowId ? await escrowOutcome(db, invoice.escrowId) : null;
  const holder = tokenHolderOf(invoice);
  const merged =
    (await accountWasMerged(db, invoice.accountId)) ||
    (holder !== null && holder.destination_account_id !== invoice.accountId && (await accountWasMerged(db, holder.destination_account_id)));
  return refundRefusal(invoice, escrow, merged);
}

/** For a token purchase, the buyer's token wallet that gives its tokens back; undefined otherwise. */
async function tokenWalletOf(db: Db, invoice: InvoiceRecord): Promise<string | undefined> {
  const holder = tokenHolderOf(invoice);
  if (!holder) return undefined;
  const wallet = await walletAccountOf(db, holder.destination_account_id, holder.token_currency, 'standard');
  if (!wallet) throw new Error(`account ${holder.destination_account_id} has no standard ${holder.token_currency} wallet`);
  return wallet;
}

/** The most a token purchase may still have back: what the tokens still unspent cover (no cap for other purchases). */
function capOf(invoice: InvoiceRecord, refundedBefore: number, unspentTokens: number | undefined): number | undefined {
  const holder = tokenHolderOf(invoice);
  if (!holder || unspentTokens === undefined) return undefined;
  return tokenRefundCap(holder.tokens, invoice.totalAmount, refundedBefore, unspentTokens);
}

/** The refund summary as it stands, read in `db` (no lock: the rows of a finished refund are there). */
async function summaryIn(db: Db, purchase: InvoiceRecord, status?: RefundStatus) {
  const refunds = await refundsOf(db, purchase.id);
  // Only a purchase that can be refunded has anything refundable.
  if ((await refusalOf(db, purchase)) !== null) return refundSummary(purchase, refunds, { cap: 0, status });
  const wallet = await tokenWalletOf(db, purchase);
  const unspent = wallet ? ((await balancesOf(db, [wallet]))[0]?.balance ?? 0) : undefined;
  return refundSummary(purchase, refunds, { cap: capOf(purchase, refundable(purchase, refunds).refunded, unspent), status });
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
): Promise<CommandResult & { headers?: Record<string, string> }> {
  return runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, kind: 'invoice.refund', targetId: purchase.id, input: { ...input }, inputKey },
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
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const invoice = await findInvoice(em, principal, body.invoice_id);
  const refusal = await refusalOf(pooled(em), invoice);
  if (refusal) throw refundNotAllowed(refusal);
  return submitRefund(em, bus, principal, invoice, reasonOf(body), undefined, opts);
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
  const left = refundable(invoice, refunds);
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
  return submitRefund(em, bus, principal, invoice, input, inputKey, opts);
}

/**
 * Where the refund's money comes from: the integrator's default wallet; in a token currency,
 * token issuance for what it lacks. Null when a fiat wallet cannot cover it (rejected).
 */
function refundSources(
  currency: string,
  total: number,
  publisher: { account: string; balance: number },
  issuance: string | null,
): EntryInput[] | null {
  if (total === 0) return [];
  if (!issuance) return publisher.balance >= total ? [{ account: publisher.account, currency, amount: -total }] : null;
  // The integrator mints its own tokens: what its token wallet lacks is issued.
  const fromWallet = Math.min(Math.max(publisher.balance, 0), total);
  return [
    ...(fromWallet > 0 ? [{ account: publisher.account, currency, amount: -fromWallet }] : []),
    ...(total > fromWallet ? [{ account: issuance, currency, amount: -(total - fromWallet) }] : []),
  ];
}

/**
 * The `invoice.refund` runner, in one transaction: lock the command, then the purchase invoice
 * (concurrent refunds of one invoice run one after the other), hold its buyer, then lock every
 * ledger account the refund may post to, in one statement (id order, so refunds never
 * deadlock one another). Decide the refund's cells from what is left — refusing when nothing
 * is, or a line-item refund asks for more — and how each method's part goes; reject (recorded,
 * 409 `REFUND_REJECTED`) when the integrator's wallet cannot cover the parts that go through;
 * else write the refund invoice, its events and postings. A command already done answers its
 * stored result.
 */
export async function runRefundCommand(em: EntityManager, commandId: string): Promise<CommandResult | null> {
  let result: CommandResult | null;
  for (let attempt = 1; ; attempt++) {
    try {
      result = await refundInTransaction(em, commandId);
      break;
    } catch (err) {
      // A deadlock or serialization failure rolled everything back: run it again at once
      // (a few times) rather than wait for the job's retry.
      if (!isContention(err) || attempt >= CONTENTION_ATTEMPTS) throw err;
    }
  }
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
    const holder = tokenHolderOf(purchase);
    // Money never lands in a merged account: a merged buyer's refund is refused, not rerouted.
    // The buyer is held (`for key share`, as new purchases hold it) before the check, so a merge
    // either commits first (and the check sees it) or waits for this refund (and then counts the
    // money it returned).
    await holdAccounts(db, holder ? [purchase.accountId, holder.destination_account_id] : [purchase.accountId]);
    const refusal = await refusalOf(db, purchase);
    if (refusal) throw refundNotAllowed(refusal);
    const input = (command.input ?? {}) as unknown as RefundInput;
    const { integratorId, currency } = purchase;
    const left = refundable(purchase, await refundsOf(db, purchase.id));
    const methods = await prepareCharges(
      db,
      em,
      integratorId,
      currency,
      left.methods.filter((c) => c.amount > 0),
      false,
    );
    const publisher = await systemAccount(em, integratorId, 'publisher_wallet', currency);
    const issuance = currency === 'USD' ? null : await systemAccount(em, integratorId, 'token_issuance', currency);
    const tokenWallet = await tokenWalletOf(db, purchase);
    const tokenIssuance = holder ? await systemAccount(em, integratorId, 'token_issuance', holder.token_currency) : null;
    const accounts = [...new Set([publisher, issuance, tokenWallet, tokenIssuance, ...methods.map((m) => m.account)])].filter(
      (a): a is string => !!a,
    );
    // Wallets first, then system accounts, each in id order: the order a pay takes them in
    // (its buyer's wallets, then the integrator's accounts it posts to), so the two never wait
    // on each other in a cycle.
    const balances = new Map<string, number>();
    for (const group of [accounts.filter(isWalletAccount), accounts.filter((a) => !isWalletAccount(a))]) {
      if (group.length) for (const r of await lockBalancesOf(db, group)) balances.set(r.id, r.balance);
    }
    const cap = capOf(purchase, left.refunded, tokenWallet ? (balances.get(tokenWallet) ?? 0) : undefined);
    let cells: RefundCell[];
    if (input.line_item_id) {
      const planned = lineRefundCells(
        left,
        { line_item_id: input.line_item_id, amount: input.amount ?? 0, payment_methods: input.payment_methods ?? [] },
        cap,
      );
      if (!planned.ok) throw lineProblem(planned.problem);
      cells = planned.cells;
    } else {
      const total = refundableTotal(left, cap);
      if (total === 0)
        throw nothingToRefund(
          holder && refundableTotal(left) > 0 ? 'The tokens this purchase issued have been spent: none are left to take back.' : undefined,
        );
      cells = fullRefundCells(left, total);
    }
    const failing = new Map(methods.filter((m) => m.refundFailure).map((m) => [m.paymentMethodId, m.refundFailure!]));
    const parts = refundCharges(cells, currency, (id) => failing.has(id));
    const moving = parts.filter((p) => p.status === 'succeeded').reduce((sum, p) => sum + p.amount, 0);
    const sources = refundSources(currency, moving, { account: publisher, balance: balances.get(publisher) ?? 0 }, issuance);
    if (!sources) for (const p of parts) p.status = 'failed';
    const declined = parts.find((p) => p.status === 'failed' && failing.has(p.payment_method_id));
    const now = new Date();
    const refund: RefundRecord = {
      id: newId('inv'),
      integratorId,
      accountId: purchase.accountId,
      // Not the escrow's: an escrow's invoices are its phases.
      escrowId: null,
      invoiceType: currency === 'USD' ? 'user_refund' : 'user_refund_virtual',
      state: sources && !declined ? 'SUCCESS' : 'FAILED',
      referenceType: purchase.referenceType,
      referenceId: purchase.referenceId,
      description: input.line_item_id
        ? `Refund of line item ${input.line_item_id} of invoice ${purchase.id}`
        : `Refund of invoice ${purchase.id}`,
      metadata: {
        refunded_invoice_id: purchase.id,
        ...(input.line_item_id ? { line_item_id: input.line_item_id } : {}),
        reason: input.reason,
        sub_reason: input.sub_reason ?? '',
        note: input.note ?? '',
      },
      currency,
      totalAmount: cells.reduce((sum, c) => sum + c.amount, 0),
      failureReason: !sources
        ? REFUND_REJECTED_REASON
        : declined
          ? (failing.get(declined.payment_method_id) ?? REFUND_DECLINED_REASON)
          : null,
      paymentMethods: parts,
      lineItems: refundLines(cells, purchase.lineItems),
      createdAt: now,
      updatedAt: now,
      refundedInvoiceId: purchase.id,
    };
    await insertRefundInvoice(db, refund);
    const view = (p: (typeof parts)[number]) => ({ payment_method_id: p.payment_method_id, amount: p.amount, currency });
    await insertEvent(db, integratorId, 'refund-completed', {
      account_id: purchase.accountId,
      invoice_id: refund.id,
      payment_invoice_id: purchase.id,
      successful_refunds: parts.filter((p) => p.status === 'succeeded').map(view),
      failed_refunds: parts.filter((p) => p.status === 'failed').map(view),
    });
    await insertEvent(db, integratorId, 'invoice-completed', invoiceView(refund));
    // A crash here: the refund invoice and its events are written but not committed.
    failpoint('refund.before-post');
    const postings =
      sources && moving > 0 ? refundPostings(purchase, refund, sources, methods, tokenWallet, tokenIssuance, left.refunded) : [];
    // The references are the new refund invoice's: anything but all of them written is a bug.
    if (postings.length && (await post(db, ...postings)) !== postings.length)
      throw new Error(`refund ${refund.id}: its postings were not written`);
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
    return result;
  });
}

/**
 * A refund's postings: the money from its sources back to each method whose part went through
 * (`:refund`), and for a token purchase the tokens those cents bought back from the buyer's
 * wallet to issuance (`:tokens`).
 */
function refundPostings(
  purchase: InvoiceRecord,
  refund: RefundRecord,
  sources: EntryInput[],
  methods: Array<{ paymentMethodId: string; account: string }>,
  tokenWallet: string | undefined,
  tokenIssuance: string | null,
  refundedBefore: number,
): Posting[] {
  const { integratorId, currency } = purchase;
  const back = refund.paymentMethods.filter((p) => (p as { status?: string }).status === 'succeeded');
  const moving = back.reduce((sum, p) => sum + p.amount, 0);
  const postings: Posting[] = [
    {
      integratorId,
      reference: `invoice:${refund.id}:refund`,
      description: `refund ${refund.id} of invoice ${purchase.id}`,
      entries: [
        ...sources,
        ...back.map((p) => ({
          account: methods.find((m) => m.paymentMethodId === p.payment_method_id)!.account,
          currency,
          amount: p.amount,
        })),
      ],
    },
  ];
  const holder = tokenHolderOf(purchase);
  if (holder && tokenWallet && tokenIssuance) {
    const tokens = tokensTakenBack(holder.tokens, purchase.totalAmount, refundedBefore, moving);
    if (tokens > 0)
      postings.push({
        integratorId,
        reference: `invoice:${refund.id}:tokens`,
        description: `refund ${refund.id} takes back ${tokens} ${holder.token_currency}`,
        entries: [
          { account: tokenWallet, currency: holder.token_currency, amount: -tokens },
          { account: tokenIssuance, currency: holder.token_currency, amount: tokens },
        ],
      });
  }
  return postings;
}
