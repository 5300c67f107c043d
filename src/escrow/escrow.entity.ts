import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import type { EscrowStatus } from './escrow.rules.js';

/** A two-phase purchase: charged up front and held, then committed to sellers or cancelled. */
export const Escrow = defineEntity({
  name: 'Escrow',
  tableName: 'escrow',
  indexes: [
    { name: 'escrow_account_idx', properties: ['accountId'] },
    // The integrator's escrows by its reference (GET /v2/escrow/reference/{reference_id}).
    { name: 'escrow_reference_idx', properties: ['integratorId', 'referenceId', 'createdAt'] },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    accountId: p.string().length(36),
    status: p.enum(['OPEN', 'ESCROWED', 'ESCROW-FAILED', 'COMMITTED', 'CANCELLED'] as EscrowStatus[]).columnType('varchar(16)'),
    currency: p.string().length(3),
    totalAmount: p.bigint('number'),
    escrowInvoiceId: p.string().length(36).unique('escrow_escrow_invoice_id_key'),
    commitInvoiceId: p.string().length(36).nullable().unique('escrow_commit_invoice_id_key'),
    cancelInvoiceId: p.string().length(36).nullable().unique('escrow_cancel_invoice_id_key'),
    referenceType: p.string().length(100).nullable(),
    referenceId: p.string().length(100).nullable(),
    description: p.string().length(500).nullable(),
    metadata: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IEscrow = InferEntity<typeof Escrow>;
