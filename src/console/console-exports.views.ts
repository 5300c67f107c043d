/**
 * The console's exports page (`/console/exports`): a GET form whose answer is the file itself,
 * streamed by the same export service as `GET /v2/exports/{kind}` — so it stands apart from the
 * pages that show records. A form with a problem comes back filled in, each field in error
 * marked and named at the top.
 */
import { EXPORT_KINDS, type ExportKind } from '../reports/report.rules.js';
import { html, notice, type PageUser, page, Safe } from './console.pages.js';
import { type ExportForm, mayExport } from './console.rules.js';

/** What each kind's file holds, for the form's list. */
const KIND_LABELS: Record<ExportKind, string> = {
  statement: "Statement: one account's wallet entries",
  invoices: 'Invoices: purchases, escrow and refund invoices',
  refunds: 'Refunds',
  payouts: 'Payouts',
  disputes: 'Disputes',
  events: 'Events of the last 30 days',
  audit: 'Audit trail: every recorded decision',
};

/** The fields' labels, also naming them in the list of problems. */
const LABELS = {
  kind: 'Records',
  from: 'From (first day, UTC)',
  to: 'To (last day, UTC, included)',
  account_id: 'Account id',
  format: 'Format',
} as const;

type Field = keyof typeof LABELS;

export function exportsPage(who: PageUser, form: ExportForm = {}, problems: Record<string, string> = {}): string {
  const kinds = EXPORT_KINDS.filter((k) => mayExport(who.user.role, k));
  const listed = Object.entries(problems).map(([f, why]) => `${LABELS[f as Field] ?? f}: ${why}.`);
  // A field in error says so (aria-invalid) and points at its problem.
  const marks = (f: Field) =>
    problems[f] ? new Safe(` aria-invalid="true" aria-describedby="x-${f}-problem"`) : new Safe(` aria-describedby="x-${f}-hint"`);
  const problem = (f: Field, hint: string) =>
    problems[f] ? html`<p class="hint error" id="x-${f}-problem">${problems[f]}</p>` : html`<p class="hint" id="x-${f}-hint">${hint}</p>`;
  const selected = (on: boolean) => (on ? new Safe(' selected') : '');
  const format = form.format === 'jsonl' ? 'jsonl' : 'csv';
  return page(
    'Exports',
    html`<p>Download the integrator's records as a file, oldest first, as the API's exports give them
(<code>GET /v2/exports/{kind}</code>): CSV for spreadsheets (amounts in minor units with an
<code>amount_display</code> column) or JSON lines. The file streams however many records there are.</p>
${notice('error', listed.length ? `The export was not made. ${listed.join(' ')}` : undefined)}
<form method="get" action="/console/exports" class="stack">
<label for="x-kind">${LABELS.kind}</label>
<select id="x-kind" name="kind"${marks('kind')}>${kinds.map(
      (k) => html`<option value="${k}"${selected(form.kind === k)}>${KIND_LABELS[k]}</option>`,
    )}</select>
${problem('kind', 'What the file lists.')}
<label for="x-from">${LABELS.from}</label>
<input id="x-from" name="from" type="date" value="${form.from ?? ''}"${marks('from')}>
${problem('from', 'Empty: from the first record.')}
<label for="x-to">${LABELS.to}</label>
<input id="x-to" name="to" type="date" value="${form.to ?? ''}"${marks('to')}>
${problem('to', 'Empty: up to now.')}
<label for="x-account_id">${LABELS.account_id}</label>
<input id="x-account_id" name="account_id" value="${form.account_id ?? ''}" maxlength="64"${marks('account_id')}>
${problem('account_id', 'Required for a statement; for invoices, refunds, payouts, disputes and events, only that account’s records. The audit trail takes none.')}
<label for="x-format">${LABELS.format}</label>
<select id="x-format" name="format"${marks('format')}><option value="csv"${selected(format === 'csv')}>CSV</option><option value="jsonl"${selected(format === 'jsonl')}>JSON lines</option></select>
${problem('format', 'CSV opens in a spreadsheet; JSON lines is one JSON object per line.')}
<button type="submit">Download</button></form>`,
    who,
    '/console/exports',
  );
}
