/**
 * The operations of the OpenAPI documents, with a valid request for each, so matrices
 * (scopes, tenancy) cover every documented endpoint without a hand-kept list.
 */
import { httpMethods, loadMergedDocument } from '../../src/http/openapi.js';
import { unique } from './harness.js';

export interface Operation {
  method: string;
  template: string;
  operationId: string;
  /** Scopes of the svc_auth requirement; undefined when the operation needs no token. */
  scopes: string[] | undefined;
}

export async function operations(): Promise<Operation[]> {
  const doc = await loadMergedDocument();
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of httpMethods) {
      const op = item[method];
      if (!op) continue;
      const requirement = (op.security as Array<Record<string, string[]>> | undefined)?.find((s) => s.svc_auth);
      out.push({ method: method.toUpperCase(), template, operationId: op.operationId, scopes: requirement?.svc_auth });
    }
  }
  return out;
}

/** A valid request for an operation, given an account of the caller, and the status it earns. */
export function sampleRequest(op: Operation, account: { account_id: string; username: string }): { path: string; body?: unknown; status: number } {
  const path = op.template.replace('{account_id}', account.account_id);
  switch (op.operationId) {
    case 'registerAccount': {
      const name = unique('s');
      return { path, body: { username: name, email: { address: `${name}@example.com` } }, status: 200 };
    }
    case 'updateAccount':
      return { path, body: { full_name: 'Sample Name' }, status: 200 };
    case 'searchAccountByUsername':
      return { path: `${path}?username=${encodeURIComponent(account.username)}`, status: 200 };
    case 'addPaymentMethod':
      return { path, body: { type: 'card', card: { number: '4242424242424242', exp_month: 12, exp_year: new Date().getFullYear() + 2, cvc: '123' } }, status: 201 };
    default:
      return { path, status: 200 };
  }
}
