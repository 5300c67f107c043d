/**
 * The refunds module's command runner: a refund (`invoice.refund`), in the one command
 * transaction. It locks the purchase invoice (concurrent refunds of one invoice run one after the
 * other), holds its buyer, then locks every ledger account the refund may post to
 * (`lockForPosting`). It decides the refund's cells from what is left — refusing when nothing
 * is, or a line-item refund asks for more — and how each method's part goes; rejects (recorded,
 * 409 `REFUND_REJECTED`) when the integrator's wallet cannot cover the parts that go through;
 * else writes the refund invoice, its events and postings.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdAccounts } from '../accounts/account.repository.js';
import { inCommandTransaction, type LockedCommand } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import { invoiceView, type InvoiceRecord } from '../invoices/invoice.rules.js';
import { invoiceNotFound } from '../invoices/invoice.service.js';
import { lockInvoice } from '../invoices/invoice.repository.js';
import { prepareCharges } from '../invoices/settlement.service.js';
import { lockForPosting, post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import type { EntryInput } from '../ledger/ledger.rules.js';
import { REFUND_DECLINED_REASON } from '../rails/sandbox-card.rules.js';
import { sandboxCardProcessor } from '../rails/sandbox-card.adapter.js';
import type { CardProcessor, CardProvider } from '../rails/card-processor.port.js';
import { refundCardPart } from '../invoices/card-charges.service.js';
import { failpoint } from '../runtime/failpoints.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { insertRefundInvoice, refundsOf, type RefundRecord } from './refund.repository.js';
import {
  REFUND_REJECTED_REASON,
  fullRefundCells,
  lineRefundCells,
  refundable,
  refundableTotal,
  refundCharges,
  refundLines,
  tokensTakenBack,
  type RefundCell,
  type RefundCharge,
} from './refund.rules.js';
import {
  capOf,
  lineProblem,
  nothingToRefund,
  refundNotAllowed,
  refusalOf,
  summaryIn,
  tokenHolderOf,
  tokenWalletOf,
  type RefundInput,
} from './refund.service.js';

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
 * The `invoice.refund` runner, in the one command transaction: lock the purchase invoice
 * (concurrent refunds of one invoice run one after the other), hold its buyer, then lock every
 * ledger account the refund may post to, in one statement (`lockForPosting`'s order, so refunds
 * never deadlock one another). Decide the refund's cells from what is left — refusing when nothing
 * is, or a line-item refund asks for more — and how each method's part goes; reject (recorded,
 * 409 `REFUND_REJECTED`) when the integrator's wallet cannot cover the parts that go through;
 * else write the refund invoice, its events and postings. A command already done answers its
 * stored result.
 */
export async function runRefundCommand(em: EntityManager, cards: CardProcessor, commandId: string): Promise<CommandResult | null> {
  const result = await inCommandTransaction(em, commandId, (db, command) => refund(db, cards, command));
  // A crash here: everything is committed, the job not yet finished in Redis.
  failpoint('refund.after-commit');
  return result;
}

/**
 * Asks the provider for each card part that goes through, marking the ones it refuses failed
 * (`failing` gains their reasons). This runs inside the refund's transaction, with the invoice
 * and the integrator's accounts locked: the parts and whether the integrator's wallet covers them
 * are decided on locked balances, so the provider refunds exactly what is then recorded; a crash
 * before the commit reruns it and the idempotency key (`<command id>:refund:<payment method id>`)
 * answers the same Refund. The price is a network call under those locks: refunds are rare
 * beside pays, and the client's timeout bounds it.
 */
async function refundThroughProvider(
  db: Db,
  provider: CardProvider,
  commandId: string,
  purchase: InvoiceRecord,
  refundInvoiceId: string,
  parts: RefundCharge[],
  failing: Map<string, string>,
): Promise<void> {
  for (const p of parts) {
    if (p.status !== 'succeeded') continue;
    const asked = await refundCardPart(db, provider, commandId, purchase, refundInvoiceId, p.payment_method_id, p.amount);
    if (asked && !asked.ok) {
      p.status = 'failed';
      failing.set(p.payment_method_id, asked.reason);
    }
  }
}

async function refund(db: Db, cards: CardProcessor, command: LockedCommand): Promise<CommandResult> {
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
    integratorId,
    currency,
    left.methods.filter((c) => c.amount > 0),
    false,
    cards,
  );
  const publisher = await systemAccount(db, integratorId, 'publisher_wallet', currency);
  const issuance = currency === 'USD' ? null : await systemAccount(db, integratorId, 'token_issuance', currency);
  const tokenWallet = await tokenWalletOf(db, purchase);
  const tokenIssuance = holder ? await systemAccount(db, integratorId, 'token_issuance', holder.token_currency) : null;
  const balances = await lockForPosting(db, [publisher, issuance, tokenWallet, tokenIssuance, ...methods.map((m) => m.account)]);
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
  const movingOf = () => parts.filter((p) => p.status === 'succeeded').reduce((sum, p) => sum + p.amount, 0);
  const refundId = newId('inv');
  const publisherFunds = { account: publisher, balance: balances.get(publisher) ?? 0 };
  let sources = refundSources(currency, movingOf(), publisherFunds, issuance);
  if (!sources) for (const p of parts) p.status = 'failed';
  else if (cards.provider) {
    // Only once the integrator's wallet is known to cover it is the provider asked; what it refuses moves nothing.
    await refundThroughProvider(db, cards.provider, command.id, purchase, refundId, parts, failing);
    sources = refundSources(currency, movingOf(), publisherFunds, issuance);
  }
  const moving = movingOf();
  const declined = parts.find((p) => p.status === 'failed' && failing.has(p.payment_method_id));
  const now = new Date();
  const refund: RefundRecord = {
    id: refundId,
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
  // Posted here, not last: the summary counts what the tokens left unspent after it. The
  // integrator's accounts are locked from the start anyway (`lockForPosting` above).
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
  return result;
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

/** The refunds module's runners, refunding cards through `cards`. */
export function refundCommandsWith(cards: CardProcessor): CommandRunners {
  return {
    'invoice.refund': (em, commandId) => runRefundCommand(em, cards, commandId),
  };
}

/** The refunds module's runners on the sandbox card processor. */
export const refundCommands: CommandRunners = refundCommandsWith(sandboxCardProcessor);
