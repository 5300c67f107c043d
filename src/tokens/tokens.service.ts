/**
 * Token purchase: a USD payment method (never a payout-only one) pays the integrator and
 * standard tokens are issued to an account, through a `token_purchase` invoice paid as a
 * command like any invoice.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { requireAccount } from '../accounts/account-access.service.js';
import { assertCanTransact } from '../blocks/block.service.js';
import { db as pooled } from '../db/sql.js';
import { findActiveMethod } from '../payment-methods/payment-method.service.js';
import { runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { success } from '../envelope.js';
import type { TokenPurchaseMetadata } from '../invoices/invoice.rules.js';
import { addOpenInvoice, currentInvoiceView } from '../invoices/invoice.service.js';
import { methodRefusal } from '../invoices/purchase-request.rules.js';
import type { CommandBus } from '../queues/command-bus.js';
import { quoteRefusalMessage, tokenQuote } from './tokens.rules.js';

export interface TokenPurchaseInput {
  payment_method_id: string;
  amount: number;
  currency: string;
  destination_account_id?: string;
}

/** Buys standard tokens with a USD payment method; answers 201 with the invoice as paid (or FAILED). */
export async function purchaseTokens(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  input: TokenPurchaseInput,
  opts: { respondAsync: boolean; syncWaitMs: number },
): Promise<CommandResult & { headers?: Record<string, string> }> {
  const integrator = await integratorProfile(em, principal.integratorId);
  if (!integrator.tokenCurrency || !integrator.tokensPerUsd) {
    throw AppError.invalid({ currency: ['UNSUPPORTED_CURRENCY'] }, 'The integrator has no token currency.');
  }
  const quote = tokenQuote(input.amount, input.currency, integrator.tokenCurrency, integrator.tokensPerUsd);
  if (!quote.ok)
    throw AppError.invalid(
      { [quote.field]: [quote.code] },
      quoteRefusalMessage(quote.code, integrator.tokensPerUsd, integrator.tokenCurrency),
    );
  const method = await findActiveMethod(em, principal, input.payment_method_id);
  const refusal = methodRefusal(method && { provider: method.provider, processing_currency: method.currency }, 'USD');
  if (refusal || !method) throw AppError.invalid({ payment_method_id: [refusal ?? 'NOT_FOUND'] });
  const destination = input.destination_account_id ?? method.accountId;
  await requireAccount(em, principal, destination);
  await assertCanTransact(pooled(em), [method.accountId, destination]);
  const metadata: TokenPurchaseMetadata = {
    tokens: quote.tokens,
    token_currency: integrator.tokenCurrency,
    destination_account_id: destination,
  };
  const now = new Date();
  const invoice: Parameters<typeof addOpenInvoice>[1] = {
    id: newId('inv'),
    integratorId: principal.integratorId,
    accountId: method.accountId,
    escrowId: null,
    invoiceType: 'token_purchase',
    state: 'OPEN',
    referenceType: null,
    referenceId: null,
    description: `${quote.tokens} ${integrator.tokenCurrency}`,
    metadata: { ...metadata },
    currency: 'USD',
    totalAmount: quote.cents,
    failureReason: null,
    paymentMethods: [{ payment_method_id: input.payment_method_id, amount: quote.cents, currency: 'USD' }],
    lineItems: [
      {
        line_item_id: newId('li'),
        amount: quote.cents,
        currency: 'USD',
        transaction_type: 'user_to_integrator',
        product_sku: integrator.tokenCurrency,
        description: `${quote.tokens} ${integrator.tokenCurrency}`,
        reference_type: '',
        reference_id: '',
        metadata: { ...metadata },
        recipients: [],
      },
    ],
    createdAt: now,
    updatedAt: now,
  };
  await addOpenInvoice(em, invoice);
  const result = await runCommand(
    em,
    bus,
    { integratorId: principal.integratorId, kind: 'invoice.pay', targetId: invoice.id },
    {
      ...opts,
      location: `/v2/invoice/${invoice.id}`,
      current: async () => success(await currentInvoiceView(em, invoice.id)),
    },
  );
  // The purchase made the invoice: a finished payment answers 201 Created.
  return result.status === 200 ? { ...result, status: 201 } : result;
}
