import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { DISPUTE_REASONS, DISPUTE_STATUSES, type DisputeFlag, type Evidence } from './dispute.rules.js';

/** A dispute (chargeback) of one card charge of one purchase invoice (docs/money.md). */
export const Dispute = defineEntity({
  name: 'Dispute',
  tableName: 'dispute',
  uniques: [
    { name: 'dispute_provider_once', properties: ['providerDisputeId'] },
    { name: 'dispute_charge_once', properties: ['invoiceId', 'paymentMethodId'] },
  ],
  indexes: [
    // The integrator's disputes, newest first (GET /v2/disputes).
    { name: 'dispute_integrator_created_idx', properties: ['integratorId', 'createdAt'] },
    { name: 'dispute_account_idx', properties: ['accountId'] },
    // The sandbox's evidence deadlines.
    {
      name: 'dispute_open_due_idx',
      expression: `create index dispute_open_due_idx on dispute (evidence_due_by) where status = 'NEEDS_RESPONSE'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    invoiceId: p.string().length(36),
    paymentMethodId: p.string().length(36),
    accountId: p.string().length(36),
    amount: p.bigint('number'),
    reportedAmount: p.bigint('number'),
    currency: p.string().length(3),
    reason: p.enum([...DISPUTE_REASONS]).columnType('varchar(32)'),
    status: p.enum([...DISPUTE_STATUSES]).columnType('varchar(16)'),
    evidenceDueBy: p.datetime(),
    evidence: p.json<Evidence>().defaultRaw(`'{}'`),
    evidenceSubmittedAt: p.datetime().nullable(),
    fee: p.bigint('number'),
    funds: p
      .enum(['none', 'withdrawn', 'reinstated', 'lost'] as const)
      .columnType('varchar(16)')
      .default('none'),
    unrecovered: p.json<Record<string, number>>().defaultRaw(`'{}'`),
    provider: p.enum(['sandbox', 'stripe'] as const).columnType('varchar(16)'),
    providerDisputeId: p.string().length(255).nullable(),
    flags: p.json<DisputeFlag[]>().defaultRaw(`'[]'`),
    inquiry: p.boolean().default(false),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    closedAt: p.datetime().nullable(),
  },
});
export type IDispute = InferEntity<typeof Dispute>;

/** Where a dispute traced part of its value, and what of it is held (ledger_account.held), released or clawed back. */
export const DisputeHoldRow = defineEntity({
  name: 'DisputeHold',
  tableName: 'dispute_hold',
  indexes: [
    { name: 'dispute_hold_dispute_idx', properties: ['disputeId'] },
    { name: 'dispute_hold_wallet_idx', expression: 'create index dispute_hold_wallet_idx on dispute_hold (wallet_id) where held > 0' },
    // The escrows an open dispute traced value into (an escrow commit looks its escrow up).
    {
      name: 'dispute_hold_escrowed_idx',
      expression: `create index dispute_hold_escrowed_idx on dispute_hold (reference_id) where state = 'escrowed'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    disputeId: p.string().length(36),
    integratorId: p.string().length(36),
    accountId: p.string().length(36),
    walletId: p.string().length(36).nullable(),
    currency: p.string().length(3),
    amount: p.bigint('number'),
    held: p.bigint('number').default(0),
    released: p.bigint('number').default(0),
    clawedBack: p.bigint('number').default(0),
    via: p.enum(['purchase', 'escrow', 'conversion', 'payout'] as const).columnType('varchar(16)'),
    referenceId: p.string().length(64),
    state: p.enum(['in_wallet', 'paid_out', 'escrowed', 'payout_waiting'] as const).columnType('varchar(16)'),
    createdAt: p
      .datetime()
      .defaultRaw('now()')
      .onCreate(() => new Date()),
  },
});
