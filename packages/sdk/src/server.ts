/**
 * `@holdfast/sdk/server`: Holdfast for an integrator's server — client credentials cached and
 * renewed, a method per operation of the API, an `Idempotency-Key` on every write (the same on
 * its retries), retries of `429`/`503` honouring `Retry-After`, typed errors, page iteration and
 * webhook verification. Needs Node 20 or later (`fetch` and `node:crypto`); nothing else.
 */
export { HoldfastServer, type HoldfastServerOptions, type HoldfastResponse, type ItemOf, type PagedOperationId } from './server/client.js';
export { HoldfastError, WebhookVerificationError } from './server/errors.js';
export { OPERATIONS, type OperationId, type OperationInfo, type Operations } from './server/operations.js';
export type { CallOptions, InputOf, PayloadOf, ResultOf, TextStream } from './server/typing.js';
export {
  isValidWebhook,
  signWebhook,
  verifyWebhook,
  type HeaderSource,
  type VerifyWebhookOptions,
  type WebhookDelivery,
} from './server/webhooks.js';
export type { components as AccountsTypes } from './types/accounts.js';
export type { components as AuditTypes } from './types/audit.js';
export type { components as AuthTypes } from './types/auth.js';
export type { components as DisputesTypes } from './types/disputes.js';
export type { components as InvoicingTypes } from './types/invoicing.js';
export type { components as PaymentsTypes } from './types/payments.js';
export type { components as PayoutsTypes } from './types/payouts.js';
export type { components as ReportsTypes } from './types/reports.js';
export type { components as SandboxTypes } from './types/sandbox.js';
export type { components as WebhooksTypes } from './types/webhooks.js';
