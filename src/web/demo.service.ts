/**
 * The staging demo shop (`/ui/demo`, printed by `npm start`): it stands in for an integrator's
 * server, with the demo client's rights, so the hosted flows can be tried in a browser. Each
 * visit gets a new buyer (the demo integrator's accounts are disposable).
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { registerAccount } from '../registration/registration.service.js';
import { findClient, type TokenSigner } from '../auth/auth.service.js';
import type { Principal } from '../integrators/principal.js';
import { authorizeUser } from '../sessions/user-session.service.js';
import { authorizeInvoice } from '../invoice-authorization/invoice-authorization.service.js';

async function demoPrincipal(em: EntityManager, clientId: string): Promise<Principal> {
  const client = await findClient(em, clientId);
  if (!client) throw new Error('the demo client is gone: restart npm start to make it again');
  return {
    clientId: client.id,
    integratorId: client.integrator.id,
    scopes: client.scopes,
    isOperator: false,
    canUnblock: client.canUnblock,
  };
}

async function demoBuyer(em: EntityManager, principal: Principal): Promise<string> {
  const name = `demo-buyer-${randomBytes(5).toString('hex')}`;
  return (await registerAccount(em, principal, { username: name, email: { address: `${name}@example.com` } })).account_id;
}

/** A new buyer and an authorized invoice for a USD 4.99 cape (widget mechanism): the redirect for the widget. */
export async function demoCheckout(
  em: EntityManager,
  signer: TokenSigner,
  clientId: string,
  webUrl: string,
): Promise<{ redirect: string }> {
  const principal = await demoPrincipal(em, clientId);
  const accountId = await demoBuyer(em, principal);
  const authorized = await authorizeInvoice(
    em,
    signer,
    principal,
    {
      account_id: accountId,
      invoice_mechanism: 'widget',
      reference_type: 'demo-order',
      reference_id: randomBytes(4).toString('hex'),
      description: 'Demo shop',
      line_items: [
        { amount: 499, currency: 'USD', transaction_type: 'user_to_integrator', product_sku: 'cape-1', description: 'Winter cape' },
      ],
    },
    webUrl,
  );
  return { redirect: (authorized as { redirect: string }).redirect };
}

/** A new buyer's session link, for the payment-selection flow. */
export async function demoSession(em: EntityManager, signer: TokenSigner, clientId: string, webUrl: string): Promise<{ redirect: string }> {
  const principal = await demoPrincipal(em, clientId);
  const accountId = await demoBuyer(em, principal);
  return authorizeUser(em, signer, principal, { account_id: accountId }, webUrl) as Promise<{ redirect: string }>;
}
