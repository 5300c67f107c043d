// Generated from the OpenAPI documents by `npm run sdk:types`. Do not edit.

import type { operations as accounts } from '../types/accounts.js';
import type { operations as audit } from '../types/audit.js';
import type { operations as auth } from '../types/auth.js';
import type { operations as disputes } from '../types/disputes.js';
import type { operations as invoicing } from '../types/invoicing.js';
import type { operations as payments } from '../types/payments.js';
import type { operations as payouts } from '../types/payouts.js';
import type { operations as reports } from '../types/reports.js';
import type { operations as sandbox } from '../types/sandbox.js';
import type { operations as webhooks } from '../types/webhooks.js';
import type { CallOptions, InputOf, PayloadOf, TextStream } from './typing.js';

/** Every operation's type, as openapi-typescript writes it, by operationId. */
export interface Operations {
  registerAccount: accounts['registerAccount'];
  searchAccountByUsername: accounts['searchAccountByUsername'];
  getAccountProfile: accounts['getAccountProfile'];
  updateAccount: accounts['updateAccount'];
  getAccountProfileLegacy: accounts['getAccountProfileLegacy'];
  getTosStatus: accounts['getTosStatus'];
  signTos: accounts['signTos'];
  unsignTos: accounts['unsignTos'];
  getCurrentTos: accounts['getCurrentTos'];
  blockAccount: accounts['blockAccount'];
  unblockAccount: accounts['unblockAccount'];
  getAccountBlocks: accounts['getAccountBlocks'];
  blockAccountLegacy: accounts['blockAccountLegacy'];
  unblockAccountLegacy: accounts['unblockAccountLegacy'];
  mergeAccounts: accounts['mergeAccounts'];
  getCommand: accounts['getCommand'];
  listAudit: audit['listAudit'];
  authorizeUser: auth['authorizeUser'];
  listDisputes: disputes['listDisputes'];
  getDispute: disputes['getDispute'];
  submitDisputeEvidence: disputes['submitDisputeEvidence'];
  createEscrow: invoicing['createEscrow'];
  getEscrow: invoicing['getEscrow'];
  payEscrow: invoicing['payEscrow'];
  commitEscrow: invoicing['commitEscrow'];
  cancelEscrow: invoicing['cancelEscrow'];
  createInvoice: invoicing['createInvoice'];
  payInvoice: invoicing['payInvoice'];
  purchaseTokens: invoicing['purchaseTokens'];
  convertTokens: invoicing['convertTokens'];
  getTokenExchange: invoicing['getTokenExchange'];
  executeTokenExchange: invoicing['executeTokenExchange'];
  authorizeInvoice: invoicing['authorizeInvoice'];
  listInvoices: invoicing['listInvoices'];
  getInvoice: invoicing['getInvoice'];
  refundInvoice: invoicing['refundInvoice'];
  refundLineItem: invoicing['refundLineItem'];
  getInvoiceRefunds: invoicing['getInvoiceRefunds'];
  getEscrowsByReference: invoicing['getEscrowsByReference'];
  getEscrowByInvoice: invoicing['getEscrowByInvoice'];
  listAccountInvoices: invoicing['listAccountInvoices'];
  getAccountStatement: invoicing['getAccountStatement'];
  listPaymentMethods: payments['listPaymentMethods'];
  addPaymentMethod: payments['addPaymentMethod'];
  listPaymentMethodsAlias: payments['listPaymentMethodsAlias'];
  getAccountBalances: payments['getAccountBalances'];
  getKyc: payouts['getKyc'];
  submitKyc: payouts['submitKyc'];
  requestPayout: payouts['requestPayout'];
  listPayouts: payouts['listPayouts'];
  getPayout: payouts['getPayout'];
  executePayoutNow: payouts['executePayoutNow'];
  reversePayout: payouts['reversePayout'];
  exportRows: reports['exportRows'];
  getSettlementReport: reports['getSettlementReport'];
  getSandboxClock: sandbox['getSandboxClock'];
  advanceSandboxClock: sandbox['advanceSandboxClock'];
  resetSandboxClock: sandbox['resetSandboxClock'];
  openSandboxDispute: sandbox['openSandboxDispute'];
  closeSandboxDispute: sandbox['closeSandboxDispute'];
  listWebhooks: webhooks['listWebhooks'];
  createWebhook: webhooks['createWebhook'];
  getWebhook: webhooks['getWebhook'];
  deleteWebhook: webhooks['deleteWebhook'];
  rotateWebhookSecret: webhooks['rotateWebhookSecret'];
  enableWebhook: webhooks['enableWebhook'];
  listEvents: webhooks['listEvents'];
  getEvent: webhooks['getEvent'];
  resendEvent: webhooks['resendEvent'];
}

export type OperationId = keyof Operations;

export interface OperationInfo {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  /** How its list pages: `limit`/`offset` (up to `maxOffset`) or a `starting_after` cursor. */
  paging?: 'offset' | 'cursor';
  maxOffset?: number;
  /** It takes an `Idempotency-Key` (every write does). */
  idempotent?: boolean;
  /** It answers a file (text), not JSON. */
  text?: boolean;
  /** Its body is a form, not JSON. */
  form?: boolean;
}

export const OPERATIONS: Record<OperationId, OperationInfo> = {
  registerAccount: { method: 'POST', path: '/register', idempotent: true },
  searchAccountByUsername: { method: 'GET', path: '/v1/user-info/search' },
  getAccountProfile: { method: 'GET', path: '/v1/user-info/{account_id}' },
  updateAccount: { method: 'PUT', path: '/user-info/{account_id}', idempotent: true },
  getAccountProfileLegacy: { method: 'GET', path: '/v1/{account_id}/user-info' },
  getTosStatus: { method: 'GET', path: '/user-info/{account_id}/tos/svc' },
  signTos: { method: 'POST', path: '/user-info/{account_id}/tos/svc', idempotent: true },
  unsignTos: { method: 'DELETE', path: '/user-info/{account_id}/tos/svc', idempotent: true },
  getCurrentTos: { method: 'GET', path: '/v1/tos' },
  blockAccount: { method: 'POST', path: '/v2/block', idempotent: true },
  unblockAccount: { method: 'DELETE', path: '/v2/block/{account_id}/capability/{block_capability}', idempotent: true },
  getAccountBlocks: { method: 'GET', path: '/v2/block/{account_id}' },
  blockAccountLegacy: { method: 'POST', path: '/v1/{account_id}/user-info/block', idempotent: true },
  unblockAccountLegacy: { method: 'POST', path: '/v1/{account_id}/user-info/unblock', idempotent: true },
  mergeAccounts: { method: 'POST', path: '/v2/merge-accounts', idempotent: true },
  getCommand: { method: 'GET', path: '/v2/commands/{command_id}' },
  listAudit: { method: 'GET', path: '/v2/audit', paging: 'offset', maxOffset: 1000000 },
  authorizeUser: { method: 'POST', path: '/authorize/user', idempotent: true },
  listDisputes: { method: 'GET', path: '/v2/disputes', paging: 'offset', maxOffset: 1000000 },
  getDispute: { method: 'GET', path: '/v2/disputes/{dispute_id}' },
  submitDisputeEvidence: { method: 'POST', path: '/v2/disputes/{dispute_id}/evidence', idempotent: true },
  createEscrow: { method: 'POST', path: '/v2/escrow', idempotent: true },
  getEscrow: { method: 'GET', path: '/v2/escrow/{escrow_id}' },
  payEscrow: { method: 'POST', path: '/v2/escrow/{escrow_id}/pay', idempotent: true },
  commitEscrow: { method: 'POST', path: '/v2/escrow/{escrow_id}/commit', idempotent: true },
  cancelEscrow: { method: 'POST', path: '/v2/escrow/{escrow_id}/cancel', idempotent: true },
  createInvoice: { method: 'POST', path: '/v2/invoice', idempotent: true },
  payInvoice: { method: 'POST', path: '/v2/invoice/{invoice_id}/pay', idempotent: true },
  purchaseTokens: { method: 'POST', path: '/v2/token/purchase', idempotent: true },
  convertTokens: { method: 'POST', path: '/v2/token/convert', idempotent: true },
  getTokenExchange: { method: 'GET', path: '/v2/token/convert/{token_exchange_id}' },
  executeTokenExchange: { method: 'POST', path: '/v2/token/convert/{token_exchange_id}', idempotent: true },
  authorizeInvoice: { method: 'POST', path: '/v2/authorize/invoice', idempotent: true },
  listInvoices: { method: 'GET', path: '/v1/{account_id}/invoices', paging: 'cursor' },
  getInvoice: { method: 'GET', path: '/v2/invoice/{invoice_id}' },
  refundInvoice: { method: 'POST', path: '/v2/refund', idempotent: true },
  refundLineItem: { method: 'POST', path: '/v2/line-item/refund', idempotent: true },
  getInvoiceRefunds: { method: 'GET', path: '/v2/invoice/{invoice_id}/refunds' },
  getEscrowsByReference: { method: 'GET', path: '/v2/escrow/reference/{reference_id}', paging: 'offset', maxOffset: 10000 },
  getEscrowByInvoice: { method: 'GET', path: '/v2/escrow/by_invoice/{invoice_id}' },
  listAccountInvoices: { method: 'GET', path: '/v2/invoice/account/{account_id}', paging: 'offset', maxOffset: 10000 },
  getAccountStatement: { method: 'GET', path: '/v1/{account_id}/statement', paging: 'offset', maxOffset: 10000 },
  listPaymentMethods: { method: 'GET', path: '/v1/{account_id}/payment_methods' },
  addPaymentMethod: { method: 'POST', path: '/v1/{account_id}/payment_methods', idempotent: true },
  listPaymentMethodsAlias: { method: 'GET', path: '/{account_id}/payment_methods' },
  getAccountBalances: { method: 'GET', path: '/v1/{account_id}/balances' },
  getKyc: { method: 'GET', path: '/v1/kyc/{account_id}' },
  submitKyc: { method: 'POST', path: '/v1/kyc/{account_id}' },
  requestPayout: { method: 'POST', path: '/v2/{account_id}/payout', idempotent: true },
  listPayouts: { method: 'GET', path: '/v2/{account_id}/payouts', paging: 'offset', maxOffset: 1000000 },
  getPayout: { method: 'GET', path: '/v2/{account_id}/payout/{payout_status_id}' },
  executePayoutNow: { method: 'PATCH', path: '/v2/{account_id}/payout/{payout_status_id}', idempotent: true },
  reversePayout: { method: 'DELETE', path: '/v2/{account_id}/payout/{payout_status_id}', idempotent: true },
  exportRows: { method: 'GET', path: '/v2/exports/{kind}', text: true },
  getSettlementReport: { method: 'GET', path: '/v2/reports/settlement' },
  getSandboxClock: { method: 'GET', path: '/v2/sandbox/clock' },
  advanceSandboxClock: { method: 'POST', path: '/v2/sandbox/clock', idempotent: true },
  resetSandboxClock: { method: 'DELETE', path: '/v2/sandbox/clock', idempotent: true },
  openSandboxDispute: { method: 'POST', path: '/v2/sandbox/disputes', idempotent: true },
  closeSandboxDispute: { method: 'POST', path: '/v2/sandbox/disputes/{dispute_id}/close', idempotent: true },
  listWebhooks: { method: 'GET', path: '/v2/webhooks' },
  createWebhook: { method: 'POST', path: '/v2/webhooks', idempotent: true },
  getWebhook: { method: 'GET', path: '/v2/webhooks/{webhook_id}' },
  deleteWebhook: { method: 'DELETE', path: '/v2/webhooks/{webhook_id}', idempotent: true },
  rotateWebhookSecret: { method: 'POST', path: '/v2/webhooks/{webhook_id}/rotate-secret', idempotent: true },
  enableWebhook: { method: 'POST', path: '/v2/webhooks/{webhook_id}/enable', idempotent: true },
  listEvents: { method: 'GET', path: '/v2/events', paging: 'offset', maxOffset: 100000 },
  getEvent: { method: 'GET', path: '/v2/events/{event_id}' },
  resendEvent: { method: 'POST', path: '/v2/events/{event_id}/resend', idempotent: true },
};

/** A method per operation; each answers the envelope's `payload` (or the bare answer) and throws a HoldfastError otherwise. */
export abstract class OperationMethods {
  protected abstract invoke<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<PayloadOf<K>>;
  protected abstract stream<K extends OperationId>(id: K, input: InputOf<K>, options?: CallOptions): Promise<TextStream>;

  /** Register an account (`POST /register`). */
  registerAccount(input: InputOf<'registerAccount'>, options?: CallOptions): Promise<PayloadOf<'registerAccount'>> {
    return this.invoke('registerAccount', (input ?? {}) as InputOf<'registerAccount'>, options);
  }

  /** Look up an account by username (`GET /v1/user-info/search`). */
  searchAccountByUsername(input?: InputOf<'searchAccountByUsername'>, options?: CallOptions): Promise<PayloadOf<'searchAccountByUsername'>> {
    return this.invoke('searchAccountByUsername', (input ?? {}) as InputOf<'searchAccountByUsername'>, options);
  }

  /** Look up an account profile (`GET /v1/user-info/{account_id}`). */
  getAccountProfile(input: InputOf<'getAccountProfile'>, options?: CallOptions): Promise<PayloadOf<'getAccountProfile'>> {
    return this.invoke('getAccountProfile', (input ?? {}) as InputOf<'getAccountProfile'>, options);
  }

  /** Update an account (partial) (`PUT /user-info/{account_id}`). */
  updateAccount(input: InputOf<'updateAccount'>, options?: CallOptions): Promise<PayloadOf<'updateAccount'>> {
    return this.invoke('updateAccount', (input ?? {}) as InputOf<'updateAccount'>, options);
  }

  /** Look up an account (earlier generation) (`GET /v1/{account_id}/user-info`). */
  getAccountProfileLegacy(input: InputOf<'getAccountProfileLegacy'>, options?: CallOptions): Promise<PayloadOf<'getAccountProfileLegacy'>> {
    return this.invoke('getAccountProfileLegacy', (input ?? {}) as InputOf<'getAccountProfileLegacy'>, options);
  }

  /** Has the account signed the current ToS? (`GET /user-info/{account_id}/tos/svc`). */
  getTosStatus(input: InputOf<'getTosStatus'>, options?: CallOptions): Promise<PayloadOf<'getTosStatus'>> {
    return this.invoke('getTosStatus', (input ?? {}) as InputOf<'getTosStatus'>, options);
  }

  /** Sign the current ToS for the account (`POST /user-info/{account_id}/tos/svc`). */
  signTos(input: InputOf<'signTos'>, options?: CallOptions): Promise<PayloadOf<'signTos'>> {
    return this.invoke('signTos', (input ?? {}) as InputOf<'signTos'>, options);
  }

  /** Remove the account's signature of the current ToS (staging only) (`DELETE /user-info/{account_id}/tos/svc`). */
  unsignTos(input: InputOf<'unsignTos'>, options?: CallOptions): Promise<PayloadOf<'unsignTos'>> {
    return this.invoke('unsignTos', (input ?? {}) as InputOf<'unsignTos'>, options);
  }

  /** The current terms of service (`GET /v1/tos`). */
  getCurrentTos(input?: InputOf<'getCurrentTos'>, options?: CallOptions): Promise<PayloadOf<'getCurrentTos'>> {
    return this.invoke('getCurrentTos', (input ?? {}) as InputOf<'getCurrentTos'>, options);
  }

  /** Block a capability of an account (`POST /v2/block`). */
  blockAccount(input: InputOf<'blockAccount'>, options?: CallOptions): Promise<PayloadOf<'blockAccount'>> {
    return this.invoke('blockAccount', (input ?? {}) as InputOf<'blockAccount'>, options);
  }

  /** Remove the block of one capability (`DELETE /v2/block/{account_id}/capability/{block_capability}`). */
  unblockAccount(input: InputOf<'unblockAccount'>, options?: CallOptions): Promise<PayloadOf<'unblockAccount'>> {
    return this.invoke('unblockAccount', (input ?? {}) as InputOf<'unblockAccount'>, options);
  }

  /** The active blocks of an account (`GET /v2/block/{account_id}`). */
  getAccountBlocks(input: InputOf<'getAccountBlocks'>, options?: CallOptions): Promise<PayloadOf<'getAccountBlocks'>> {
    return this.invoke('getAccountBlocks', (input ?? {}) as InputOf<'getAccountBlocks'>, options);
  }

  /** Block an account (earlier generation) (`POST /v1/{account_id}/user-info/block`). */
  blockAccountLegacy(input: InputOf<'blockAccountLegacy'>, options?: CallOptions): Promise<PayloadOf<'blockAccountLegacy'>> {
    return this.invoke('blockAccountLegacy', (input ?? {}) as InputOf<'blockAccountLegacy'>, options);
  }

  /** Unblock an account (earlier generation) (`POST /v1/{account_id}/user-info/unblock`). */
  unblockAccountLegacy(input: InputOf<'unblockAccountLegacy'>, options?: CallOptions): Promise<PayloadOf<'unblockAccountLegacy'>> {
    return this.invoke('unblockAccountLegacy', (input ?? {}) as InputOf<'unblockAccountLegacy'>, options);
  }

  /** Merge one account into another (`POST /v2/merge-accounts`). */
  mergeAccounts(input: InputOf<'mergeAccounts'>, options?: CallOptions): Promise<PayloadOf<'mergeAccounts'>> {
    return this.invoke('mergeAccounts', (input ?? {}) as InputOf<'mergeAccounts'>, options);
  }

  /** The state and outcome of a command (`GET /v2/commands/{command_id}`). */
  getCommand(input: InputOf<'getCommand'>, options?: CallOptions): Promise<PayloadOf<'getCommand'>> {
    return this.invoke('getCommand', (input ?? {}) as InputOf<'getCommand'>, options);
  }

  /** The integrator's audit trail (`GET /v2/audit`). */
  listAudit(input?: InputOf<'listAudit'>, options?: CallOptions): Promise<PayloadOf<'listAudit'>> {
    return this.invoke('listAudit', (input ?? {}) as InputOf<'listAudit'>, options);
  }

  /** Open a user session (`POST /authorize/user`). */
  authorizeUser(input: InputOf<'authorizeUser'>, options?: CallOptions): Promise<PayloadOf<'authorizeUser'>> {
    return this.invoke('authorizeUser', (input ?? {}) as InputOf<'authorizeUser'>, options);
  }

  /** The integrator's disputes (`GET /v2/disputes`). */
  listDisputes(input?: InputOf<'listDisputes'>, options?: CallOptions): Promise<PayloadOf<'listDisputes'>> {
    return this.invoke('listDisputes', (input ?? {}) as InputOf<'listDisputes'>, options);
  }

  /** One dispute (`GET /v2/disputes/{dispute_id}`). */
  getDispute(input: InputOf<'getDispute'>, options?: CallOptions): Promise<PayloadOf<'getDispute'>> {
    return this.invoke('getDispute', (input ?? {}) as InputOf<'getDispute'>, options);
  }

  /** Save (and submit) a dispute's evidence (`POST /v2/disputes/{dispute_id}/evidence`). */
  submitDisputeEvidence(input: InputOf<'submitDisputeEvidence'>, options?: CallOptions): Promise<PayloadOf<'submitDisputeEvidence'>> {
    return this.invoke('submitDisputeEvidence', (input ?? {}) as InputOf<'submitDisputeEvidence'>, options);
  }

  /** Create an escrow (OPEN) (`POST /v2/escrow`). */
  createEscrow(input: InputOf<'createEscrow'>, options?: CallOptions): Promise<PayloadOf<'createEscrow'>> {
    return this.invoke('createEscrow', (input ?? {}) as InputOf<'createEscrow'>, options);
  }

  /** The escrow as it stands (`GET /v2/escrow/{escrow_id}`). */
  getEscrow(input: InputOf<'getEscrow'>, options?: CallOptions): Promise<PayloadOf<'getEscrow'>> {
    return this.invoke('getEscrow', (input ?? {}) as InputOf<'getEscrow'>, options);
  }

  /** Pay an escrow (`POST /v2/escrow/{escrow_id}/pay`). */
  payEscrow(input: InputOf<'payEscrow'>, options?: CallOptions): Promise<PayloadOf<'payEscrow'>> {
    return this.invoke('payEscrow', (input ?? {}) as InputOf<'payEscrow'>, options);
  }

  /** Commit an escrow (`POST /v2/escrow/{escrow_id}/commit`). */
  commitEscrow(input: InputOf<'commitEscrow'>, options?: CallOptions): Promise<PayloadOf<'commitEscrow'>> {
    return this.invoke('commitEscrow', (input ?? {}) as InputOf<'commitEscrow'>, options);
  }

  /** Cancel an escrow (`POST /v2/escrow/{escrow_id}/cancel`). */
  cancelEscrow(input: InputOf<'cancelEscrow'>, options?: CallOptions): Promise<PayloadOf<'cancelEscrow'>> {
    return this.invoke('cancelEscrow', (input ?? {}) as InputOf<'cancelEscrow'>, options);
  }

  /** Create a standard (non-escrow) invoice (OPEN) (`POST /v2/invoice`). */
  createInvoice(input: InputOf<'createInvoice'>, options?: CallOptions): Promise<PayloadOf<'createInvoice'>> {
    return this.invoke('createInvoice', (input ?? {}) as InputOf<'createInvoice'>, options);
  }

  /** Pay a standard or an authorized invoice (`POST /v2/invoice/{invoice_id}/pay`). */
  payInvoice(input: InputOf<'payInvoice'>, options?: CallOptions): Promise<PayloadOf<'payInvoice'>> {
    return this.invoke('payInvoice', (input ?? {}) as InputOf<'payInvoice'>, options);
  }

  /** Buy virtual tokens (`POST /v2/token/purchase`). */
  purchaseTokens(input: InputOf<'purchaseTokens'>, options?: CallOptions): Promise<PayloadOf<'purchaseTokens'>> {
    return this.invoke('purchaseTokens', (input ?? {}) as InputOf<'purchaseTokens'>, options);
  }

  /** Quote a conversion of convertible tokens to USD (`POST /v2/token/convert`). */
  convertTokens(input: InputOf<'convertTokens'>, options?: CallOptions): Promise<PayloadOf<'convertTokens'>> {
    return this.invoke('convertTokens', (input ?? {}) as InputOf<'convertTokens'>, options);
  }

  /** A token exchange (`GET /v2/token/convert/{token_exchange_id}`). */
  getTokenExchange(input: InputOf<'getTokenExchange'>, options?: CallOptions): Promise<PayloadOf<'getTokenExchange'>> {
    return this.invoke('getTokenExchange', (input ?? {}) as InputOf<'getTokenExchange'>, options);
  }

  /** Execute a token exchange (`POST /v2/token/convert/{token_exchange_id}`). */
  executeTokenExchange(input: InputOf<'executeTokenExchange'>, options?: CallOptions): Promise<PayloadOf<'executeTokenExchange'>> {
    return this.invoke('executeTokenExchange', (input ?? {}) as InputOf<'executeTokenExchange'>, options);
  }

  /** Authorize an invoice for its buyer to pay (hosted checkout or SDK) (`POST /v2/authorize/invoice`). */
  authorizeInvoice(input: InputOf<'authorizeInvoice'>, options?: CallOptions): Promise<PayloadOf<'authorizeInvoice'>> {
    return this.invoke('authorizeInvoice', (input ?? {}) as InputOf<'authorizeInvoice'>, options);
  }

  /** An account's invoices, newest first (transaction history) (`GET /v1/{account_id}/invoices`). */
  listInvoices(input: InputOf<'listInvoices'>, options?: CallOptions): Promise<PayloadOf<'listInvoices'>> {
    return this.invoke('listInvoices', (input ?? {}) as InputOf<'listInvoices'>, options);
  }

  /** An invoice (escrow, commit or cancel phase) (`GET /v2/invoice/{invoice_id}`). */
  getInvoice(input: InputOf<'getInvoice'>, options?: CallOptions): Promise<PayloadOf<'getInvoice'>> {
    return this.invoke('getInvoice', (input ?? {}) as InputOf<'getInvoice'>, options);
  }

  /** Refund everything a purchase invoice has not had back yet (`POST /v2/refund`). */
  refundInvoice(input: InputOf<'refundInvoice'>, options?: CallOptions): Promise<PayloadOf<'refundInvoice'>> {
    return this.invoke('refundInvoice', (input ?? {}) as InputOf<'refundInvoice'>, options);
  }

  /** Refund an amount of one line item (`POST /v2/line-item/refund`). */
  refundLineItem(input: InputOf<'refundLineItem'>, options?: CallOptions): Promise<PayloadOf<'refundLineItem'>> {
    return this.invoke('refundLineItem', (input ?? {}) as InputOf<'refundLineItem'>, options);
  }

  /** The refund summary of a purchase invoice (`GET /v2/invoice/{invoice_id}/refunds`). */
  getInvoiceRefunds(input: InputOf<'getInvoiceRefunds'>, options?: CallOptions): Promise<PayloadOf<'getInvoiceRefunds'>> {
    return this.invoke('getInvoiceRefunds', (input ?? {}) as InputOf<'getInvoiceRefunds'>, options);
  }

  /** The integrator's escrows with a reference (reconciliation) (`GET /v2/escrow/reference/{reference_id}`). */
  getEscrowsByReference(input: InputOf<'getEscrowsByReference'>, options?: CallOptions): Promise<PayloadOf<'getEscrowsByReference'>> {
    return this.invoke('getEscrowsByReference', (input ?? {}) as InputOf<'getEscrowsByReference'>, options);
  }

  /** The escrow an invoice belongs to (reconciliation) (`GET /v2/escrow/by_invoice/{invoice_id}`). */
  getEscrowByInvoice(input: InputOf<'getEscrowByInvoice'>, options?: CallOptions): Promise<PayloadOf<'getEscrowByInvoice'>> {
    return this.invoke('getEscrowByInvoice', (input ?? {}) as InputOf<'getEscrowByInvoice'>, options);
  }

  /** An account's invoices, filtered and counted (reconciliation) (`GET /v2/invoice/account/{account_id}`). */
  listAccountInvoices(input: InputOf<'listAccountInvoices'>, options?: CallOptions): Promise<PayloadOf<'listAccountInvoices'>> {
    return this.invoke('listAccountInvoices', (input ?? {}) as InputOf<'listAccountInvoices'>, options);
  }

  /** An account's statement (every posting on its wallets) (`GET /v1/{account_id}/statement`). */
  getAccountStatement(input: InputOf<'getAccountStatement'>, options?: CallOptions): Promise<PayloadOf<'getAccountStatement'>> {
    return this.invoke('getAccountStatement', (input ?? {}) as InputOf<'getAccountStatement'>, options);
  }

  /** List an account's payment methods (`GET /v1/{account_id}/payment_methods`). */
  listPaymentMethods(input: InputOf<'listPaymentMethods'>, options?: CallOptions): Promise<PayloadOf<'listPaymentMethods'>> {
    return this.invoke('listPaymentMethods', (input ?? {}) as InputOf<'listPaymentMethods'>, options);
  }

  /** Add a card or a PayPal payout destination (`POST /v1/{account_id}/payment_methods`). */
  addPaymentMethod(input: InputOf<'addPaymentMethod'>, options?: CallOptions): Promise<PayloadOf<'addPaymentMethod'>> {
    return this.invoke('addPaymentMethod', (input ?? {}) as InputOf<'addPaymentMethod'>, options);
  }

  /** List an account's payment methods (alias without `/v1`) (`GET /{account_id}/payment_methods`). */
  listPaymentMethodsAlias(input: InputOf<'listPaymentMethodsAlias'>, options?: CallOptions): Promise<PayloadOf<'listPaymentMethodsAlias'>> {
    return this.invoke('listPaymentMethodsAlias', (input ?? {}) as InputOf<'listPaymentMethodsAlias'>, options);
  }

  /** An account's balances per currency (`GET /v1/{account_id}/balances`). */
  getAccountBalances(input: InputOf<'getAccountBalances'>, options?: CallOptions): Promise<PayloadOf<'getAccountBalances'>> {
    return this.invoke('getAccountBalances', (input ?? {}) as InputOf<'getAccountBalances'>, options);
  }

  /** An account's KYC state (`GET /v1/kyc/{account_id}`). */
  getKyc(input: InputOf<'getKyc'>, options?: CallOptions): Promise<PayloadOf<'getKyc'>> {
    return this.invoke('getKyc', (input ?? {}) as InputOf<'getKyc'>, options);
  }

  /** Submit an account's personal data for its KYC check (`POST /v1/kyc/{account_id}`). */
  submitKyc(input: InputOf<'submitKyc'>, options?: CallOptions): Promise<PayloadOf<'submitKyc'>> {
    return this.invoke('submitKyc', (input ?? {}) as InputOf<'submitKyc'>, options);
  }

  /** Request a payout (`POST /v2/{account_id}/payout`). */
  requestPayout(input: InputOf<'requestPayout'>, options?: CallOptions): Promise<PayloadOf<'requestPayout'>> {
    return this.invoke('requestPayout', (input ?? {}) as InputOf<'requestPayout'>, options);
  }

  /** An account's payouts (`GET /v2/{account_id}/payouts`). */
  listPayouts(input: InputOf<'listPayouts'>, options?: CallOptions): Promise<PayloadOf<'listPayouts'>> {
    return this.invoke('listPayouts', (input ?? {}) as InputOf<'listPayouts'>, options);
  }

  /** One payout of an account (`GET /v2/{account_id}/payout/{payout_status_id}`). */
  getPayout(input: InputOf<'getPayout'>, options?: CallOptions): Promise<PayloadOf<'getPayout'>> {
    return this.invoke('getPayout', (input ?? {}) as InputOf<'getPayout'>, options);
  }

  /** Approve and execute a payout at once, or apply a rail outcome (staging only) (`PATCH /v2/{account_id}/payout/{payout_status_id}`). */
  executePayoutNow(input: InputOf<'executePayoutNow'>, options?: CallOptions): Promise<PayloadOf<'executePayoutNow'>> {
    return this.invoke('executePayoutNow', (input ?? {}) as InputOf<'executePayoutNow'>, options);
  }

  /** Take a payout back (USER-REVERSED) (`DELETE /v2/{account_id}/payout/{payout_status_id}`). */
  reversePayout(input: InputOf<'reversePayout'>, options?: CallOptions): Promise<PayloadOf<'reversePayout'>> {
    return this.invoke('reversePayout', (input ?? {}) as InputOf<'reversePayout'>, options);
  }

  /** Export an integrator's records as CSV or JSON lines (`GET /v2/exports/{kind}`). */
  exportRows(input: InputOf<'exportRows'>, options?: CallOptions): Promise<TextStream> {
    return this.stream('exportRows', (input ?? {}) as InputOf<'exportRows'>, options);
  }

  /** One UTC day's settlement, per currency, from the ledger (`GET /v2/reports/settlement`). */
  getSettlementReport(input?: InputOf<'getSettlementReport'>, options?: CallOptions): Promise<PayloadOf<'getSettlementReport'>> {
    return this.invoke('getSettlementReport', (input ?? {}) as InputOf<'getSettlementReport'>, options);
  }

  /** The caller's test clock (`GET /v2/sandbox/clock`). */
  getSandboxClock(input?: InputOf<'getSandboxClock'>, options?: CallOptions): Promise<PayloadOf<'getSandboxClock'>> {
    return this.invoke('getSandboxClock', (input ?? {}) as InputOf<'getSandboxClock'>, options);
  }

  /** Move the caller's test clock forward (`POST /v2/sandbox/clock`). */
  advanceSandboxClock(input: InputOf<'advanceSandboxClock'>, options?: CallOptions): Promise<PayloadOf<'advanceSandboxClock'>> {
    return this.invoke('advanceSandboxClock', (input ?? {}) as InputOf<'advanceSandboxClock'>, options);
  }

  /** Put the caller's test clock back to real time (`DELETE /v2/sandbox/clock`). */
  resetSandboxClock(input?: InputOf<'resetSandboxClock'>, options?: CallOptions): Promise<PayloadOf<'resetSandboxClock'>> {
    return this.invoke('resetSandboxClock', (input ?? {}) as InputOf<'resetSandboxClock'>, options);
  }

  /** The sandbox processor disputes a card charge (`POST /v2/sandbox/disputes`). */
  openSandboxDispute(input: InputOf<'openSandboxDispute'>, options?: CallOptions): Promise<PayloadOf<'openSandboxDispute'>> {
    return this.invoke('openSandboxDispute', (input ?? {}) as InputOf<'openSandboxDispute'>, options);
  }

  /** The sandbox processor decides a dispute (`POST /v2/sandbox/disputes/{dispute_id}/close`). */
  closeSandboxDispute(input: InputOf<'closeSandboxDispute'>, options?: CallOptions): Promise<PayloadOf<'closeSandboxDispute'>> {
    return this.invoke('closeSandboxDispute', (input ?? {}) as InputOf<'closeSandboxDispute'>, options);
  }

  /** The integrator's webhook endpoints (`GET /v2/webhooks`). */
  listWebhooks(input?: InputOf<'listWebhooks'>, options?: CallOptions): Promise<PayloadOf<'listWebhooks'>> {
    return this.invoke('listWebhooks', (input ?? {}) as InputOf<'listWebhooks'>, options);
  }

  /** Register a webhook endpoint (`POST /v2/webhooks`). */
  createWebhook(input: InputOf<'createWebhook'>, options?: CallOptions): Promise<PayloadOf<'createWebhook'>> {
    return this.invoke('createWebhook', (input ?? {}) as InputOf<'createWebhook'>, options);
  }

  /** A webhook endpoint and its recent delivery attempts (`GET /v2/webhooks/{webhook_id}`). */
  getWebhook(input: InputOf<'getWebhook'>, options?: CallOptions): Promise<PayloadOf<'getWebhook'>> {
    return this.invoke('getWebhook', (input ?? {}) as InputOf<'getWebhook'>, options);
  }

  /** Delete a webhook endpoint (`DELETE /v2/webhooks/{webhook_id}`). */
  deleteWebhook(input: InputOf<'deleteWebhook'>, options?: CallOptions): Promise<PayloadOf<'deleteWebhook'>> {
    return this.invoke('deleteWebhook', (input ?? {}) as InputOf<'deleteWebhook'>, options);
  }

  /** Rotate the signing secret (`POST /v2/webhooks/{webhook_id}/rotate-secret`). */
  rotateWebhookSecret(input: InputOf<'rotateWebhookSecret'>, options?: CallOptions): Promise<PayloadOf<'rotateWebhookSecret'>> {
    return this.invoke('rotateWebhookSecret', (input ?? {}) as InputOf<'rotateWebhookSecret'>, options);
  }

  /** Re-enable a disabled endpoint (`POST /v2/webhooks/{webhook_id}/enable`). */
  enableWebhook(input: InputOf<'enableWebhook'>, options?: CallOptions): Promise<PayloadOf<'enableWebhook'>> {
    return this.invoke('enableWebhook', (input ?? {}) as InputOf<'enableWebhook'>, options);
  }

  /** The integrator's events of the last 30 days (`GET /v2/events`). */
  listEvents(input?: InputOf<'listEvents'>, options?: CallOptions): Promise<PayloadOf<'listEvents'>> {
    return this.invoke('listEvents', (input ?? {}) as InputOf<'listEvents'>, options);
  }

  /** An event and its delivery attempts (`GET /v2/events/{event_id}`). */
  getEvent(input: InputOf<'getEvent'>, options?: CallOptions): Promise<PayloadOf<'getEvent'>> {
    return this.invoke('getEvent', (input ?? {}) as InputOf<'getEvent'>, options);
  }

  /** Send an event again (`POST /v2/events/{event_id}/resend`). */
  resendEvent(input: InputOf<'resendEvent'>, options?: CallOptions): Promise<PayloadOf<'resendEvent'>> {
    return this.invoke('resendEvent', (input ?? {}) as InputOf<'resendEvent'>, options);
  }
}
