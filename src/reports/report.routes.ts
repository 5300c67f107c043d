import type { Router } from 'express';
import { principalOf, requireRequestScopes } from '../http/auth.js';
import { success } from '../envelope.js';
import { describeError } from '../runtime/describe-error.js';
import { openExport } from './export.service.js';
import { sendExport } from './export-stream.js';
import { EXPORT_SCOPES, type ExportKind, type ExportQuery } from './report.rules.js';
import { settlementReport } from './settlement.service.js';

/**
 * Reports API (`exportRows`, `getSettlementReport`). Requests arrive validated; the scope an
 * operation lists (`read_reports`) is checked before, and a kind's own (`EXPORT_SCOPES`) here. An export is the
 * one answer that is not the envelope: its errors before the first byte still are (thrown to
 * the error handler); a failure once rows went out destroys the connection, so the client sees
 * a cut transfer, never a file that looks complete.
 */
export function reportRoutes(router: Router): void {
  router.get('/v2/exports/:kind', async (req, res) => {
    const kind = String(req.params.kind) as ExportKind;
    const scopes = EXPORT_SCOPES[kind];
    if (scopes)
      requireRequestScopes(req, ['read_reports', ...scopes], ` (the ${kind} export needs ${scopes.join(' ')} besides read_reports)`);
    const stream = await openExport(req.em, principalOf(req), kind, req.query as ExportQuery);
    await sendExport(stream, res, (err) =>
      req.log?.error({ err: describeError(err), kind: stream.kind }, 'export failed mid-stream; connection cut'),
    );
  });
  router.get('/v2/reports/settlement', async (req, res) => {
    const report = await settlementReport(req.em, principalOf(req).integratorId, String((req.query as { date: string }).date));
    res.json(success(report));
  });
}
