/**
 * The invoices module's command runner: paying a standard invoice (the worker's side of
 * `POST /v2/invoice/{invoice_id}/pay` and of a token purchase). In the one command transaction:
 * lock the invoice, decide every charge before posting (all or nothing), settle the line items
 * straight to their wallets (and issue tokens for a token purchase), record
 * `invoice-completed`. Safe to run any number of times (unique posting references).
 *
 * A buyer-present pay (the hosted checkout: its command carries the page's `return_url`) whose
 * card needs 3-D Secure leaves the invoice PROCESSING with the provider's page in
 * `next_action_url`, moving nothing; the provider's webhook then submits `invoice.confirm`, which
 * reads the PaymentIntent as it stands and decides the pay as `invoice.pay` would have.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { commandTarget, type CommandWorkResult, inCommandTransaction } from '../commands/command.service.js';
import type { CommandResult, CommandRunners } from '../commands/command.registry.js';
import { db as pooled, type Db } from '../db/sql.js';
import type { CardProcessor, CardProvider, CardVerdicts } from '../rails/card-processor.port.js';
import { sandboxCardProcessor } from '../rails/sandbox-card.adapter.js';
import {
  authorizeInvoiceCards,
  chargeIntents,
  refreshAwaitedIntents,
  releaseCardAuthorizations,
  settleCardAuthorizations,
  type CardAuthorizations,
} from './card-charges.service.js';
import { authenticationVerdict } from './card-authentication.rules.js';
import { AppError } from '../errors.js';
import { success } from '../envelope.js';
import { systemAccount, type Posting } from '../ledger/ledger.service.js';
import { walletAccountOf } from '../payment-methods/payment-method.repository.js';
import { insertEvent } from '../webhooks/outbox.service.js';
import { invoicePaysMergedAccount, lockInvoice, readInvoice, setInvoiceAwaitingAction, setInvoiceState } from './invoice.repository.js';
import { invoiceView, type InvoiceRecord, type TokenPurchaseMetadata } from './invoice.rules.js';
import { invoiceNotFound, invoicePayDecision, invoiceStateConflict, noChargesYet } from './invoice.service.js';
import { type ChargeSource, paymentFailure, prepareCharges, settle } from './settlement.service.js';

/** The issuing half of a token purchase: new standard tokens, from issuance to the buyer's wallet. */
async function issueTokens(db: Db, invoice: InvoiceRecord): Promise<Posting> {
  const meta = invoice.metadata as unknown as TokenPurchaseMetadata;
  const wallet = await walletAccountOf(db, meta.destination_account_id, meta.token_currency, 'standard');
  if (!wallet) throw new Error(`account ${meta.destination_account_id} has no standard ${meta.token_currency} wallet`);
  const issuance = await systemAccount(db, invoice.integratorId, 'token_issuance', meta.token_currency);
  return {
    integratorId: invoice.integratorId,
    reference: `invoice:${invoice.id}:issue`,
    description: `invoice ${invoice.id} issues ${meta.tokens} ${meta.token_currency}`,
    entries: [
      { account: issuance, currency: meta.token_currency, amount: -meta.tokens },
      { account: wallet, currency: meta.token_currency, amount: meta.tokens },
    ],
  };
}

/**
 * A real card processor's authorizations for the command's invoice, made before its transaction
 * (card-charges.service.ts says why); null when there is nothing to authorize now.
 */
async function authorizeBefore(db: Db, provider: CardProvider, commandId: string): Promise<CardAuthorizations | null> {
  const command = await commandTarget(db, commandId);
  if (command?.state !== 'pending') return null;
  const invoice = await readInvoice(db, command.target_id);
  if (invoice?.state !== 'OPEN' || invoice.paymentMethods.length === 0) return null;
  const returnUrl = command.input?.return_url;
  return authorizeInvoiceCards(db, provider, commandId, invoice, typeof returnUrl === 'string' ? { returnUrl } : undefined);
}

/**
 * The `invoice.pay` runner: pays the command's invoice in the one command transaction. A pay
 * that cannot run (no such invoice, a state that refuses it) throws its AppError before anything
 * is written. With a real card processor its cards are authorized before the transaction and
 * captured (or released) after it, on every run.
 */
export async function runInvoiceCommand(em: EntityManager, cards: CardProcessor, commandId: string): Promise<CommandResult | null> {
  const provider = cards.provider;
  const authorized = provider ? await authorizeBefore(pooled(em), provider, commandId) : null;
  let result: CommandResult | null;
  try {
    result = await decide(em, authorized?.verdicts ?? cards, authorized?.unasked, commandId, authorized?.actions);
  } catch (err) {
    // A refusal (an AppError: the buyer merged meanwhile…) leaves the invoice as it was: let its holds go.
    if (provider && authorized && err instanceof AppError) {
      const invoice = await invoiceOfCommand(pooled(em), commandId);
      if (invoice) await releaseCardAuthorizations(pooled(em), provider, commandId, invoice);
    }
    throw err;
  }
  if (provider) {
    const invoice = await invoiceOfCommand(pooled(em), commandId);
    if (invoice) await settleCardAuthorizations(pooled(em), provider, commandId, invoice);
  }
  return result;
}

async function invoiceOfCommand(db: Db, commandId: string) {
  const command = await commandTarget(db, commandId);
  return command && readInvoice(db, command.target_id);
}

function decide(
  em: EntityManager,
  cards: CardVerdicts,
  unasked: Set<string> | undefined,
  commandId: string,
  actions?: Map<string, string>,
): Promise<CommandResult | null> {
  return inCommandTransaction(em, commandId, async (db, command) => {
    const invoice = await lockInvoice(db, command.target_id);
    if (!invoice) throw invoiceNotFound();
    const decision = invoicePayDecision(invoice);
    if (decision === 'already') return { status: 200, body: success(invoiceView(invoice)) };
    if (decision === 'processing') return { status: 202, body: success(invoiceView(invoice)) };
    if (decision === 'conflict') throw invoiceStateConflict(invoice);
    // An authorized invoice whose buyer has not named its payment methods: nothing to charge yet.
    if (invoice.paymentMethods.length === 0) throw noChargesYet(invoice);
    // Money never lands in a merged account: an invoice that would pay one is not paid.
    if (await invoicePaysMergedAccount(db, invoice.id))
      throw invoiceStateConflict(invoice, 'it pays an account that was merged into another');
    // Cards awaiting their buyer's authentication count as paying while the rest is decided: the
    // pay waits for the buyer only when everything else would go through.
    const awaiting = actions?.size ? actions : undefined;
    const verdicts: CardVerdicts = awaiting
      ? { ...cards, chargeFailure: (card, id) => (awaiting.has(id) ? null : cards.chargeFailure(card, id)) }
      : cards;
    const sources = await prepareCharges(db, invoice.integratorId, invoice.currency, invoice.paymentMethods, true, verdicts);
    const reason = paymentFailure(sources);
    // A wallet that fell short before the cards were asked covers the pay now: ask them first.
    if (!reason && unasked?.size) throw new Error(`invoice ${invoice.id}: its cards were not authorized yet; run again`);
    if (!reason && awaiting) {
      // Nothing moves yet (no wallet is held): the webhook's invoice.confirm decides the whole pay again.
      const url = [...awaiting.values()][0];
      invoice.state = 'PROCESSING';
      invoice.nextActionUrl = url;
      invoice.updatedAt = await setInvoiceAwaitingAction(db, invoice.id, url);
      return { status: 202, body: success(invoiceView(invoice)) };
    }
    return complete(db, invoice, sources, reason);
  });
}

/** A pay decided: SUCCESS with its postings (and the tokens of a token purchase), or FAILED with `reason`; `invoice-completed`. */
async function complete(db: Db, invoice: InvoiceRecord, sources: ChargeSource[], reason: string | undefined): Promise<CommandWorkResult> {
  const postings: Posting[] = [];
  if (reason) {
    invoice.state = 'FAILED';
    invoice.failureReason = reason;
  } else {
    invoice.state = 'SUCCESS';
    if (invoice.invoiceType === 'token_purchase') postings.push(await issueTokens(db, invoice));
    postings.push(
      ...(await settle(db, {
        integratorId: invoice.integratorId,
        currency: invoice.currency,
        reference: `invoice:${invoice.id}:pay`,
        description: `invoice ${invoice.id} pay`,
        from: sources.map((s) => ({ account: s.account, currency: invoice.currency, amount: -s.amount })),
        lineItems: invoice.lineItems,
      })),
    );
  }
  invoice.updatedAt = await setInvoiceState(db, invoice.id, invoice.state, invoice.failureReason ?? null);
  invoice.nextActionUrl = null;
  const view = invoiceView(invoice);
  await insertEvent(db, invoice.integratorId, 'invoice-completed', view);
  return { status: 200, body: success(view), postings };
}

/**
 * The `invoice.confirm` runner: settles a PROCESSING invoice whose buyer-present card charge
 * awaited 3-D Secure, once the provider's webhook said its PaymentIntent moved. The awaited
 * intents are read again from the provider first (outside the transaction), so events in any
 * order decide alike. In the command transaction, with the invoice locked: an invoice no longer
 * PROCESSING is answered as it is (settled once); a charge still awaiting its buyer leaves it
 * PROCESSING (202); a failed or abandoned authentication fails the pay; else the whole pay is
 * decided as `invoice.pay` decides it (wallets locked and checked now) — the same postings as
 * any card pay. After the commit the card holds are captured or released, as for a pay.
 */
export async function runInvoiceConfirm(em: EntityManager, cards: CardProcessor, commandId: string): Promise<CommandResult | null> {
  const provider = cards.provider;
  const before = await invoiceOfCommand(pooled(em), commandId);
  if (before?.state === 'PROCESSING') {
    // Only a process on the processor that made the charge can read it: another leaves the command pending for it.
    if (!provider) throw new Error(`invoice ${before.id}: its card charges await a provider this process has no client for`);
    await refreshAwaitedIntents(pooled(em), provider, before);
  }
  const result = await inCommandTransaction(em, commandId, async (db, command) => {
    const invoice = await lockInvoice(db, command.target_id);
    if (!invoice) throw invoiceNotFound();
    if (invoice.state !== 'PROCESSING' || invoice.escrowId !== null) return { status: 200, body: success(invoiceView(invoice)) };
    const verdicts = new Map([...(await chargeIntents(db, invoice))].map(([id, intent]) => [id, authenticationVerdict(intent.snapshot)]));
    const failed = [...verdicts.values()].find((v) => v.state === 'failed');
    const awaiting = [...verdicts.values()].find((v) => v.state === 'awaiting');
    if (!failed && awaiting) {
      // Another card of the pay still waits on its buyer: its page is the one to show now.
      if (awaiting.url && awaiting.url !== invoice.nextActionUrl) {
        invoice.nextActionUrl = awaiting.url;
        invoice.updatedAt = await setInvoiceAwaitingAction(db, invoice.id, awaiting.url);
      }
      return { status: 202, body: success(invoiceView(invoice)) };
    }
    const chargeFailure = (_card: unknown, id: string) => {
      const v = verdicts.get(id);
      return v === undefined ? undefined : v.state === 'authorized' ? null : v.state === 'failed' ? v.reason : 'authentication_required';
    };
    const sources = await prepareCharges(db, invoice.integratorId, invoice.currency, invoice.paymentMethods, true, {
      chargeFailure,
      refundFailure: () => null,
    });
    return complete(db, invoice, sources, failed?.state === 'failed' ? failed.reason : paymentFailure(sources));
  });
  if (provider) {
    const invoice = await invoiceOfCommand(pooled(em), commandId);
    if (invoice) await settleCardAuthorizations(pooled(em), provider, commandId, invoice);
  }
  return result;
}

/** The invoices module's runners, paying cards through `cards`. */
export function invoiceCommandsWith(cards: CardProcessor): CommandRunners {
  return {
    'invoice.pay': (em, commandId) => runInvoiceCommand(em, cards, commandId),
    'invoice.confirm': (em, commandId) => runInvoiceConfirm(em, cards, commandId),
  };
}

/** The invoices module's runners on the sandbox card processor. */
export const invoiceCommands: CommandRunners = invoiceCommandsWith(sandboxCardProcessor);
