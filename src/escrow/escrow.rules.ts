/** Escrow rules (pure): which transitions run in which state, and the escrow's view. */
import type { IEscrow } from './escrow.entity.js';

export type EscrowStatus = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';

export type EscrowTransition = 'pay' | 'commit' | 'cancel';

/**
 * What a transition request does in a state (DESIGN §4 "Repeated transitions"): `run` it,
 * answer with the escrow as it is because it `already` happened, or refuse a `conflict`.
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
  return (['OPEN', 'ESCROWED', 'ESCROW-FAILED', 'COMMITTED', 'CANCELLED'] as const).filter((s) => transitionDecision(s, transition) === 'run');
}

/** The state a transition that runs successfully leads to. */
export const TRANSITION_TARGET: Record<EscrowTransition, EscrowStatus> = { pay: 'ESCROWED', commit: 'COMMITTED', cancel: 'CANCELLED' };

/** The escrow fields its view needs (an entity or a row mapped by the worker). */
export type EscrowRecord = Pick<IEscrow, 'id' | 'integratorId' | 'accountId' | 'status' | 'currency' | 'totalAmount' | 'escrowInvoiceId'
  | 'commitInvoiceId' | 'cancelInvoiceId' | 'metadata' | 'createdAt' | 'updatedAt'>;

/** The escrow of spec §2.9; `integrator` is left out of the create response, as the spec shows it. */
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

/** An escrow row (snake_case columns) as an EscrowRecord. */
export function escrowFromRow(r: Record<string, any>): EscrowRecord {
  return {
    id: r.id, integratorId: r.integrator_id, accountId: r.account_id, status: r.status, currency: r.currency,
    totalAmount: Number(r.total_amount), escrowInvoiceId: r.escrow_invoice_id, commitInvoiceId: r.commit_invoice_id,
    cancelInvoiceId: r.cancel_invoice_id, metadata: r.metadata, createdAt: new Date(r.created_at), updatedAt: new Date(r.updated_at),
  };
}
