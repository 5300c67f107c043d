import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type InvoiceState = 'OPEN' | 'PROCESSING' | 'SUCCESS' | 'FAILED' | 'CANCELED';

/** How an authorized invoice reaches its buyer (`invoice_mechanism` of `authorizeInvoice`). */
export type InvoiceMechanism = 'widget' | 'api';

export interface StoredRecipient {
  amount: number;
  currency: string;
  /** Wallet the share passes through at commit; '' = the integrator's default wallet. */
  source_wallet_id: string;
  destination_wallet_id: string;
}

export interface StoredLineItem {
  line_item_id: string;
  amount: number;
  currency: string;
  transaction_type: 'user_to_user' | 'user_to_integrator';
  product_sku: string;
  description: string;
  reference_type: string;
  reference_id: string;
  metadata: Record<string, unknown>;
  recipients: StoredRecipient[];
}

export interface StoredCharge {
  payment_method_id: string;
  amount: number;
  currency: string;
}

/** The record behind every money movement (docs/money.md). */
export const Invoice = defineEntity({
  name: 'Invoice',
  tableName: 'invoice',
  indexes: [
    { name: 'invoice_escrow_idx', properties: ['escrowId'] },
    // An account's invoices, newest first.
    { name: 'invoice_account_idx', properties: ['accountId', 'id'] },
    // An account's invoices by creation or update time (GET /v2/invoice/account/{account_id}).
    { name: 'invoice_account_created_idx', properties: ['accountId', 'createdAt'] },
    { name: 'invoice_account_updated_idx', properties: ['accountId', 'updatedAt'] },
    // An integrator's invoices by creation, in the order the invoices and refunds exports read them.
    { name: 'invoice_integrator_created_idx', properties: ['integratorId', 'createdAt', 'id'] },
    // A purchase invoice's refunds.
    { name: 'invoice_refunded_invoice_idx', properties: ['refundedInvoiceId'] },
    // A line item's purchase invoice (POST /v2/line-item/refund).
    {
      name: 'invoice_purchase_line_items_idx',
      expression: `create index invoice_purchase_line_items_idx on invoice using gin (line_items jsonb_path_ops) where invoice_type in ('user_purchase', 'user_purchase_virtual', 'user_purchase_escrow', 'user_purchase_escrow_virtual', 'token_purchase')`,
    },
    // Escrow cancels, oldest first: the sweep of cancels whose card refunds were never recorded.
    {
      name: 'invoice_escrow_cancel_created_idx',
      expression: `create index invoice_escrow_cancel_created_idx on invoice (created_at) where invoice_type like 'user_purchase_refund_escrow%'`,
    },
  ],
  properties: {
    id: p.string().primary().length(36),
    integratorId: p.string().length(36),
    accountId: p.string().length(36),
    escrowId: p.string().length(36).nullable(),
    invoiceType: p.string().length(40),
    state: p.enum(['OPEN', 'PROCESSING', 'SUCCESS', 'FAILED', 'CANCELED'] as InvoiceState[]).columnType('varchar(16)'),
    referenceType: p.string().length(100).nullable(),
    referenceId: p.string().length(100).nullable(),
    description: p.string().length(500).nullable(),
    metadata: p.json<Record<string, unknown>>().defaultRaw(`'{}'`),
    currency: p.string().length(3),
    totalAmount: p.bigint('number'),
    failureReason: p.string().length(100).nullable(),
    paymentMethods: p.json<StoredCharge[]>().defaultRaw(`'[]'`),
    lineItems: p.json<StoredLineItem[]>().defaultRaw(`'[]'`),
    /** Set on an authorized invoice (`widget` or `api`): its buyer chooses the payment methods when paying. */
    invoiceMechanism: p
      .enum(['widget', 'api'] as InvoiceMechanism[])
      .columnType('varchar(10)')
      .nullable(),
    /** On a refund invoice (`user_refund`, `user_refund_virtual`): the purchase invoice it refunds. */
    refundedInvoiceId: p.string().length(36).nullable(),
    /** While PROCESSING on a card that needs its holder's authentication (3-D Secure): the provider's page to send the buyer to. */
    nextActionUrl: p.string().length(2048).nullable(),
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
export type IInvoice = InferEntity<typeof Invoice>;
