/** The invoices module's command runner: a standard invoice's pay (and a token purchase's). */
import type { CommandRunners } from '../commands/command.registry.js';
import { runInvoiceCommand } from './invoice-phases.service.js';

export const invoiceCommands: CommandRunners = {
  'invoice.pay': runInvoiceCommand,
};
