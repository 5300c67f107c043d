/**
 * An export's bytes: its records as CSV (RFC 4180 through csv-stringify: a header row, CRLF line
 * ends, quotes where a value needs them) or JSON lines, piped with back-pressure into where
 * they go (an HTTP response, the CLI's stdout): a batch is read from the cursor only once the
 * last one has been taken, so memory stays flat. A failure rejects, and the caller cuts the
 * destination off (the HTTP route destroys the connection) so a cut file never looks whole.
 */
import type { ServerResponse } from 'node:http';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { ExportStream } from './export.service.js';
import { type ExportRecord, jsonLine, spreadsheetSafe } from './report.rules.js';

/** The media type of a format. */
export function exportContentType(format: ExportStream['format']): string {
  return format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson';
}

function encoder(s: ExportStream): Transform {
  if (s.format === 'csv')
    return stringify({ header: true, columns: [...s.columns], record_delimiter: 'windows', cast: { string: spreadsheetSafe } });
  return new Transform({
    writableObjectMode: true,
    transform(record: ExportRecord, _encoding, done) {
      done(null, jsonLine(s.kind, record));
    },
  });
}

/**
 * Reads the first batch (before anything is written: a failure here leaves the destination
 * untouched and can still be answered with an envelope), then `begin()` (headers), then pipes
 * every record into `out`. `end: false` leaves `out` open (stdout).
 */
export async function pipeExport(s: ExportStream, out: Writable, opts: { begin?: () => void; end?: boolean } = {}): Promise<void> {
  const first = await s.batches.next();
  opts.begin?.();
  async function* records(): AsyncGenerator<ExportRecord> {
    if (first.done) return;
    yield* first.value;
    for await (const batch of s.batches) yield* batch;
  }
  try {
    await pipeline(Readable.from(records()), encoder(s), out, { end: opts.end ?? true });
  } finally {
    // Whatever happened downstream, the cursor's connection goes back to the pool.
    await s.batches.return(undefined);
  }
}

/**
 * An export as an HTTP download (the API's and the console's): `200` with its media type, an
 * attachment file name and no caching, sent once the first batch is read. A failure before
 * that rejects with nothing written (the caller answers it as it answers errors); one after
 * cuts the connection (`onCut` logs it), so the client sees a broken transfer, never a file
 * that looks complete.
 */
export async function sendExport(s: ExportStream, res: ServerResponse, onCut: (err: unknown) => void): Promise<void> {
  try {
    await pipeExport(s, res, {
      begin: () => {
        res.writeHead(200, {
          'content-type': exportContentType(s.format),
          'content-disposition': `attachment; filename="${s.fileName}"`,
          'cache-control': 'no-store',
        });
        res.flushHeaders();
      },
    });
  } catch (err) {
    if (!res.headersSent) throw err;
    onCut(err);
    res.destroy();
    res.socket?.destroy();
  }
}
