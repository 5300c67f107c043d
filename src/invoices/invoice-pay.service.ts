/**
 * `POST /v2/invoice/{invoice_id}/pay`, the web side: a standard invoice's pay is a command like
 * escrow pay. An authorized invoice (`POST /v2/authorize/invoice`) first takes its payment
 * methods from the pay that names them — the integrator's, or its buyer's with the password
 * token — and an authorized escrow invoice is paid by its escrow's pay command.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, errorReply, fieldErrors } from '../errors.js';
import type { Principal } from '../integrators/principal.js';
import { runCommand } from '../commands/command.service.js';
import type { CommandResult } from '../commands/command.registry.js';
import { db as pooled } from '../db/sql.js';
import { chooseInvoiceCharges } from './invoice.repository.js';
import { success } from '../envelope.js';
import type { CommandBus } from '../queues/command-bus.js';
import { Invoice, type IInvoice } from './invoice.entity.js';
import { invoiceView, planMoney, type PaymentMethodInput, type ReturnUrlPolicy, returnUrlProblem } from './invoice.rules.js';
import {
  findInvoice,
  invoiceNotFound,
  invoicePayDecision,
  invoiceStateConflict,
  methodErrors,
  purchaseFacts,
  tokenWalletPayment,
} from './invoice.service.js';

type PayAnswer = CommandResult & { headers?: Record<string, string> };

interface PayOptions {
  respondAsync: boolean;
  syncWaitMs: number;
}

/**
 * A buyer-present pay's `return_url` (the hosted checkout's page): only the buyer's own pay (a
 * password token) is buyer-present, and only to a page the policy allows (400 naming the field).
 */
function checkedReturnUrl(principal: Principal, returnUrl: string | undefined, policy: ReturnUrlPolicy): string | undefined {
  if (returnUrl === undefined) return undefined;
  if (principal.accountId === undefined)
    throw AppError.invalid(
      { return_url: ['NOT_ALLOWED'] },
      "Only the buyer's own pay (a password token, as in the hosted checkout) can take the buyer through 3-D Secure; an API pay is off-session.",
    );
  const problem = returnUrlProblem(returnUrl, policy);
  if (problem) throw AppError.invalid({ return_url: [problem] }, 'return_url must be a hosted page or an address the operator allows.');
  return returnUrl;
}

/**
 * Runs an escrow's pay command (the escrow module's `transitionEscrow`), passed in by the caller:
 * the escrow module builds on invoices, so invoices do not import it.
 */
export type PayEscrow = (escrowId: string, opts: PayOptions) => Promise<PayAnswer>;

/**
 * Stores the payment methods an authorized invoice's pay names: checked like an escrow's (400
 * naming the field), then set once with a compare-and-set, so of two pays naming different
 * methods one wins and the other gets 409. Naming the stored methods again (a retry), or none,
 * is fine; an invoice no longer OPEN is left as it is (its pay answers as a repeated one does).
 */
async function chooseCharges(
  em: EntityManager,
  principal: Principal,
  invoice: IInvoice,
  named: PaymentMethodInput[] | undefined,
): Promise<{ invoice: IInvoice } | { answer: PayAnswer }> {
  if (invoice.state !== 'OPEN') return { invoice };
  // In the integrator's token currency a pay that names no methods is paid by the buyer's token
  // wallets, as a purchase created without them is.
  if (!named && invoice.paymentMethods.length === 0) {
    const total = invoice.lineItems.reduce((sum, l) => sum + l.amount, 0);
    named = await tokenWalletPayment(em, principal, invoice.accountId, invoice.currency, total);
  }
  const planned = named && planMoney(invoice.lineItems, named);
  // What this pay asks for, with the remainder made explicit (as stored); null when it breaks a rule.
  const asked = planned?.ok ? planned.plan.charges.map((c) => ({ payment_method_id: c.paymentMethodId, amount: c.amount })) : null;
  if (invoice.paymentMethods.length === 0) {
    if (!named || !planned)
      throw AppError.invalid(
        { payment_methods: ['REQUIRED'] },
        'An authorized invoice is paid with the payment methods its buyer chooses (in the token currency, its token wallets when none are named).',
      );
    if (!planned.ok) throw AppError.invalid(planned.fields);
    const facts = await purchaseFacts(em, {
      account_id: invoice.accountId,
      integrator_id: principal.integratorId,
      currency: invoice.currency,
      methods: named.map((m) => m.payment_method_id),
      wallets: [],
    });
    const fields = fieldErrors();
    methodErrors(fields, named, facts.methods, invoice.currency);
    if (Object.keys(fields).length) throw AppError.invalid(fields);
    await chooseInvoiceCharges(
      pooled(em),
      invoice.id,
      asked!.map((c) => ({ ...c, currency: invoice.currency })),
    );
    invoice = await em.fork().findOneOrFail(Invoice, { id: invoice.id });
    if (invoice.state !== 'OPEN') return { invoice };
  }
  const chosen = invoice.paymentMethods;
  const same =
    !named ||
    (asked !== null &&
      asked.length === chosen.length &&
      asked.every((c, i) => c.payment_method_id === chosen[i].payment_method_id && c.amount === chosen[i].amount));
  return same ? { invoice } : { answer: errorReply(invoiceStateConflict(invoice, 'its payment methods were already chosen')) };
}

/** An authorized escrow invoice's pay: its escrow's pay command, answered with the invoice as that left it. */
async function payThroughEscrow(em: EntityManager, payEscrow: PayEscrow, invoice: IInvoice, opts: PayOptions): Promise<PayAnswer> {
  const answer = await payEscrow(invoice.escrowId!, opts);
  const now = await em.fork().findOneOrFail(Invoice, { id: invoice.id });
  if (answer.status === 200) return { status: 200, body: success(invoiceView(now)), headers: answer.headers };
  if (answer.status === 202)
    return { status: 202, body: success(invoiceView(now)), headers: { ...answer.headers, Location: `/v2/invoice/${invoice.id}` } };
  if (answer.status === 409) return { ...errorReply(invoiceStateConflict(now, `the invoice is ${now.state}`)), headers: answer.headers };
  return answer;
}

/**
 * Pays an invoice (POST /v2/invoice/{id}/pay): 200 with it SUCCESS or FAILED, a repeated pay
 * answered with the invoice as it is, a conflicting one 409 `INVOICE_STATE_ERROR`. A password
 * token pays only the invoices authorized for its own account.
 */
export async function payInvoice(
  em: EntityManager,
  bus: CommandBus,
  principal: Principal,
  invoiceId: string,
  named: PaymentMethodInput[] | undefined,
  opts: PayOptions,
  payEscrow: PayEscrow,
  buyer: { returnUrl?: string; policy: ReturnUrlPolicy } = { policy: { publicUrl: 'http://localhost', patterns: [] } },
): Promise<PayAnswer> {
  const returnUrl = checkedReturnUrl(principal, buyer.returnUrl, buyer.policy);
  let invoice = await findInvoice(em, principal, invoiceId);
  if (principal.accountId !== undefined && invoice.invoiceMechanism === null) throw invoiceNotFound();
  if (invoice.invoiceMechanism !== null) {
    const chosen = await chooseCharges(em, principal, invoice, named);
    if ('answer' in chosen) return chosen.answer;
    invoice = chosen.invoice;
    if (invoice.escrowId !== null) return payThroughEscrow(em, payEscrow, invoice, opts);
  } else if (named) {
    throw AppError.invalid({ payment_methods: ['NOT_ALLOWED'] }, 'This invoice was created with its payment methods.');
  }
  const decision = invoicePayDecision(invoice);
  const location = `/v2/invoice/${invoiceId}`;
  if (decision === 'already') return { status: 200, body: success(invoiceView(invoice)) };
  // Awaiting its buyer's authentication: answered as it stands, with where to poll.
  if (decision === 'processing') return { status: 202, body: success(invoiceView(invoice)), headers: { Location: location } };
  if (decision === 'conflict') return errorReply(invoiceStateConflict(invoice));
  const answer = await runCommand(
    em,
    bus,
    {
      integratorId: principal.integratorId,
      kind: 'invoice.pay',
      targetId: invoiceId,
      // The page the provider sends the buyer back to after 3-D Secure: the pay is buyer-present.
      ...(returnUrl ? { input: { return_url: returnUrl } } : {}),
    },
    {
      ...opts,
      location,
      current: async () => success(invoiceView(await em.fork().findOneOrFail(Invoice, { id: invoiceId }))),
    },
  );
  // A pay left PROCESSING for its buyer's authentication answers 202 as a pay still running does.
  return answer.status === 202 ? { ...answer, headers: { ...answer.headers, Location: location } } : answer;
}
