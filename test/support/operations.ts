/**
 * The operations of the OpenAPI documents, with a valid request for each, so matrices
 * (scopes, tenancy) cover every documented endpoint without a hand-kept list.
 */
import { httpMethods, loadMergedDocument } from '../../src/http/openapi.js';
import { call, register, unique, type TestClient } from './harness.js';

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  /** Scopes of the svc_auth requirement; undefined when the operation needs no token. */
  scopes: string[] | undefined;
  /** Scopes of the user_auth requirement; undefined when the operation refuses user password tokens. */
  userScopes: string[] | undefined;
}

export async function operations(): Promise<Operation[]> {
  const doc = await loadMergedDocument();
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op) continue;
      const security = op.security as Array<Record<string, string[]>> | undefined;
      out.push({
        method: method.toUpperCase(),
        template,
        operationId: op.operationId,
        scopes: security?.find((s) => s.svc_auth)?.svc_auth,
        userScopes: security?.find((s) => s.user_auth)?.user_auth,
      });
    }
  }
  return out;
}

/** What a caller owns, for building valid requests: accounts, a USD wallet, an escrow, a command. */
export interface Fixture {
  account_id: string;
  username: string;
  wallet_pm: string;
  escrow_id: string;
  invoice_id: string;
  /** The line item of the escrow's invoice. */
  line_item_id: string;
  /** An account to block (blocking the main one would stop the purchases the matrices make). */
  block_account_id: string;
  /** An account to merge into the main one. */
  merge_source_id: string;
  command_id: string;
  webhook_id: string;
  /** A webhook endpoint for the delete operation (the others keep using webhook_id). */
  deletable_webhook_id: string;
  /** An event of the caller's (its account's registration). */
  event_id: string;
}

/** Registers an account for the client and opens an escrow for it. */
export async function fixtureFor(client: TestClient): Promise<Fixture> {
  const account = await register(client);
  const methods = await call('GET', `/v1/${account.account_id}/payment_methods`, { token: client.token });
  const walletPm = methods.body.payload.find((m: { provider: string }) => m.provider === 'wallet').id;
  const escrow = await call('POST', '/v2/escrow', { token: client.token, body: escrowBody(account.account_id, walletPm) });
  if (escrow.status !== 201) throw new Error(`escrow create failed: ${escrow.text}`);
  const second = await call('POST', '/v2/escrow', { token: client.token, body: escrowBody(account.account_id, walletPm) });
  const paid = await call('POST', `/v2/escrow/${second.body.payload.id}/pay`, {
    token: client.token,
    headers: { prefer: 'respond-async' },
  });
  return {
    account_id: account.account_id,
    username: account.username,
    wallet_pm: walletPm,
    escrow_id: escrow.body.payload.id,
    invoice_id: escrow.body.payload.escrow_invoice_id,
    line_item_id: Object.keys(
      (await call('GET', `/v2/invoice/${escrow.body.payload.escrow_invoice_id}`, { token: client.token })).body.payload.line_items,
    )[0],
    block_account_id: (await register(client)).account_id,
    merge_source_id: (await register(client)).account_id,
    command_id: paid.headers.get('x-command-id')!,
    webhook_id: (await call('POST', '/v2/webhooks', { token: client.token, body: webhookBody() })).body.payload.id,
    deletable_webhook_id: (await call('POST', '/v2/webhooks', { token: client.token, body: webhookBody() })).body.payload.id,
    event_id: (await call('GET', `/v2/events?account_id=${account.account_id}&type=register-account-completed`, { token: client.token }))
      .body.payload.events[0].id,
  };
}

export function webhookBody() {
  // Nothing listens there: deliveries fail at once (connection refused) and are retried briefly.
  return { url: 'http://127.0.0.1:9/holdfast', events: ['escrow-transaction-update'] };
}

export function escrowBody(accountId: string, paymentMethodId: string) {
  return {
    account_id: accountId,
    payment_methods: [{ payment_method_id: paymentMethodId, amount: 0 }],
    line_items: [{ amount: 150, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'sword' }],
  };
}

/** A valid request for an operation, given what the caller owns, and the status it earns. */
export function sampleRequest(op: Operation, f: Fixture): { path: string; body?: unknown; status: number } {
  const account = op.operationId === 'blockAccountLegacy' ? f.block_account_id : f.account_id;
  const path = op.template
    .replace('{account_id}', account)
    .replace('{escrow_id}', f.escrow_id)
    .replace('{invoice_id}', f.invoice_id)
    .replace('{command_id}', f.command_id)
    .replace('{reference_id}', 'order-1')
    .replace('{block_capability}', 'login')
    .replace('{event_id}', f.event_id)
    // No payout exists in the fixture: its operations answer the payout's 404 to the owner.
    .replace('{payout_status_id}', 'po_00000000000000000000000000')
    .replace('{token_exchange_id}', 'tex_00000000000000000000000000')
    // No dispute exists in the fixture: its operations answer the dispute's 404 to the owner.
    .replace('{dispute_id}', 'dsp_00000000000000000000000000')
    .replace('{kind}', 'invoices')
    .replace('{webhook_id}', op.operationId === 'deleteWebhook' ? f.deletable_webhook_id : f.webhook_id);
  switch (op.operationId) {
    case 'blockAccount':
      return { path, body: { account_id: f.block_account_id, block_capability: 'login', block_reason: 'account_close' }, status: 200 };
    case 'mergeAccounts':
      return { path, body: { source_account_id: f.merge_source_id, destination_account_id: f.account_id }, status: 200 };
    case 'createWebhook':
      return { path, body: webhookBody(), status: 201 };
    case 'authorizeUser':
      return { path, body: { account_id: f.account_id }, status: 200 };
    case 'authorizeInvoice':
      return {
        path,
        body: { account_id: f.account_id, invoice_mechanism: 'api', line_items: escrowBody(f.account_id, f.wallet_pm).line_items },
        status: 200,
      };
    case 'registerAccount': {
      const name = unique('s');
      return { path, body: { username: name, email: { address: `${name}@example.com` } }, status: 200 };
    }
    case 'updateAccount':
      return { path, body: { full_name: 'Sample Name' }, status: 200 };
    case 'searchAccountByUsername':
      return { path: `${path}?username=${encodeURIComponent(f.username)}`, status: 200 };
    case 'addPaymentMethod':
      return {
        path,
        body: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } },
        status: 201,
      };
    case 'createEscrow':
    case 'createInvoice':
      return { path, body: escrowBody(f.account_id, f.wallet_pm), status: 201 };
    case 'resendEvent':
      return { path, status: 202 }; // to every subscribed endpoint: none is subscribed to the fixture's event
    case 'purchaseTokens':
      return { path, body: { payment_method_id: f.wallet_pm, amount: 100, currency: 'USD' }, status: 400 }; // the fixture's integrator has no token currency
    case 'convertTokens':
      return { path, body: { account_id: f.account_id, amount: 500, currency: 'GEM' }, status: 400 }; // the fixture's integrator has no token currency
    case 'executeTokenExchange':
    case 'getTokenExchange':
      return { path, status: 404 }; // no exchange can be made without a token currency
    case 'advanceSandboxClock':
      return { path, body: { advance_seconds: 60 }, status: 200 };
    case 'payInvoice':
      return { path, status: 409 }; // the fixture's invoice belongs to its escrow
    case 'refundInvoice':
      return { path, body: { invoice_id: f.invoice_id, reason: 'other' }, status: 409 }; // an escrow's invoice is cancelled, not refunded
    case 'requestPayout':
      // The fixture's account has no KYC: refused, nothing moved.
      return {
        path,
        body: { source_payment_method_id: f.wallet_pm, destination_payment_method_id: f.wallet_pm, amount: 100, currency: 'USD' },
        status: 409,
      };
    case 'getPayout':
    case 'reversePayout':
    case 'executePayoutNow':
      return { path, status: 404 };
    case 'submitKyc':
      return {
        path,
        body: { first_name: 'Ada', last_name: 'Lovelace', date_of_birth: '1990-12-10', address: '1 Analytical Row', country: 'GB' },
        status: 200,
      };
    case 'refundLineItem':
      return { path, body: { line_item_id: f.line_item_id, amount: 1, payment_methods: [f.wallet_pm], reason: 'other' }, status: 409 };
    case 'payEscrow':
      return { path, status: 200 }; // the fixture's wallet is empty: ESCROW-FAILED, which is not an HTTP error
    case 'commitEscrow':
    case 'cancelEscrow':
      return { path, status: 409 }; // the fixture's escrow was never paid
    case 'getDispute':
      return { path, status: 404 };
    case 'getSettlementReport':
      return { path: `${path}?date=2026-11-28`, status: 200 };
    case 'submitDisputeEvidence':
      return { path, body: { product_description: 'gems' }, status: 404 };
    case 'closeSandboxDispute':
      return { path, body: { outcome: 'won' }, status: 404 };
    case 'openSandboxDispute':
      // The fixture's invoice was paid by no card: no dispute can open, nothing moved.
      return { path, body: { invoice_id: f.invoice_id, payment_method_id: f.wallet_pm }, status: 400 };
    default:
      return { path, status: 200 };
  }
}
