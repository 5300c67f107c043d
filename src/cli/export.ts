/**
 * `holdfast export KIND` and `holdfast report settlement`: what `GET /v2/exports/{kind}` and
 * `GET /v2/reports/settlement` give an integrator, for the operator's shell — an export streams
 * to stdout as the API streams it (redirect it to a file); the settlement report of one day, of
 * one integrator or of every integrator that moved money that day.
 */
import { stringify } from 'csv-stringify/sync';
import { AppError } from '../errors.js';
import { findIntegrator, listIntegrators } from '../integrators/integrator.service.js';
import { operatorPrincipal, openExport } from '../reports/export.service.js';
import { pipeExport } from '../reports/export-stream.js';
import { EXPORT_KINDS, type ExportKind, type ExportQuery, SETTLEMENT_COLUMNS, utcDay } from '../reports/report.rules.js';
import { settlementReports } from '../reports/settlement.service.js';
import { type Command, notFound, onlyArgument, Refused, table, UsageError, type Values, withOrm, stdout } from './cli-support.js';

/** The options every export filter has, as `--account-id`, … (the API's query names with dashes). */
const FILTER_OPTIONS = {
  'account-id': 'account_id',
  'invoice-id': 'invoice_id',
  states: 'states',
  'invoice-types': 'invoice_types',
  status: 'status',
  type: 'type',
  action: 'action',
  'target-id': 'target_id',
  actor: 'actor',
} as const;

function time(v: Values, name: 'from' | 'to'): string | undefined {
  const raw = v[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || Number.isNaN(Date.parse(raw)))
    throw new UsageError(`--${name} must be a time (ISO 8601, e.g. 2026-11-01T00:00:00Z)`);
  return raw;
}

async function runExport(v: Values, positionals: string[]): Promise<void> {
  const kind = onlyArgument(positionals, 'KIND');
  if (!(EXPORT_KINDS as readonly string[]).includes(kind)) throw new UsageError(`KIND must be one of ${EXPORT_KINDS.join(', ')}`);
  if (typeof v.integrator !== 'string') throw new UsageError('give --integrator NAME (whose records to export)');
  const format = v.format ?? 'csv';
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format must be csv or jsonl');
  const query: ExportQuery = { format, from: time(v, 'from'), to: time(v, 'to') };
  for (const [option, name] of Object.entries(FILTER_OPTIONS)) {
    if (typeof v[option] === 'string') query[name] = v[option] as string;
  }
  await withOrm({ read: 'export' }, async (orm) => {
    const em = orm.em.fork();
    const integrator = await findIntegrator(em, v.integrator as string);
    if (!integrator) throw notFound('integrator', v.integrator as string);
    const stream = await openExport(em, operatorPrincipal(integrator.id), kind as ExportKind, query).catch((err: unknown) => {
      if (err instanceof AppError && err.details.fields) {
        const named = Object.entries(err.details.fields).map(([field, codes]) => `${field}: ${codes.join(', ')}`);
        throw new Refused(`${err.message} (${named.join('; ')})`);
      }
      throw err;
    });
    let started = false;
    try {
      await pipeExport(stream, stdout(), { end: false, begin: () => (started = true) });
    } catch (err) {
      if (!started) throw err;
      throw new Refused('the export failed after rows were written: the output is incomplete, export again');
    }
  });
}

async function runSettlement(v: Values): Promise<void> {
  if (typeof v.date !== 'string' || !utcDay(v.date)) throw new UsageError('give --date YYYY-MM-DD (a UTC day)');
  const date = v.date;
  await withOrm({ read: 'report settlement' }, async (orm) => {
    const em = orm.em.fork();
    let integratorId: string | null = null;
    if (typeof v.integrator === 'string') {
      const found = await findIntegrator(em, v.integrator);
      if (!found) throw notFound('integrator', v.integrator);
      integratorId = found.id;
    }
    const reports = await settlementReports(em, date, integratorId);
    const names = new Map((await listIntegrators(em)).map((i) => [i.id, i.name]));
    const rows = reports.flatMap((r) =>
      r.lines.map((l) => ({ integrator: names.get(r.integrator_id) ?? r.integrator_id, date, ...l, postings: l.postings ?? '' })),
    );
    if (v.csv === true) {
      stdout().write(stringify(rows, { header: true, columns: [...SETTLEMENT_COLUMNS], record_delimiter: 'windows' }));
      return;
    }
    if (v.json === true) {
      stdout().write(`${JSON.stringify(reports.map((r) => ({ ...r, integrator: names.get(r.integrator_id) ?? r.integrator_id })))}\n`);
      return;
    }
    if (rows.length === 0) {
      stdout().write(`no postings on ${date} (UTC)\n`);
      return;
    }
    stdout().write(
      `${table(
        ['INTEGRATOR', 'CURRENCY', 'LINE', 'AMOUNT', 'POSTINGS'],
        rows.map((r) => [r.integrator, r.currency, r.line, r.amount_display, String(r.postings)]),
      )}\n`,
    );
  });
}

export const exportCommands: Record<string, Command> = {
  export: {
    summary: "stream an integrator's records as CSV or JSON lines to stdout",
    usage: `holdfast export KIND --integrator NAME [--account-id ID] [--from TIME] [--to TIME]
                [--format csv|jsonl] [--invoice-id ID] [--states LIST] [--invoice-types LIST]
                [--status STATUS] [--type EVENT] [--action ACTION] [--target-id ID]
                [--actor NAME] > file.csv

Writes the integrator's records of KIND (statement, invoices, refunds, payouts, disputes,
events, audit) to stdout, oldest first, as GET /v2/exports/{kind} does:
CSV (RFC 4180, a header row, amounts in minor units with an amount_display column) or JSON
lines. The rows stream from the database, so any number of them takes little memory.
  --integrator NAME     whose records (a name or id)
  --account-id ID       one account's rows (required for statement)
  --from, --to TIME     created at or after --from, before --to (ISO 8601, UTC)
  --format F            csv (default) or jsonl
  --invoice-id ID       refunds of this purchase; disputes of this invoice
  --states LIST         invoices, refunds: comma-separated states (SUCCESS,FAILED)
  --invoice-types LIST  invoices: comma-separated invoice types
  --status STATUS       payouts, disputes: one status
  --type EVENT          events: one event type
  --action ACTION       audit: one action (payout.approve, kyc.decide, …)
  --target-id ID        audit: records about this object
  --actor NAME          audit: one actor, by its id or name
A filter the kind does not take is refused (exit 1). A failure once rows were written says so
on stderr and exits 1: the output is incomplete.`,
    options: {
      integrator: { type: 'string' },
      'account-id': { type: 'string' },
      'invoice-id': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      format: { type: 'string' },
      states: { type: 'string' },
      'invoice-types': { type: 'string' },
      status: { type: 'string' },
      type: { type: 'string' },
      action: { type: 'string' },
      'target-id': { type: 'string' },
      actor: { type: 'string' },
    },
    positionals: 1,
    run: runExport,
  },
  'report settlement': {
    summary: "one UTC day's settlement per integrator and currency, from the ledger",
    usage: `holdfast report settlement --date YYYY-MM-DD [--integrator NAME] [--csv | --json]

Prints the day's settlement (UTC) of the integrator named, or of every integrator with postings
that day: per currency, gross charges, refunds, disputes opened, won and lost, dispute fees,
payouts sent and returned, conversions and the net, each the sum of the ledger postings it
names (docs/operations.md, "Reports for finance"), with how many postings it sums.
  --date DAY           the UTC day
  --integrator NAME    one integrator (a name or id)
  --csv                CSV: integrator,date,currency,line,amount,amount_display,postings
  --json               the reports as GET /v2/reports/settlement answers them, one array`,
    options: { date: { type: 'string' }, integrator: { type: 'string' }, csv: { type: 'boolean' }, json: { type: 'boolean' } },
    run: (v) => runSettlement(v),
  },
};
