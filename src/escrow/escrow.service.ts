/**
 * Escrow use cases. Creating an escrow checks the purchase (every money rule, every id against
 * the caller's integrator), then writes the escrow (OPEN) and its escrow invoice in one
 * transaction; pay, commit and cancel are commands.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, errorReply } from '../errors.js';
import { newId } from '../ids.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { requireAccount } from '../accounts/account-access.service.js';
import {
  escrowFromRow,
  escrowStateConflict,
  escrowView,
  runnableFrom,
  transitionDecision,
  type EscrowRecord,
  type EscrowRow,
  type EscrowTransition,
} from './escrow.rules.js';
import { db as pooled, type Db } from '../db/sql.js';
import {
  escrowOfIntegrator,
  escrowsByReference,
  escrowsOfAccount,
  escrowsOfIntegrator,
  heldForAccount,
  requestTransitionRows,
  type LookupPage,
} from './escrow.repository.js';
import { batchedPerPool } from '../db/batch.js';
import { insertPurchases } from './purchase.flow.js';
import {
  findInvoice,
  preparePurchase,
  purchaseInput,
  purchaseInvoice,
  writeHoldingAccounts,
  type PurchaseRequest,
} from '../invoices/invoice.service.js';
import { followCommand, submitCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import type { CommandBus } from '../queues/command-bus.js';
import { success } from '../envelope.js';
import { currentTraceparent } from '../runtime/tracing-hooks.js';

const escrowNotFound = () => AppError.notFound('ESCROW_GET_ERROR', 'Escrow not found.');

/** A checked purchase to write: its invoice, and the accounts it names (held while it is written). */
interface NewEscrow {
  invoice: ReturnType<typeof purchaseInvoice>;
  accounts: string[];
}

/** Writes purchases in one statement, holding the accounts they name (see `writeHoldingAccounts`). */
function writeEscrows(db: Db, escrows: NewEscrow[]): Promise<void> {
  return writeHoldingAccounts(
    db,
    escrows.flatMap((e) => e.accounts),
    (tx) =>
      insertPurchases(
        tx,
        escrows.map((e) => e.invoice),
      ),
  );
}

/**
 * The escrows created in a turn of the event loop are written by one statement (in one
 * transaction that holds the accounts they name); when it fails, each is written alone, so one
 * that cannot be written (a database refusal, an account blocked or merged meanwhile) fails alone.
 */
const insertEscrow = batchedPerPool(async (em: EntityManager, escrows: NewEscrow[]): Promise<Array<Error | null>> => {
  const db = pooled(em);
  try {
    await writeEscrows(db, escrows);
    return escrows.map(() => null);
  } catch (err) {
    if (escrows.length === 1) return [err as Error];
    return Promise.all(
      escrows.map((one) =>
        writeEscrows(db, [one]).then(
          () => null,
          (e: unknown) => e as Error,
        ),
      ),
    );
  }
});

/** Creates an OPEN escrow and its escrow invoice (201, `escrow_invoice_id` set). */
export async function createEscrow(em: EntityManager, principal: Principal, request: PurchaseRequest) {
  const input = await purchaseInput(em, principal, request);
  const prepared = await preparePurchase(em, principal, input);
  const escrowId = newId('esc');
  const invoice = purchaseInvoice(principal, input, prepared, 'user_purchase_escrow', escrowId);
  const escrow = {
    id: escrowId,
    integratorId: principal.integratorId,
    accountId: input.account_id,
    status: 'OPEN' as const,
    currency: invoice.currency,
    totalAmount: invoice.totalAmount,
    escrowInvoiceId: invoice.id,
    commitInvoiceId: null,
    cancelInvoiceId: null,
    metadata: invoice.metadata,
    createdAt: invoice.createdAt,
    updatedAt: invoice.updatedAt,
  };
  const stored = await insertEscrow(em, { invoice, accounts: prepared.accounts });
  if (stored instanceof Error) throw stored;
  return escrowView(escrow);
}

/** The caller's escrow, read outside any transaction, or a 404. */
async function findEscrow(db: Db, principal: Principal, escrowId: string) {
  const row = await escrowOfIntegrator(db, principal.integratorId, escrowId);
  if (!row) throw escrowNotFound();
  return escrowFromRow(row);
}

/** The escrow as it stands (GET /v2/escrow/{id}). */
export async function getEscrow(em: EntityManager, principal: Principal, escrowId: string) {
  const escrow = await findEscrow(pooled(em), principal, escrowId);
  return escrowView(escrow, (await integratorProfile(em, principal.integratorId)).name);
}

interface TransitionRequest {
  escrowId: string;
  integratorId: string;
  kind: 'escrow.pay' | 'escrow.commit' | 'escrow.cancel';
  /** The states the transition runs from (where a command is worth making). */
  runnable: string[];
  /** The W3C traceparent of the request (tracing on). */
  traceparent?: string;
}

/**
 * Requests of a turn of the event loop in one statement: each caller's escrow and, when its
 * transition can run from the escrow's state, the pending command for it (made unless one
 * exists: concurrent requests share it). Undefined row: no such escrow for that integrator.
 */
async function requestTransitions(db: Db, requests: TransitionRequest[]): Promise<Array<{ row?: EscrowRow; commandId: string | null }>> {
  const rows = await requestTransitionRows(
    db,
    requests.map((r) => ({ ...r, commandId: newId('cmd') })),
  );
  return rows.map((row) => ({ row, commandId: row?.command_id ?? null }));
}

/** The requests of a turn run as one statement (see `requestTransitions`); the same request twice in a turn is asked once. */
const requestTransition = batchedPerPool(async (em: EntityManager, requests: TransitionRequest[]) => {
  const key = (r: TransitionRequest) => `${r.escrowId}\u0000${r.integratorId}\u0000${r.kind}`;
  const distinct = [...new Map(requests.map((r) => [key(r), r])).values()];
  const answers = await requestTransitions(pooled(em), distinct);
  const byKey = new Map(distinct.map((r, i) => [key(r), answers[i]]));
  return requests.map((r) => byKey.get(key(r))!);
}, 256);

/**
 * Pay, commit or cancel (`payEscrow`, `commitEscrow`, `cancelEscrow`) as a command. A transition that already
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
  const db = pooled(em);
  const kind = `escrow.${transition}` as const;
  const { row, commandId: made } = await requestTransition(em, {
    escrowId,
    integratorId: principal.integratorId,
    kind,
    runnable: runnableFrom(transition),
    traceparent: currentTraceparent(),
  });
  if (!row) throw escrowNotFound();
  const escrow = escrowFromRow(row);
  const integrator = (await integratorProfile(em, principal.integratorId)).name;
  const decision = transitionDecision(escrow.status, transition);
  if (decision === 'already') return { status: 200, body: success(escrowView(escrow, integrator)) };
  if (decision === 'conflict') return errorReply(escrowStateConflict(escrow, transition, integrator));
  const commandId: string = made ?? (await submitCommand(db, { integratorId: principal.integratorId, kind, targetId: escrowId }));
  return followCommand(em, bus, commandId, kind, {
    ...opts,
    location: `/v2/escrow/${escrowId}`,
    current: async () => success(escrowView(await findEscrow(db, principal, escrowId), integrator)),
  });
}

/** The integrator's escrows with this `reference_id` (of one status, when named), a page of them and how many there are. */
export async function findEscrowsByReference(
  em: EntityManager,
  principal: Principal,
  referenceId: string,
  status: string | undefined,
  page: LookupPage,
) {
  const { total, rows } = await escrowsByReference(pooled(em), principal.integratorId, referenceId, status, page);
  const integrator = (await integratorProfile(em, principal.integratorId)).name;
  return { total, escrow_transactions: rows.map((r) => escrowView(escrowFromRow(r), integrator)) };
}

/**
 * The escrow an invoice belongs to — its escrow invoice, or the commit or cancel invoice of one
 * — as `getEscrow` shows it. 404 `INVOICE_GET_ERROR` for an invoice the caller cannot see;
 * 404 `ESCROW_GET_ERROR` for one of its invoices that belongs to no escrow (a standard invoice,
 * a token purchase).
 */
export async function escrowOfInvoice(em: EntityManager, principal: Principal, invoiceId: string) {
  const invoice = await findInvoice(em, principal, invoiceId);
  if (!invoice.escrowId) throw AppError.notFound('ESCROW_GET_ERROR', 'The invoice belongs to no escrow.');
  return getEscrow(em, principal, invoice.escrowId);
}

/** The integrator's escrows among these ids (as records), for a statement naming them. */
export async function escrowsAmong(em: EntityManager, integratorId: string, escrowIds: string[]): Promise<EscrowRecord[]> {
  return (await escrowsOfIntegrator(pooled(em), integratorId, escrowIds)).map((r) => escrowFromRow(r));
}

/**
 * The escrows the account bought, newest first (a page, and how many in all), each as
 * `getEscrow` shows it with its currency and amount: the console's account page. 404 for an
 * account the caller cannot see.
 */
export async function accountEscrows(em: EntityManager, principal: Principal, accountId: string, page: { limit: number; offset: number }) {
  await requireAccount(em, principal, accountId);
  const { total, rows } = await escrowsOfAccount(pooled(em), principal.integratorId, accountId, page);
  return {
    total,
    escrows: rows.map((r) => {
      const escrow = escrowFromRow(r);
      return { ...escrowView(escrow), currency: escrow.currency, total_amount: escrow.totalAmount };
    }),
  };
}

/** What the account's ESCROWED escrows hold as their buyer, per currency. */
export function heldInEscrow(em: EntityManager, integratorId: string, accountId: string) {
  return heldForAccount(pooled(em), integratorId, accountId);
}
