/** Escrow rules (pure): which transitions run in which state, the escrow's view, its refusals. */
import { AppError } from '../errors.js';

export type EscrowStatus = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';

export type EscrowTransition = 'pay' | 'commit' | 'cancel';

/**
 * What a transition request does in a state: `run` it, answer with the escrow as it is because
 * it `already` happened (200), or refuse a `conflict` (409 `ESCROW_STATE_ERROR`).
 */
export function transitionDecision(status: EscrowStatus, transition: EscrowTransition): 'run' | 'already' | 'conflict' {
  if (status === 'ESCROW-FAILED') return 'conflict';
  switch (transition) {
    case 'pay':
      return status === 'OPEN' ? 'run' : 'already';
    case 'commit':
      return status === 'ESCROWED' ? 'run' : status === 'COMMITTED' ? 'already' : 'conflict';
    case 'cancel':
      return status === 'ESCROWED' ? 'run' : status === 'CANCELLED' ? 'already' : 'conflict';
  }
}

/** The states from which a transition runs (where its command is worth making). */
export function runnableFrom(transition: EscrowTransition): EscrowStatus[] {
  return (['OPEN', 'ESCROWED', 'ESCROW-FAILED', 'COMMITTED', 'CANCELLED'] as const).filter(
    (s) => transitionDecision(s, transition) === 'run',
  );
}

/** The state a transition that runs successfully leads to. */
export const TRANSITION_TARGET: Record<EscrowTransition, EscrowStatus> = { pay: 'ESCROWED', commit: 'COMMITTED', cancel: 'CANCELLED' };

/**
 * The escrow fields its view needs (an entity or a row mapped by the worker). Spelled out here
 * rather than picked from the entity: the entity's status type comes from these rules.
 */
export interface EscrowRecord {
  id: string;
  integratorId: string;
  accountId: string;
  status: EscrowStatus;
  currency: string;
  totalAmount: number;
  escrowInvoiceId: string;
  commitInvoiceId?: string | null;
  cancelInvoiceId?: string | null;
  metadata: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

/** The escrow as `getEscrow` answers it; `integrator` is left out of the create response, as the spec shows it. */
export function escrowView(escrow: EscrowRecord, integrator?: string) {
  return {
    id: escrow.id,
    account_id: escrow.accountId,
    escrow_invoice_id: escrow.escrowInvoiceId,
    commit_invoice_id: escrow.commitInvoiceId ?? '',
    cancel_invoice_id: escrow.cancelInvoiceId ?? '',
    status: escrow.status,
    ...(integrator !== undefined ? { integrator } : {}),
    metadata: escrow.metadata,
    created: escrow.createdAt.toISOString(),
    updated: escrow.updatedAt.toISOString(),
  };
}

/** An escrow row as read (snake_case columns). */
export interface EscrowRow {
  id: string;
  integrator_id: string;
  account_id: string;
  status: EscrowStatus;
  currency: string;
  /** bigint: text from the driver. */
  total_amount: string | number;
  escrow_invoice_id: string;
  commit_invoice_id: string | null;
  cancel_invoice_id: string | null;
  metadata: Record<string, unknown>;
  created_at: Date | string;
  updated_at: Date | string;
}

/** An escrow row as an EscrowRecord. */
export function escrowFromRow(r: EscrowRow): EscrowRecord {
  return {
    id: r.id,
    integratorId: r.integrator_id,
    accountId: r.account_id,
    status: r.status,
    currency: r.currency,
    totalAmount: Number(r.total_amount),
    escrowInvoiceId: r.escrow_invoice_id,
    commitInvoiceId: r.commit_invoice_id,
    cancelInvoiceId: r.cancel_invoice_id,
    metadata: r.metadata,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** The refusal of a transition the escrow's state does not allow (409 `ESCROW_STATE_ERROR`, the escrow as payload). */
export function escrowStateConflict(escrow: EscrowRecord, transition: EscrowTransition, integrator: string, why?: string): AppError {
  const message = why ? `The escrow cannot ${transition}: ${why}.` : `The escrow is ${escrow.status}; ${transition} is not allowed.`;
  return new AppError('invalid_state', message, { codes: ['ESCROW_STATE_ERROR'], payload: escrowView(escrow, integrator) });
}

/** Page size when none is asked for, and the most one page holds. */
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** A query's `limit` and `offset` (strings, already validated) as numbers, with their defaults. */
export function pageOf(query: { limit?: unknown; offset?: unknown }): { limit: number; offset: number } {
  const limit = query.limit === undefined ? DEFAULT_PAGE_LIMIT : Math.min(Number(query.limit), MAX_PAGE_LIMIT);
  const offset = query.offset === undefined ? 0 : Number(query.offset);
  return { limit, offset };
}
