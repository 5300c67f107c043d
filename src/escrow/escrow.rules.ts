/**
 * Escrow money rules (pure; DESIGN §4 "Escrow money rules"): one currency per escrow, line
 * amounts above zero, recipients' shares within their line, and payment-method amounts that
 * cover the total exactly (one entry of 0 takes the remainder).
 */
import { addFieldError, fieldErrors, type FieldErrors } from '../errors.js';
import type { IEscrow } from './escrow.entity.js';

export const MAX_AMOUNT = Number.MAX_SAFE_INTEGER;

export type EscrowStatus = 'OPEN' | 'ESCROWED' | 'ESCROW-FAILED' | 'COMMITTED' | 'CANCELLED';

export interface RecipientInput {
  amount: number;
  currency: string;
  source_wallet_id?: string;
  destination_wallet_id: string;
}

export interface LineItemInput {
  amount: number;
  currency: string;
  transaction_type: 'user_to_user' | 'user_to_integrator';
  product_sku?: string;
  description?: string;
  reference_type?: string;
  reference_id?: string;
  metadata?: Record<string, unknown>;
  recipients?: RecipientInput[];
}

export interface PaymentMethodInput {
  payment_method_id: string;
  amount: number;
}

export interface Charge {
  paymentMethodId: string;
  /** Minor units to charge this method (the remainder resolved). */
  amount: number;
}

export interface MoneyPlan {
  currency: string;
  total: number;
  charges: Charge[];
}

/**
 * Checks the money rules of an escrow request and resolves what each payment method pays.
 * Returns the plan, or the field errors (fields named like `line_items.0.amount`).
 */
export function planMoney(lineItems: LineItemInput[], paymentMethods: PaymentMethodInput[]):
  { ok: true; plan: MoneyPlan } | { ok: false; fields: FieldErrors } {
  const fields = fieldErrors();
  if (lineItems.length === 0) addFieldError(fields, 'line_items', 'REQUIRED');
  const currency = lineItems[0]?.currency;
  let total = 0;
  lineItems.forEach((line, i) => {
    if (line.currency !== currency) addFieldError(fields, `line_items.${i}.currency`, 'CURRENCY_MISMATCH');
    total += line.amount;
    let shares = 0;
    (line.recipients ?? []).forEach((r, j) => {
      if (r.currency !== line.currency) addFieldError(fields, `line_items.${i}.recipients.${j}.currency`, 'CURRENCY_MISMATCH');
      shares += r.amount;
    });
    if (shares > line.amount) addFieldError(fields, `line_items.${i}.recipients`, 'EXCEEDS_LINE_AMOUNT');
  });
  if (total > MAX_AMOUNT) addFieldError(fields, 'line_items', 'TOTAL_TOO_LARGE');

  const seen = new Set<string>();
  paymentMethods.forEach((pm, i) => {
    if (seen.has(pm.payment_method_id)) addFieldError(fields, `payment_methods.${i}.payment_method_id`, 'DUPLICATE');
    seen.add(pm.payment_method_id);
  });
  const zeros = paymentMethods.filter((pm) => pm.amount === 0).length;
  const fixed = paymentMethods.reduce((sum, pm) => sum + pm.amount, 0);
  if (paymentMethods.length === 0) {
    addFieldError(fields, 'payment_methods', 'REQUIRED');
  } else if (paymentMethods.length === 1) {
    // One method pays everything: its amount is 0 (the remainder) or the total itself.
    if (paymentMethods[0].amount !== 0 && paymentMethods[0].amount !== total) addFieldError(fields, 'payment_methods.0.amount', 'MUST_COVER_TOTAL');
  } else {
    if (zeros !== 1) addFieldError(fields, 'payment_methods', 'EXACTLY_ONE_REMAINDER');
    else if (fixed >= total) addFieldError(fields, 'payment_methods', 'EXCEEDS_TOTAL');
  }
  if (Object.keys(fields).length) return { ok: false, fields };
  const charges = paymentMethods.map((pm) => ({ paymentMethodId: pm.payment_method_id, amount: pm.amount === 0 ? total - fixed : pm.amount }));
  return { ok: true, plan: { currency: currency!, total, charges } };
}

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

/** The state a transition that runs successfully leads to. */
export const TRANSITION_TARGET: Record<EscrowTransition, EscrowStatus> = { pay: 'ESCROWED', commit: 'COMMITTED', cancel: 'CANCELLED' };

/** The escrow of spec §2.9; `integrator` is left out of the create response, as the spec shows it. */
export function escrowView(escrow: IEscrow, integrator?: string) {
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

