import type { Router } from 'express';
import { principalOf } from '../http/auth.js';
import { success } from '../envelope.js';
import { describeError } from '../runtime/describe-error.js';
import { openExport } from './export.service.js';
import { exportContentType, pipeExport } from './export-stream.js';
import type { ExportKind, ExportQuery } from './report.rules.js';
import { settlementReport } from './settlement.service.js';

/**
 * Reports API (`exportRows`, `getSettlementReport`). Requests arrive validated. An export is the
 * one answer that is not the envelope: its errors before the first byte still are (thrown to
 * the error handler); a failure once rows went out destroys the connection, so the client sees
 * a cut transfer, never a file that looks complete.
 */
export function reportRoutes(router: Router): void {
  router.get('/v2/exports/:kind', async (req, res) => {
    const stream = await openExport(req.em, principalOf(req), String(req.params.kind) as ExportKind, req.query as ExportQuery);
    try {
      await pipeExport(stream, res, {
        begin: () => {
          res.writeHead(200, {
            'content-type': exportContentType(stream.format),
            'content-disposition': `attachment; filename="${stream.fileName}"`,
            'cache-control': 'no-store',
          });
          res.flushHeaders();
        },
      });
    } catch (err) {
      if (!res.headersSent) throw err;
      req.log?.error({ err: describeError(err), kind: stream.kind }, 'export failed mid-stream; connection cut');
      res.destroy();
      req.socket.destroy();
    }
  });
  router.get('/v2/reports/settlement', async (req, res) => {
    const report = await settlementReport(req.em, principalOf(req).integratorId, String((req.query as { date: string }).date));
    res.json(success(report));
  });
}
