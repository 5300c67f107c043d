/**
 * Exports (`GET /v2/exports/{kind}`, `holdfast export`, the console's exports page): an
 * integrator's statement, invoices, refunds, payouts, disputes, events or audit records as rows that stream from a PostgreSQL cursor, a batch at
 * a time, so memory holds one batch however many rows there are. Each kind's rows are read
 * through the export fragment its owning module's repository exports; this module only checks
 * the request, runs the fragment on a cursor and shapes the rows (`report.rules.ts`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { requireAccount } from '../accounts/account-access.service.js';
import { auditExportSql } from '../audit/audit.repository.js';
import { cursorRows } from '../db/sql.js';
import { disputeExportSql } from '../disputes/dispute.repository.js';
import { AppError } from '../errors.js';
import type { Principal } from '../integrators/principal.js';
import { invoiceExportSql } from '../invoices/invoice.repository.js';
import { statementExportSql } from '../ledger/ledger.repository.js';
import { accountWallets } from '../payment-methods/payment-method.service.js';
import { payoutExportSql } from '../payouts/payout.repository.js';
import { refundExportSql } from '../refunds/refund.repository.js';
import { failpointThrow } from '../runtime/failpoints.js';
import { eventExportSql } from '../webhooks/outbox.repository.js';
import { eventListSince } from '../webhooks/webhook.rules.js';
import {
  checkExport,
  EXPORT_COLUMNS,
  type ExportFormat,
  type ExportKind,
  type ExportQuery,
  type ExportRecord,
  exportFileName,
  exportRecord,
} from './report.rules.js';

/** Rows fetched from the cursor at a time: what an export holds in memory. */
export const EXPORT_BATCH_ROWS = 500;

/** An export ready to stream: its columns and the batches of its records, read as they are asked for. */
export interface ExportStream {
  kind: ExportKind;
  format: ExportFormat;
  columns: readonly string[];
  fileName: string;
  batches: AsyncGenerator<ExportRecord[]>;
}

/**
 * Checks an export's request (400 naming the field; the account of `account_id` must be the
 * caller's, else 404) and opens its rows. Who may export which kind is the caller's to check
 * first (the API's scopes: `audit` needs `read_audit` too; the console's roles). Nothing is read until the first batch is asked for:
 * the route asks for it before the first byte goes out, so a failure there is still an
 * envelope.
 */
export async function openExport(
  em: EntityManager,
  principal: Principal,
  kind: ExportKind,
  query: ExportQuery,
  opts: { batchRows?: number; now?: Date } = {},
): Promise<ExportStream> {
  const checked = checkExport(kind, query);
  if (!checked.ok) throw AppError.invalid(checked.fields, 'The export request is invalid.');
  const r = checked.request;
  const exportKind = r.kind;
  if (r.accountId !== undefined) await requireAccount(em, principal, r.accountId);
  const integratorId = principal.integratorId;
  const range = { from: r.from, to: r.to };
  let statement: { sql: string; params: unknown[] };
  let extra: (row: Record<string, unknown>) => { accountId?: string; walletType?: string } = () => ({});
  switch (exportKind) {
    case 'statement': {
      const wallets = await accountWallets(em, r.accountId as string);
      const types = new Map(wallets.map((w) => [w.walletId, w.walletType]));
      statement = statementExportSql(
        wallets.map((w) => w.walletId),
        r.from,
        r.to,
      );
      extra = (row) => ({ accountId: r.accountId, walletType: types.get(row.wallet_id as string) });
      break;
    }
    case 'invoices':
      statement = invoiceExportSql(integratorId, { accountId: r.accountId, states: r.states, invoiceTypes: r.invoiceTypes, ...range });
      break;
    case 'refunds':
      statement = refundExportSql(integratorId, { accountId: r.accountId, invoiceId: r.invoiceId, states: r.states, ...range });
      break;
    case 'payouts':
      statement = payoutExportSql(integratorId, { accountId: r.accountId, status: r.status, ...range });
      break;
    case 'disputes':
      statement = disputeExportSql(integratorId, {
        accountId: r.accountId,
        invoiceId: r.invoiceId,
        status: r.status as never,
        flag: r.flag as never,
        ...range,
      });
      break;
    case 'events':
      statement = eventExportSql(integratorId, {
        since: eventListSince(opts.now ?? new Date()),
        type: r.type,
        accountId: r.accountId,
        createdAfter: r.from === null ? undefined : new Date(r.from),
        createdBefore: r.to === null ? undefined : new Date(r.to),
      });
      break;
    case 'audit':
      statement = auditExportSql(integratorId, {
        action: r.action,
        targetId: r.targetId,
        actor: r.actor,
        from: r.from === null ? undefined : new Date(r.from),
        to: r.to === null ? undefined : new Date(r.to),
      });
      break;
  }
  const batchRows = opts.batchRows ?? EXPORT_BATCH_ROWS;
  async function* batches(): AsyncGenerator<ExportRecord[]> {
    for await (const rows of cursorRows<Record<string, unknown>>(em, statement.sql, statement.params, batchRows)) {
      yield rows.map((row) => exportRecord(exportKind, row, extra(row)));
      failpointThrow('export.after-first-batch');
    }
  }
  return {
    kind: exportKind,
    format: r.format,
    columns: EXPORT_COLUMNS[exportKind],
    fileName: exportFileName(exportKind, r.format, opts.now ?? new Date()),
    batches: batches(),
  };
}

/** The principal an operator's `holdfast export` acts as: the integrator named, nothing more. */
export function operatorPrincipal(integratorId: string): Principal {
  return { clientId: 'holdfast-cli', integratorId, scopes: [], isOperator: true, canUnblock: false };
}
