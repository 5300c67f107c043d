/**
 * Invoice authorization (`POST /v2/authorize/invoice`, operation `authorizeInvoice`): the integrator's server makes
 * an invoice — an escrow's escrow invoice with `is_escrow` — whose buyer chooses how to pay
 * later, in the hosted checkout (`widget`: a single-use session nonce and the redirect into the
 * hosted flow) or in its own app through the SDK (`api`: a user password token). The invoice,
 * its escrow and the session are written in one transaction: a refusal leaves nothing behind.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../integrators/principal.js';
import type { TokenSigner } from '../auth/auth.service.js';
import { openUserSession, sessionRedirect, type UserToken } from '../sessions/user-session.service.js';
import { db as pooled, type Db } from '../db/sql.js';
import { spendableBalance } from '../payment-methods/payment-method.service.js';
import type { InvoiceMechanism } from '../invoices/invoice.entity.js';
import { insertPurchases } from '../escrow/purchase.flow.js';
import {
  preparePurchase,
  purchaseInvoice,
  writeHoldingAccounts,
  type PurchaseInput,
  type PurchaseRequest,
} from '../invoices/invoice.service.js';
import { normalisePurchaseRequest } from '../invoices/purchase-request.rules.js';

/** The body of POST /v2/authorize/invoice. */
export interface AuthorizeInvoiceInput extends Omit<PurchaseRequest, 'payment_methods'> {
  is_escrow?: boolean;
  invoice_mechanism: InvoiceMechanism;
}

export type AuthorizedInvoice =
  | { nonce_auth_id: string; authorized_invoice_id: string; redirect: string; escrow_id?: string }
  | { authorized_invoice_id: string; password_token: UserToken; escrow_id?: string };

/**
 * Authorizes an invoice for its buyer. Every money rule of `POST /v2/escrow` but
 * the payment methods' is checked now (400 naming the field); a token-currency purchase the
 * buyer's token wallets cannot cover is refused (`account_id: INSUFFICIENT_BALANCE`); a buyer
 * blocked from transactions or from logging in gets 403 and nothing is made.
 */
export async function authorizeInvoice(
  em: EntityManager,
  signer: TokenSigner,
  principal: Principal,
  input: AuthorizeInvoiceInput,
  webUrl: string,
): Promise<AuthorizedInvoice> {
  const purchase: PurchaseInput = { ...normalisePurchaseRequest(input), payment_methods: [] };
  const prepared = await preparePurchase(em, principal, purchase, { chargesLater: true });
  if (prepared.virtual && (await spendableBalance(em, input.account_id, prepared.plan.currency)) < prepared.plan.total) {
    throw AppError.invalid(
      { account_id: ['INSUFFICIENT_BALANCE'] },
      `The buyer's ${prepared.plan.currency} wallets cannot cover the invoice.`,
    );
  }
  const escrowId = input.is_escrow ? newId('esc') : null;
  const invoice = {
    ...purchaseInvoice(principal, purchase, prepared, escrowId ? 'user_purchase_escrow' : 'user_purchase', escrowId),
    invoiceMechanism: input.invoice_mechanism,
  };
  return writeHoldingAccounts(pooled(em), prepared.accounts, async (db) => {
    await insertPurchases(db, [invoice]);
    return withSession(
      db,
      signer,
      principal,
      input,
      { authorized_invoice_id: invoice.id, ...(escrowId ? { escrow_id: escrowId } : {}) },
      webUrl,
    );
  });
}

/** What an authorization keeps for an Idempotency-Key replay: its ids, never its secrets. */
export interface AuthorizedIds {
  authorized_invoice_id: string;
  escrow_id?: string;
}

/**
 * The answer for an authorized invoice: a new session for its buyer, in the caller's transaction.
 * The session holds the scopes of the caller's token (`principal.scopes`, as narrowed by `scope=`),
 * never more: a `write_invoices` token hands the buyer a token that can only pay.
 */
async function withSession(
  db: Db,
  signer: TokenSigner,
  principal: Principal,
  input: AuthorizeInvoiceInput,
  ids: AuthorizedIds,
  webUrl: string,
): Promise<AuthorizedInvoice> {
  const session = await openUserSession(db, signer, principal, input.account_id, input.invoice_mechanism === 'api');
  if ('token' in session) return { ...ids, password_token: session.token };
  const redirect = `${sessionRedirect(webUrl, session.nonce)}?authorized_invoice_id=${encodeURIComponent(ids.authorized_invoice_id)}`;
  return { nonce_auth_id: session.nonce, redirect, ...ids };
}

/**
 * An Idempotency-Key replay of an authorization: the same invoice (nothing is made twice), with
 * a fresh password token or nonce — the first ones were never stored.
 */
export async function reopenAuthorization(
  em: EntityManager,
  signer: TokenSigner,
  principal: Principal,
  input: AuthorizeInvoiceInput,
  kept: AuthorizedIds,
  webUrl: string,
): Promise<AuthorizedInvoice> {
  return pooled(em).transaction((db) => withSession(db, signer, principal, input, kept, webUrl));
}
