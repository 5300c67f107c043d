/** The invoices module's command runners: a standard invoice's pay (and a token purchase's), a purchase's refund. */
import type { CommandRunners } from '../commands/command.registry.js';
import { runInvoiceCommand } from './invoice-phases.service.js';
import { runRefundCommand } from './refund.service.js';

export const invoiceCommands: CommandRunners = {
  'invoice.pay': runInvoiceCommand,
  'invoice.refund': runRefundCommand,
};
