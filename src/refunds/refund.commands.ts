/**
 * The refunds module's command runner: a refund (`invoice.refund`). It locks the purchase invoice
 * (concurrent refunds of one invoice run one after the other), holds its buyer, then locks every
 * ledger account the refund may post to (`lockForPosting`). It decides the refund's cells from
 * what is left — refusing when nothing is, or a line-item refund asks for more — and how each
 * method's part goes; rejects (recorded, 409 `REFUND_REJECTED`) when the integrator's wallet
 * cannot cover the parts that go through; else writes the refund invoice, its events and
 * postings. On a real card processor the card parts are refunded between two transactions
 * (`runRefundCommand` says how).
 */
import { disputedByMethod } from '../disputes/dispute.repository.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { holdAccounts } from '../accounts/account.repository.js';
import { inCommandStep, inCommandTransaction, type LockedCommand } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import type { Db } from '../db/sql.js';
import { success } from '../envelope.js';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import type { InvoiceRecord } from '../invoices/invoice.rules.js';
import { invoiceNotFound } from '../invoices/invoice.service.js';
import { lockInvoice } from '../invoices/invoice.repository.js';
import { prepareCharges } from '../invoices/settlement.service.js';
import { lockForPosting, post, systemAccount, type Posting } from '../ledger/ledger.service.js';
import type { EntryInput } from '../ledger/ledger.rules.js';
import { REFUND_DECLINED_REASON } from '../rails/sandbox-card.rules.js';
import { sandboxCardProcessor } from '../rails/sandbox-card.adapter.js';
import { cardCallKey, refundRef, type CardProcessor, type CardProvider, type RefundResult } from '../rails/card-processor.port.js';
import { findProviderObject } from '../rails/provider-object.repository.js';
import { saveRefundSight, storedIntent } from '../invoices/card-charges.service.js';
import { db as pooled } from '../db/sql.js';
import { failpoint } from '../runtime/failpoints.js';
import { recordAudit } from '../audit/audit.service.js';
import { announceRefund, reverseRefundPart } from './refund-reversal.service.js';
import { insertRefundInvoice, refundsOf, setRefundParts, type RefundRecord } from './refund.repository.js';
import {
  blockedByDispute,
  withoutDisputed,
  REFUND_FAILED_LATER_REASON,
  REFUND_REJECTED_REASON,
  refundStateOf,
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
  disputedPart,
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
 * The `invoice.refund` runner. On the sandbox (a processor that decides at once) it is the one
 * command transaction: `planRefund` and `finishRefund` together. On a real card processor it runs
 * as a payout's execution does, in two transactions around the provider's calls:
 * - First (`inCommandStep`) the plan, decided once and committed: the refund invoice PROCESSING
 *   with its card parts `processing`, the command's id in its metadata, and its postings — the
 *   money leaves the integrator's wallet before the provider is asked, so what the wallet covered
 *   on locked balances stays covered. A run after a crash finds this plan (by the command's id)
 *   and resumes it: it never decides again.
 * - Then each `processing` part's Refund, outside any transaction, under the key
 *   `<command id>:refund:<payment method id>`: a retry gets the same Refund back, never a second.
 *   Its answer is stored at once (`provider_object`). The provider down leaves the command
 *   pending: its job retries with backoff and resumes from the plan.
 * - Last (`inCommandTransaction`) the answers: a part the provider took is `succeeded`; one it
 *   refused — or whose key it would not honour (same key, other parameters: an operator looks
 *   it up) — is `failed` and its money goes back to the integrator's wallet in one reversing
 *   posting (`reverseRefundPart`); the refund's state follows its parts; its events are emitted
 *   and the command ends with the summary.
 */
export async function runRefundCommand(em: EntityManager, cards: CardProcessor, commandId: string): Promise<CommandResult | null> {
  if (cards.provider) return runRefundThroughProvider(em, cards, cards.provider, commandId);
  const result = await inCommandTransaction(em, commandId, async (db, command) => {
    const planned = await planRefund(db, cards, command, false);
    return finishRefund(db, planned.purchase, planned.refund);
  });
  // A crash here: everything is committed, the job not yet finished in Redis.
  failpoint('refund.after-commit');
  return result;
}

/** A `processing` card part the provider is asked to refund. */
interface ProviderCall {
  paymentMethodId: string;
  amount: number;
  paymentIntentId: string;
}

async function runRefundThroughProvider(
  em: EntityManager,
  cards: CardProcessor,
  provider: CardProvider,
  commandId: string,
): Promise<CommandResult | null> {
  const step = await inCommandStep(em, commandId, async (db, command) => {
    const { refund } = await planRefund(db, cards, command, true);
    const calls: ProviderCall[] = [];
    for (const p of refund.paymentMethods as RefundCharge[]) {
      if (p.status !== 'processing') continue;
      const intent = await storedIntent(db, refund.refundedInvoiceId, p.payment_method_id);
      if (!intent) throw new Error(`refund ${refund.id}: its part to ${p.payment_method_id} has no stored PaymentIntent`);
      calls.push({ paymentMethodId: p.payment_method_id, amount: p.amount, paymentIntentId: intent.objectId });
    }
    return { refundId: refund.id, integratorId: refund.integratorId, calls };
  });
  if (!step) return null;
  if ('done' in step) return step.done;
  const { refundId, integratorId, calls } = step.value;
  const answers = new Map<string, RefundResult>();
  for (const c of calls) {
    const answer = await provider.refund(c.paymentIntentId, c.amount, cardCallKey(commandId, 'refund', c.paymentMethodId));
    // Kept at once, so a `refund.failed` arriving before the outcome below finds the Refund.
    if (answer.refundId && answer.snapshot)
      await saveRefundSight(pooled(em), {
        provider: 'stripe',
        objectId: answer.refundId,
        objectType: 'refund',
        integratorId,
        holdfastRef: refundRef(refundId, c.paymentMethodId),
        snapshot: answer.snapshot,
      });
    answers.set(c.paymentMethodId, answer);
  }
  // A crash here: the provider refunded, nothing of its answers is recorded on the refund.
  failpoint('refund.after-provider');
  const result = await inCommandTransaction(em, commandId, async (db, command) => {
    const purchase = await lockInvoice(db, command.target_id);
    const refund = await lockInvoice(db, refundId);
    if (!purchase || !refund) throw new Error(`refund ${refundId} of invoice ${command.target_id} is gone`);
    const parts = (refund.paymentMethods as RefundCharge[]).map((p) => ({ ...p }));
    const failed: Array<[string, string]> = [];
    for (const p of parts) {
      if (p.status !== 'processing') continue;
      const answer = answers.get(p.payment_method_id);
      if (!answer) throw new Error(`refund ${refundId}: its part to ${p.payment_method_id} was not asked`);
      // The Refund as last seen (an event may have moved it past this answer).
      const seen = answer.refundId ? ((await findProviderObject(db, 'stripe', answer.refundId))?.snapshot ?? answer.snapshot) : null;
      const status = String(seen?.status ?? '');
      if (!answer.ok) failed.push([p.payment_method_id, answer.reason]);
      else if (status === 'failed' || status === 'canceled') failed.push([p.payment_method_id, REFUND_FAILED_LATER_REASON]);
      else p.status = 'succeeded';
    }
    // The failing parts stay `processing` until their reversal marks them failed.
    refund.paymentMethods = parts;
    refund.state = failed.length ? 'PROCESSING' : refundStateOf(parts);
    refund.updatedAt = await setRefundParts(db, refund.id, refund.state, refund.failureReason ?? null, parts);
    for (const [pm, reason] of failed) await reverseRefundPart(db, refund, pm, reason, { announce: false });
    return finishRefund(db, purchase, { ...refund, refundedInvoiceId: purchase.id });
  });
  // A crash here: everything is committed, the job not yet finished in Redis.
  failpoint('refund.after-commit');
  return result;
}

/** A refund's events (`refund-completed`, `invoice-completed`) and the command's answer: the summary, or 409 for a rejected refund. */
async function finishRefund(db: Db, purchase: InvoiceRecord, refund: RefundRecord): Promise<CommandResult> {
  await announceRefund(db, refund);
  const summary = await summaryIn(db, purchase);
  if (refund.failureReason !== REFUND_REJECTED_REASON) return { status: 200, body: success(summary) };
  return errorReply(
    new AppError('invalid_state', "The integrator's wallet cannot cover this refund.", {
      codes: ['REFUND_REJECTED'],
      payload: summary,
    }),
  );
}

/**
 * The refund decided and written (not yet announced): lock the purchase invoice (concurrent
 * refunds of one invoice run one after the other), hold its buyer, then lock every ledger
 * account the refund may post to, in one statement (`lockForPosting`'s order, so refunds never
 * deadlock one another). Decide the refund's cells from what is left — refusing when nothing is,
 * or a line-item refund asks for more — and how each method's part goes; reject (recorded) when
 * the integrator's wallet cannot cover the parts that go through; else write the refund invoice
 * and its postings. `viaProvider`: card parts charged through the provider are `processing`
 * (posted, the provider asked next), and a plan this command wrote before is answered as it is.
 */
async function planRefund(
  db: Db,
  cards: CardProcessor,
  command: LockedCommand,
  viaProvider: boolean,
): Promise<{ purchase: InvoiceRecord; refund: RefundRecord }> {
  const purchase = await lockInvoice(db, command.target_id);
  if (!purchase) throw invoiceNotFound();
  if (viaProvider) {
    // A run after a crash: this command's plan stands; nothing is decided again.
    const planned = (await refundsOf(db, purchase.id)).find((r) => (r.metadata as { command_id?: string }).command_id === command.id);
    if (planned) return { purchase, refund: planned };
  }
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
  const all = refundable(purchase, await refundsOf(db, purchase.id));
  // A disputed card part went back to the cardholder through the processor: it is not refunded again.
  const left = withoutDisputed(all, await disputedByMethod(db, purchase.id));
  if (blockedByDispute(all, left, input.line_item_id ? (input.payment_methods ?? []) : undefined)) throw disputedPart();
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
  if (viaProvider)
    for (const p of parts)
      if (p.status === 'succeeded' && (await storedIntent(db, purchase.id, p.payment_method_id))) p.status = 'processing';
  const moving = parts.filter((p) => p.status !== 'failed').reduce((sum, p) => sum + p.amount, 0);
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
    state: sources ? refundStateOf(parts) : 'FAILED',
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
      // The command that planned it (a rerun resumes it) and what was refunded before (a reversal's tokens count from it).
      ...(viaProvider ? { command_id: command.id, refunded_before: left.refunded } : {}),
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
  // The refund a client asked for (POST /v2/refund, /v2/line-item/refund), recorded with the refund it made.
  if (command.audit)
    await recordAudit(db, {
      integratorId,
      context: { ...command.audit, reason: command.audit.reason ?? input.reason ?? null },
      action: 'refund.request',
      target: { type: 'invoice', id: purchase.id },
      after: {
        refund_invoice_id: refund.id,
        state: refund.state,
        amount: refund.totalAmount,
        currency,
        ...(input.line_item_id ? { line_item_id: input.line_item_id } : {}),
        ...(input.sub_reason ? { sub_reason: input.sub_reason } : {}),
      },
    });
  // A crash here: the refund invoice is written but not committed.
  failpoint('refund.before-post');
  const postings =
    sources && moving > 0 ? refundPostings(purchase, refund, sources, methods, tokenWallet, tokenIssuance, left.refunded) : [];
  // Posted here, not last: the summary counts what the tokens left unspent after it. The
  // integrator's accounts are locked from the start anyway (`lockForPosting` above).
  if (postings.length && (await post(db, ...postings)) !== postings.length)
    throw new Error(`refund ${refund.id}: its postings were not written`);
  return { purchase, refund };
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
  const back = (refund.paymentMethods as RefundCharge[]).filter((p) => p.status !== 'failed');
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
