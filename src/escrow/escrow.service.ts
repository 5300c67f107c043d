/**
 * Escrow use cases. Creating an escrow checks every money rule and every id against the
 * caller's integrator, then writes the escrow (OPEN) and its escrow invoice in one transaction.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, addFieldError, fieldErrors } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../auth/auth.service.js';
import { Integrator } from '../auth/integrator.entity.js';
import { requireAccount } from '../accounts/account.service.js';
import { Invoice, type StoredLineItem } from '../invoices/invoice.entity.js';
import { metadataTooLarge } from '../invoices/invoice.rules.js';
import { Escrow } from './escrow.entity.js';
import { escrowView, planMoney, transitionDecision, type EscrowTransition, type LineItemInput, type PaymentMethodInput } from './escrow.rules.js';
import { stateConflict } from './escrow-phases.service.js';
import { submitCommand, commandResult, type CommandResult } from '../commands/command.service.js';
import type { CommandBus } from '../queues/command-bus.js';
import { success } from '../http/envelope.js';

export interface CreateEscrowInput {
  account_id: string;
  reference_type?: string;
  reference_id?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  payment_methods: PaymentMethodInput[];
  line_items: LineItemInput[];
}

const escrowNotFound = () => AppError.notFound('ESCROW_GET_ERROR', 'Escrow not found.');

/** Checks the request against the caller's data; throws 400 naming every bad field. */
async function checkReferences(em: EntityManager, principal: Principal, input: CreateEscrowInput, currency: string): Promise<void> {
  const fields = fieldErrors();
  const integrator = await em.findOneOrFail(Integrator, { id: principal.integratorId });
  if (currency !== 'USD' && currency !== integrator.tokenCurrency) addFieldError(fields, 'line_items.0.currency', 'UNSUPPORTED_CURRENCY');
  if (metadataTooLarge(input.metadata)) addFieldError(fields, 'metadata', 'TOO_LARGE');
  input.line_items.forEach((l, i) => {
    if (metadataTooLarge(l.metadata)) addFieldError(fields, `line_items.${i}.metadata`, 'TOO_LARGE');
  });

  const ids = input.payment_methods.map((pm) => pm.payment_method_id);
  const methods = await em.execute<Array<{ id: string; provider: string; processing_currency: string }>>(
    `select id, provider, processing_currency from payment_method where account_id = ? and pm_state = 'active' and id in (${ids.map(() => '?').join(', ')})`,
    [input.account_id, ...ids]);
  input.payment_methods.forEach((pm, i) => {
    const method = methods.find((m) => m.id === pm.payment_method_id);
    if (!method) addFieldError(fields, `payment_methods.${i}.payment_method_id`, 'NOT_FOUND');
    else if (method.processing_currency !== currency) addFieldError(fields, `payment_methods.${i}.payment_method_id`, 'INCOMPATIBLE_CURRENCY');
  });

  const wallets = input.line_items.flatMap((l) => (l.recipients ?? []).flatMap((r) => [r.destination_wallet_id, r.source_wallet_id ?? ''])).filter(Boolean);
  const known = wallets.length
    ? await em.execute<Array<{ id: string; kind: string }>>(
      `select id, kind from ledger_account where integrator_id = ? and currency = ? and kind in ('user_wallet', 'publisher_wallet') and id in (${wallets.map(() => '?').join(', ')})`,
      [principal.integratorId, currency, ...wallets])
    : [];
  input.line_items.forEach((l, i) => (l.recipients ?? []).forEach((r, j) => {
    if (!known.some((w) => w.id === r.destination_wallet_id && w.kind === 'user_wallet')) {
      addFieldError(fields, `line_items.${i}.recipients.${j}.destination_wallet_id`, 'NOT_FOUND');
    }
    if (r.source_wallet_id && !known.some((w) => w.id === r.source_wallet_id)) {
      addFieldError(fields, `line_items.${i}.recipients.${j}.source_wallet_id`, 'NOT_FOUND');
    }
  }));
  if (Object.keys(fields).length) throw AppError.invalid(fields);
}

/** Creates an OPEN escrow and its escrow invoice (spec §3.1: 201, `escrow_invoice_id` set). */
export async function createEscrow(em: EntityManager, principal: Principal, input: CreateEscrowInput) {
  await requireAccount(em, principal, input.account_id);
  const planned = planMoney(input.line_items, input.payment_methods);
  if (!planned.ok) throw AppError.invalid(planned.fields);
  const { plan } = planned;
  await checkReferences(em, principal, input, plan.currency);
  const virtual = plan.currency !== 'USD';
  const lineItems: StoredLineItem[] = input.line_items.map((l) => ({
    line_item_id: newId('li'),
    amount: l.amount,
    currency: l.currency,
    transaction_type: l.transaction_type,
    product_sku: l.product_sku ?? '',
    description: l.description ?? '',
    reference_type: l.reference_type ?? '',
    reference_id: l.reference_id ?? '',
    metadata: l.metadata ?? {},
    recipients: (l.recipients ?? []).map((r) => ({
      amount: r.amount, currency: r.currency, source_wallet_id: r.source_wallet_id ?? '', destination_wallet_id: r.destination_wallet_id,
    })),
  }));
  return em.transactional(async (tx) => {
    const now = new Date();
    const escrowId = newId('esc');
    const invoice = tx.create(Invoice, {
      id: newId('inv'),
      integratorId: principal.integratorId,
      accountId: input.account_id,
      escrowId,
      invoiceType: virtual ? 'user_purchase_escrow_virtual' : 'user_purchase_escrow',
      state: 'OPEN',
      referenceType: input.reference_type ?? null,
      referenceId: input.reference_id ?? null,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      currency: plan.currency,
      totalAmount: plan.total,
      failureReason: null,
      paymentMethods: plan.charges.map((c) => ({ payment_method_id: c.paymentMethodId, amount: c.amount, currency: plan.currency })),
      lineItems,
      createdAt: now,
      updatedAt: now,
    });
    const escrow = tx.create(Escrow, {
      id: escrowId,
      integratorId: principal.integratorId,
      accountId: input.account_id,
      status: 'OPEN',
      currency: plan.currency,
      totalAmount: plan.total,
      escrowInvoiceId: invoice.id,
      commitInvoiceId: null,
      cancelInvoiceId: null,
      referenceType: input.reference_type ?? null,
      referenceId: input.reference_id ?? null,
      description: input.description ?? null,
      metadata: input.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    });
    await tx.flush();
    return escrowView(escrow);
  });
}

/** The escrow as it stands (GET /v2/escrow/{id}). */
export async function getEscrow(em: EntityManager, principal: Principal, escrowId: string) {
  const escrow = await em.findOne(Escrow, { id: escrowId, integratorId: principal.integratorId });
  if (!escrow) throw escrowNotFound();
  const integrator = await em.findOneOrFail(Integrator, { id: principal.integratorId });
  return escrowView(escrow, integrator.name);
}

/**
 * Pay, commit or cancel (spec §4.2) as a command (DESIGN §1). A transition that already
 * happened or cannot happen is answered at once; otherwise the command row is written, its job
 * enqueued, and the answer is the command's result — or, past `syncWaitMs` or when the caller
 * prefers `respond-async`, 202 with the escrow as it stands and where to look.
 */
export async function transitionEscrow(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  escrowId: string,
  transition: EscrowTransition,
  opts: { respondAsync: boolean; syncWaitMs: number },
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const escrow = await em.findOne(Escrow, { id: escrowId, integratorId: principal.integratorId });
  if (!escrow) throw escrowNotFound();
  const integrator = (await em.findOneOrFail(Integrator, { id: principal.integratorId })).name;
  const decision = transitionDecision(escrow.status, transition);
  if (decision === 'already') return { status: 200, body: success(escrowView(escrow, integrator)) };
  if (decision === 'conflict') return stateConflict(escrow, transition, integrator);
  const commandId = await submitCommand(em, { integratorId: principal.integratorId, kind: `escrow.${transition}`, targetId: escrowId });
  await bus.enqueue(commandId);
  if (!opts.respondAsync) {
    const fork = em.fork();
    const done = await bus.waitFor(commandId, opts.syncWaitMs, async () => (await commandResult(fork, commandId)) !== null);
    if (done) {
      const result = await commandResult(em.fork(), commandId);
      if (result) return result;
    }
  }
  em.clear();
  const current = await em.findOneOrFail(Escrow, { id: escrowId });
  return {
    status: 202,
    body: success(escrowView(current, integrator)),
    headers: { Location: `/v2/escrow/${escrowId}`, 'X-Command-Id': commandId },
  };
}
