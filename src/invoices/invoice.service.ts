import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../errors.js';
import type { Principal } from '../auth/auth.service.js';
import { Invoice } from './invoice.entity.js';
import { invoiceView } from './invoice.rules.js';

/** One invoice of the caller's integrator (GET /v2/invoice/{id}), or a 404. */
export async function getInvoice(em: EntityManager, principal: Principal, invoiceId: string) {
  const invoice = await em.findOne(Invoice, { id: invoiceId, integratorId: principal.integratorId });
  if (!invoice) throw AppError.notFound('INVOICE_GET_ERROR', 'Invoice not found.');
  return invoiceView(invoice);
}
