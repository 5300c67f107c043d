/**
 * What the console's pages show and do, through the same services as the API and the CLI: a
 * console user is a caller of its integrator (`consolePrincipal`), so another integrator's
 * objects are not found, exactly as through the API.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditContext } from '../audit/audit.rules.js';
import { listAudit } from '../audit/audit.service.js';
import { getProfile } from '../accounts/account.service.js';
import { accountsWithPlatformUserId, profileByUsername, accountExists } from '../accounts/account.repository.js';
import { db as pooled } from '../db/sql.js';
import { getDispute, getDisputes } from '../disputes/dispute.service.js';
import { AppError } from '../errors.js';
import { getInvoice, listAccountInvoices } from '../invoices/invoice.service.js';
import { refundSummaryOf } from '../refunds/refund.service.js';
import { getBlocks } from '../blocks/block.service.js';
import { listEvents } from '../webhooks/event.service.js';
import { endpointHealth } from '../webhooks/webhook.service.js';
import { integratorProfile } from '../integrators/integrator.service.js';
import type { Principal } from '../integrators/principal.js';
import { checksInReview } from '../kyc/kyc.repository.js';
import type { Decision } from '../kyc/kyc.rules.js';
import { decideKyc, getKyc } from '../kyc/kyc.service.js';
import { listPaymentMethods } from '../payment-methods/payment-method.service.js';
import { payoutsAwaitingDecision } from '../payouts/payout.repository.js';
import { payoutView } from '../payouts/payout.rules.js';
import { listPayouts } from '../payouts/payout.service.js';
import { accountBalances, accountStatement } from '../statements/statement.service.js';
import { accountEscrows } from '../escrow/escrow.service.js';

/** How many rows a console queue or an account's list shows. */
const PAGE = 50;

/** How many of an endpoint's latest deliveries the webhooks page shows (of the failed ones, PAGE in all). */
const DELIVERIES_PER_ENDPOINT = 10;

/** The refund invoices' types (the refunds of purchases; an escrow's cancellation is its escrow's). */
const REFUND_TYPES = ['user_refund', 'user_refund_virtual'];

/** The integrator's name, for the header. */
export async function integratorNameOf(em: EntityManager, integratorId: string): Promise<string> {
  return (await integratorProfile(pooled(em), integratorId)).name;
}

/** Accounts whose id, username (any case) or linked external platform user id is `query`. */
export async function searchAccounts(em: EntityManager, principal: Principal, query: string) {
  const q = query.trim();
  if (!q || q.length > 255) return [];
  const db = pooled(em);
  const ids = new Set<string>();
  if (await accountExists(db, principal.integratorId, q)) ids.add(q);
  const byName = await profileByUsername(db, principal.integratorId, q);
  if (byName) ids.add(byName.id);
  for (const id of await accountsWithPlatformUserId(db, principal.integratorId, q)) ids.add(id);
  return Promise.all([...ids].map((id) => getProfile(em, principal, id)));
}

/**
 * Everything the account page shows, read as the API reads it: the statement is
 * `getAccountStatement`'s newest first, the refunds `GET /v2/invoice/account/{id}` of the refund
 * types, the escrows those the account bought; each list one page (PAGE) with its total.
 */
export async function accountOverview(em: EntityManager, principal: Principal, accountId: string) {
  const profile = await getProfile(em, principal, accountId);
  const page = { limit: PAGE, offset: 0 };
  const [blocks, kyc, balances, statement, methods, invoices, escrows, refunds, payouts, disputes] = await Promise.all([
    getBlocks(em.fork(), principal, accountId),
    getKyc(em.fork(), principal, accountId),
    accountBalances(em.fork(), principal, accountId),
    accountStatement(em.fork(), principal, accountId, { sort: 'desc', ...page }),
    listPaymentMethods(em.fork(), principal, accountId),
    listAccountInvoices(em.fork(), principal, accountId, { sortField: 'created', sort: 'desc', ...page }),
    accountEscrows(em.fork(), principal, accountId, page),
    listAccountInvoices(em.fork(), principal, accountId, { invoiceTypes: REFUND_TYPES, sortField: 'created', sort: 'desc', ...page }),
    listPayouts(em.fork(), principal, accountId, page),
    getDisputes(em.fork(), principal, { accountId }, page),
  ]);
  return {
    profile,
    blocks: blocks.blocks,
    kyc,
    balances: balances.balances,
    statement,
    methods,
    invoices,
    escrows,
    refunds,
    payouts,
    disputes,
  };
}

/** The integrator's disputes, newest first (the disputes page). */
export async function disputeList(em: EntityManager, principal: Principal) {
  return (await getDisputes(em, principal, {}, { limit: PAGE, offset: 0 })).disputes;
}

/** The payouts queue: the integrator's payouts in FUNDS-IN-ESCROW or FAILED, oldest first. */
export async function payoutQueue(em: EntityManager, principal: Principal) {
  return (await payoutsAwaitingDecision(pooled(em), principal.integratorId, PAGE)).map(payoutView);
}

/** The KYC review queue: the integrator's checks in MANUAL_REVIEW, oldest first. */
export async function kycQueue(em: EntityManager, principal: Principal) {
  return checksInReview(pooled(em), principal.integratorId, PAGE);
}

/** A console user's KYC decision on one of its integrator's accounts (the CLI's `kyc decide` rules). */
export async function decideKycInConsole(
  em: EntityManager,
  principal: Principal,
  accountId: string,
  state: Decision,
  production: boolean,
  audit: AuditContext,
) {
  if (!(await accountExists(pooled(em), principal.integratorId, accountId))) {
    throw AppError.notFound('ACCOUNT_GET_ERROR', 'No account with this id.');
  }
  return decideKyc(em, accountId, state, production, audit);
}

/** An invoice with its refund summary (the invoice page). */
export async function invoiceWithRefunds(em: EntityManager, principal: Principal, invoiceId: string) {
  const invoice = await getInvoice(em, principal, invoiceId);
  return { invoice, refunds: await refundSummaryOf(em.fork(), principal, invoiceId) };
}

/** One dispute with its trace (the dispute page). */
export function disputeOf(em: EntityManager, principal: Principal, disputeId: string) {
  return getDispute(em, principal, disputeId);
}

/**
 * The integrator's webhook endpoints with their health and latest deliveries, the failed
 * deliveries, and its latest events (the webhooks page).
 */
export async function webhooksOverview(em: EntityManager, principal: Principal) {
  const [health, events] = await Promise.all([
    endpointHealth(em.fork(), principal, { recent: DELIVERIES_PER_ENDPOINT, failed: PAGE }),
    listEvents(em.fork(), principal, { limit: PAGE, offset: 0, sort: 'desc' }),
  ]);
  return { endpoints: health.endpoints, failed: health.failed, events: events.events, total: events.total };
}

/** The integrator's audit trail, newest first, filtered as `GET /v2/audit` is (the audit page). */
export async function auditTrail(em: EntityManager, principal: Principal, filter: { action?: string; targetId?: string; actor?: string }) {
  return listAudit(em, { integratorId: principal.integratorId, ...filter }, { limit: PAGE, offset: 0 });
}
