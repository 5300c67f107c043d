/**
 * Invoice use cases: checking a purchase (shared with escrow and invoice authorization),
 * creating standard invoices, what a pay decides, and reading any invoice (paying one:
 * invoice-pay.service).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, addFieldError, fieldErrors, type FieldErrors } from '../errors.js';
import { newId } from '../ids.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { db as pooled, type Db } from '../db/sql.js';
import { batchedPerPool } from '../db/batch.js';
import { assertCanTransact, blockedError } from '../blocks/block.service.js';
import { holdAccounts } from '../accounts/account.repository.js';
import { listMethods } from '../payment-methods/payment-method.repository.js';
import { methodRefusal, normalisePurchaseRequest, tokenWalletShares, type PurchaseRequest } from './purchase-request.rules.js';
import { insertOpenInvoices } from './invoice.repository.js';
import { purchaseFactsOf, type FactsQuery, type PurchaseFacts } from './purchase-facts.flow.js';
import { Invoice, type InvoiceMechanism, type StoredLineItem } from './invoice.entity.js';
import {
  invoiceView,
  metadataTooLarge,
  planMoney,
  sourceWalletProblem,
  type InvoiceRecord,
  type LineItemInput,
  type MoneyPlan,
  type PaymentMethodInput,
  type TokenPurchaseMetadata,
} from './invoice.rules.js';

export const invoiceNotFound = () => AppError.notFound('INVOICE_GET_ERROR', 'Invoice not found.');

/** An invoice the caller may see: its integrator's — for a user password token, its own account's only. */
export async function findInvoice(em: EntityManager, principal: Principal, invoiceId: string) {
  const invoice = await em.findOne(Invoice, { id: invoiceId, integratorId: principal.integratorId });
  if (!invoice || (principal.accountId !== undefined && invoice.accountId !== principal.accountId)) throw invoiceNotFound();
  return invoice;
}

/** One invoice the caller may see (GET /v2/invoice/{id}), or a 404. */
export async function getInvoice(em: EntityManager, principal: Principal, invoiceId: string) {
  return invoiceView(await findInvoice(em, principal, invoiceId));
}

/** A purchase request: the body of POST /v2/escrow and POST /v2/invoice. */
export interface PurchaseInput {
  account_id: string;
  reference_type?: string;
  reference_id?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  payment_methods: PaymentMethodInput[];
  line_items: LineItemInput[];
}

export type { PurchaseFacts } from './purchase-facts.flow.js';
export type { PurchaseRequest } from './purchase-request.rules.js';

/**
 * A purchase request as the money rules read it (`normalisePurchaseRequest`); when it names no
 * payment methods and is in the integrator's token currency, the buyer's token wallets pay
 * (`tokenWalletShares`). In any other currency omitted payment methods stay missing (400
 * `payment_methods: REQUIRED`). Another integrator's account is not read: 404.
 */
export async function purchaseInput(em: EntityManager, principal: Principal, request: PurchaseRequest): Promise<PurchaseInput> {
  const input = normalisePurchaseRequest(request);
  if (input.payment_methods !== undefined) return { ...input, payment_methods: input.payment_methods };
  const total = input.line_items.reduce((sum, l) => sum + l.amount, 0);
  const paid = await tokenWalletPayment(em, principal, input.account_id, input.line_items[0]?.currency, total);
  return { ...input, payment_methods: paid ?? [] };
}

/**
 * The payment methods of a purchase that names none: in the integrator's token currency, the
 * buyer's token wallets (`tokenWalletShares`, standard before convertible); undefined in any
 * other currency (the methods stay required). Another integrator's account is not read: 404.
 */
export async function tokenWalletPayment(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  currency: string | undefined,
  total: number,
): Promise<PaymentMethodInput[] | undefined> {
  const { tokenCurrency } = await integratorProfile(em, principal.integratorId);
  if (!tokenCurrency || currency !== tokenCurrency) return undefined;
  await requireAccount(em, principal, accountId);
  const wallets = (await listMethods(pooled(em), accountId))
    .filter((m) => m.provider === 'wallet' && m.processing_currency === currency && m.pm_state === 'active')
    .map((m) => ({ payment_method_id: m.id, wallet_kind: m.wallet_kind, balance: Number(m.balance ?? 0) }));
  return tokenWalletShares(total, wallets);
}

/**
 * Everything a purchase names: the buyer (and whether a block stops it buying), its payment
 * methods among those named, and the named wallets of the purchase's currency (with their
 * owners and whether a block stops them selling). The purchases of a turn of the event loop
 * are read in one statement.
 */
export const purchaseFacts = batchedPerPool(
  (em: EntityManager, queries: FactsQuery[]): Promise<PurchaseFacts[]> => purchaseFactsOf(pooled(em), queries),
);

function factsQuery(principal: Principal, input: PurchaseInput): FactsQuery {
  return {
    account_id: input.account_id,
    integrator_id: principal.integratorId,
    currency: input.line_items[0]?.currency ?? '',
    methods: input.payment_methods.map((pm) => pm.payment_method_id),
    wallets: input.line_items
      .flatMap((l) => (l.recipients ?? []).flatMap((r) => [r.destination_wallet_id, r.source_wallet_id ?? '']))
      .filter(Boolean),
  };
}

/**
 * Adds an error for each named payment method that cannot pay (`methodRefusal`): not the buyer's
 * (`NOT_FOUND`), payout-only (`PAYOUT_ONLY`) or of another currency than `currency`.
 */
export function methodErrors(fields: FieldErrors, named: PaymentMethodInput[], buyers: PurchaseFacts['methods'], currency: string): void {
  named.forEach((pm, i) => {
    const refusal = methodRefusal(
      buyers.find((m) => m.id === pm.payment_method_id),
      currency,
    );
    if (refusal) addFieldError(fields, `payment_methods.${i}.payment_method_id`, refusal);
  });
}

/** Checks the request against the caller's data; throws 400 naming every bad field. */
async function checkReferences(
  em: EntityManager,
  principal: Principal,
  input: PurchaseInput,
  currency: string,
  facts: PurchaseFacts,
): Promise<void> {
  const fields = fieldErrors();
  const integrator = await integratorProfile(em, principal.integratorId);
  if (currency !== 'USD' && currency !== integrator.tokenCurrency) addFieldError(fields, 'line_items.0.currency', 'UNSUPPORTED_CURRENCY');
  if (metadataTooLarge(input.metadata)) addFieldError(fields, 'metadata', 'TOO_LARGE');
  input.line_items.forEach((l, i) => {
    if (metadataTooLarge(l.metadata)) addFieldError(fields, `line_items.${i}.metadata`, 'TOO_LARGE');
  });

  methodErrors(fields, input.payment_methods, facts.methods, currency);

  const known = facts.wallets;
  input.line_items.forEach((l, i) => {
    (l.recipients ?? []).forEach((r, j) => {
      if (!known.some((w) => w.id === r.destination_wallet_id && w.kind === 'user_wallet')) {
        addFieldError(fields, `line_items.${i}.recipients.${j}.destination_wallet_id`, 'NOT_FOUND');
      }
      if (r.source_wallet_id && !known.some((w) => w.id === r.source_wallet_id)) {
        addFieldError(fields, `line_items.${i}.recipients.${j}.source_wallet_id`, 'NOT_FOUND');
      }
      // A share that would land where it starts, or back in a wallet the buyer pays with, moves
      // nothing: a posting of no entries, which the ledger refuses to record.
      const sourceProblem = sourceWalletProblem(r, input.payment_methods);
      if (sourceProblem) addFieldError(fields, `line_items.${i}.recipients.${j}.source_wallet_id`, sourceProblem);
    });
  });
  if (Object.keys(fields).length) throw AppError.invalid(fields);
  // A seller whose transactions are blocked cannot be paid through a new purchase.
  for (const l of input.line_items) {
    for (const r of l.recipients ?? []) {
      const seller = known.find((w) => w.id === r.destination_wallet_id);
      if (seller?.owner_blocked && seller.account_id) throw blockedError(seller.account_id);
    }
  }
}

export interface PreparedPurchase {
  plan: MoneyPlan;
  lineItems: StoredLineItem[];
  /** A token-currency purchase (invoice types take `_virtual`). */
  virtual: boolean;
  /** The accounts it names: its buyer and the owners of the wallets it pays (held while it is written: `writeHoldingAccounts`). */
  accounts: string[];
}

/**
 * Writes a new purchase (`write`, in one transaction) only while none of the accounts it names
 * can be blocked or merged meanwhile: the accounts are held first (a merge or block under way
 * makes this wait, and waits for this), then checked again on a fresh snapshot (403 for a
 * blocked one, as at creation). So a merge either counts the purchase or the purchase sees the
 * merge: no purchase can pay an account merged while it was being made.
 */
export async function writeHoldingAccounts<T>(db: Db, accountIds: string[], write: (tx: Db) => Promise<T>): Promise<T> {
  const ids = [...new Set(accountIds)];
  return db.transaction(async (tx) => {
    await holdAccounts(tx, ids);
    await assertCanTransact(tx, ids);
    return write(tx);
  });
}

/** Checks a purchase (money rules, then every id against the caller's data); 400 names every bad field. */
export async function preparePurchase(
  em: EntityManager,
  principal: Principal,
  input: PurchaseInput,
  opts: { chargesLater?: boolean } = {},
): Promise<PreparedPurchase> {
  const facts = await purchaseFacts(em, factsQuery(principal, input));
  if (!facts.buyer) throw AppError.notFound('ACCOUNT_GET_ERROR', 'Account not found.');
  if (facts.buyer.blocked) throw blockedError(input.account_id);
  const planned = planMoney(input.line_items, input.payment_methods, opts);
  if (!planned.ok) throw AppError.invalid(planned.fields);
  const { plan } = planned;
  await checkReferences(em, principal, input, plan.currency, facts);
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
      amount: r.amount,
      currency: r.currency,
      source_wallet_id: r.source_wallet_id ?? '',
      destination_wallet_id: r.destination_wallet_id,
    })),
  }));
  const payees = facts.wallets.flatMap((w) => (w.account_id ? [w.account_id] : []));
  return { plan, lineItems, virtual: plan.currency !== 'USD', accounts: [...new Set([input.account_id, ...payees])] };
}

/** The row of a new OPEN invoice for a checked purchase. */
export function purchaseInvoice(
  principal: Principal,
  input: PurchaseInput,
  prepared: PreparedPurchase,
  type: string,
  escrowId: string | null,
) {
  const now = new Date();
  return {
    id: newId('inv'),
    integratorId: principal.integratorId,
    accountId: input.account_id,
    escrowId,
    invoiceType: `${type}${prepared.virtual ? '_virtual' : ''}`,
    state: 'OPEN' as const,
    referenceType: input.reference_type ?? null,
    referenceId: input.reference_id ?? null,
    description: input.description ?? null,
    metadata: input.metadata ?? {},
    currency: prepared.plan.currency,
    totalAmount: prepared.plan.total,
    failureReason: null,
    paymentMethods: prepared.plan.charges.map((c) => ({
      payment_method_id: c.paymentMethodId,
      amount: c.amount,
      currency: prepared.plan.currency,
    })),
    lineItems: prepared.lineItems,
    invoiceMechanism: null as InvoiceMechanism | null,
    createdAt: now,
    updatedAt: now,
  };
}

/** Writes a new OPEN invoice another module made (a token purchase's), holding its buyer and the account it issues to. */
export async function addOpenInvoice(em: EntityManager, invoice: Omit<InvoiceRecord, 'state'> & { state: 'OPEN' }): Promise<void> {
  const { destination_account_id: destination } = invoice.metadata as Partial<TokenPurchaseMetadata>;
  await writeHoldingAccounts(pooled(em), [invoice.accountId, ...(destination ? [destination] : [])], (tx) =>
    insertOpenInvoices(tx, [{ ...invoice, invoiceMechanism: null }]),
  );
}

/** An invoice's view as it stands now (read on a fresh EntityManager: never a cached copy). */
export async function currentInvoiceView(em: EntityManager, invoiceId: string) {
  return invoiceView(await em.fork().findOneOrFail(Invoice, { id: invoiceId }));
}

/** Creates a standard (non-escrow) invoice, OPEN (POST /v2/invoice). */
export async function createInvoice(em: EntityManager, principal: Principal, request: PurchaseRequest) {
  const input = await purchaseInput(em, principal, request);
  const prepared = await preparePurchase(em, principal, input);
  const invoice = purchaseInvoice(principal, input, prepared, 'user_purchase', null);
  await writeHoldingAccounts(pooled(em), prepared.accounts, (tx) => insertOpenInvoices(tx, [invoice]));
  return invoiceView(invoice);
}

/** Whether a standard invoice's pay runs, already happened, or cannot happen (an escrow's invoice is paid through its escrow). */
export function invoicePayDecision(invoice: InvoiceRecord): 'run' | 'already' | 'processing' | 'conflict' {
  if (invoice.escrowId !== null || !(invoice.invoiceType.startsWith('user_purchase') || invoice.invoiceType === 'token_purchase'))
    return 'conflict';
  // PROCESSING: a buyer-present pay awaits its buyer's authentication; a pay meanwhile answers it as it stands (202).
  if (invoice.state === 'PROCESSING') return 'processing';
  return invoice.state === 'OPEN' ? 'run' : invoice.state === 'SUCCESS' ? 'already' : 'conflict';
}

/** The refusal of a pay the invoice's state does not allow (409 `INVOICE_STATE_ERROR`, the invoice as payload). */
export function invoiceStateConflict(invoice: InvoiceRecord, why?: string): AppError {
  why ??= invoice.escrowId !== null ? 'an escrow invoice is paid through its escrow' : `the invoice is ${invoice.state}`;
  return new AppError('invalid_state', `Cannot pay: ${why}.`, { codes: ['INVOICE_STATE_ERROR'], payload: invoiceView(invoice) });
}

/** The refusal of paying an authorized invoice whose buyer has not named its payment methods. */
export function noChargesYet(invoice: InvoiceRecord): AppError {
  return invoiceStateConflict(invoice, 'the buyer has not chosen the payment methods yet');
}

/**
 * An account's invoices, newest first (ids sort by creation time), `limit` at a time after the
 * cursor `startingAfter` (GET /v1/{account_id}/invoices). 404 for an account the caller cannot see.
 */
export async function listInvoices(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  page: { limit: number; startingAfter?: string },
) {
  await requireAccount(em, principal, accountId);
  const rows = await em.find(
    Invoice,
    { accountId, integratorId: principal.integratorId, ...(page.startingAfter ? { id: { $lt: page.startingAfter } } : {}) },
    { orderBy: { id: 'desc' }, limit: page.limit + 1 },
  );
  return { invoices: rows.slice(0, page.limit).map(invoiceView), has_more: rows.length > page.limit };
}

/** What `listAccountInvoices` asks for: states and invoice types (any, when absent), an order, a page. */
export interface AccountInvoicesQuery {
  states?: string[];
  invoiceTypes?: string[];
  sortField: 'created' | 'updated';
  sort: 'asc' | 'desc';
  limit: number;
  offset: number;
}

/**
 * An account's invoices of the states and types asked for, by creation or update time (then
 * id), one page of them, and how many match in all (GET /v2/invoice/account/{account_id}).
 * 404 for an account the caller cannot see. Indexes `invoice_account_created_idx`,
 * `invoice_account_updated_idx`.
 */
export async function listAccountInvoices(em: EntityManager, principal: Principal, accountId: string, q: AccountInvoicesQuery) {
  await requireAccount(em, principal, accountId);
  const [rows, total] = await em.findAndCount(
    Invoice,
    {
      accountId,
      integratorId: principal.integratorId,
      ...(q.states ? { state: { $in: q.states as InvoiceRecord['state'][] } } : {}),
      ...(q.invoiceTypes ? { invoiceType: { $in: q.invoiceTypes } } : {}),
    },
    {
      orderBy: q.sortField === 'updated' ? { updatedAt: q.sort, id: q.sort } : { createdAt: q.sort, id: q.sort },
      limit: q.limit,
      offset: q.offset,
    },
  );
  return { total, invoices: rows.map(invoiceView) };
}
