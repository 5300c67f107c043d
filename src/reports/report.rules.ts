/**
 * Reports and exports (pure): the export kinds with the filters each takes and the columns each
 * row has, the checks of an export's query, amounts as digits for people (`12.34`), and the
 * daily settlement report's lines — each the sum of named ledger postings on named accounts —
 * with the net they add up to.
 */
import { DISPUTE_STATUSES } from '../disputes/dispute.rules.js';
import type { FieldErrors } from '../errors.js';
import { addFieldError, fieldErrors } from '../errors.js';
import { currencyDecimals } from '../invoices/invoice.rules.js';
import { PAYOUT_STATUSES } from '../payouts/payout.rules.js';

export const EXPORT_KINDS = ['statement', 'invoices', 'refunds', 'payouts', 'disputes', 'events', 'audit'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export type ExportFormat = 'csv' | 'jsonl';

/** The filters each kind takes besides `from`, `to` and `format` (as its list endpoint filters). */
export const EXPORT_FILTERS: Readonly<Record<ExportKind, readonly string[]>> = {
  statement: ['account_id'],
  invoices: ['account_id', 'states', 'invoice_types'],
  refunds: ['account_id', 'invoice_id', 'states'],
  payouts: ['account_id', 'status'],
  disputes: ['account_id', 'invoice_id', 'status', 'flag'],
  events: ['account_id', 'type'],
  audit: ['action', 'target_id', 'actor'],
};

/**
 * The scopes a kind needs besides the operation's `read_reports`: the audit trail is read with
 * `read_audit` (as `GET /v2/audit`), so a token for finance's files does not also read who
 * decided what.
 */
export const EXPORT_SCOPES: Readonly<Partial<Record<ExportKind, readonly string[]>>> = { audit: ['read_audit'] };

/** Every filter name any kind takes. */
export const ALL_EXPORT_FILTERS = [...new Set(Object.values(EXPORT_FILTERS).flat())];

/** The query of an export as it arrives (validated by the OpenAPI document for its types). */
export interface ExportQuery {
  format?: string;
  from?: string;
  to?: string;
  account_id?: string;
  invoice_id?: string;
  states?: string;
  invoice_types?: string;
  status?: string;
  flag?: string;
  type?: string;
  action?: string;
  target_id?: string;
  actor?: string;
}

/** An export's query, checked: the filters of its kind only, a range that runs forward, what a kind requires. */
export interface ExportRequest {
  kind: ExportKind;
  format: ExportFormat;
  from: string | null;
  to: string | null;
  accountId?: string;
  invoiceId?: string;
  states?: string[];
  invoiceTypes?: string[];
  status?: string;
  flag?: string;
  type?: string;
  action?: string;
  targetId?: string;
  actor?: string;
}

/**
 * The export asked for, or the fields in error: a filter of another kind (`NOT_A_FILTER_OF_KIND`),
 * `to` not after `from` (`BEFORE_FROM`), a statement without `account_id` (`REQUIRED`), a status
 * the kind does not have (`INVALID_VALUE`).
 */
export function checkExport(kind: ExportKind, q: ExportQuery): { ok: true; request: ExportRequest } | { ok: false; fields: FieldErrors } {
  const fields = fieldErrors();
  const allowed = EXPORT_FILTERS[kind];
  for (const name of ALL_EXPORT_FILTERS) {
    if (q[name as keyof ExportQuery] !== undefined && !allowed.includes(name)) addFieldError(fields, name, 'NOT_A_FILTER_OF_KIND');
  }
  if (kind === 'statement' && q.account_id === undefined) addFieldError(fields, 'account_id', 'REQUIRED');
  // A time the format allows but no clock has (a leap second `…:60`, the year 0) is no time.
  for (const name of ['from', 'to'] as const) {
    const at = q[name] === undefined ? undefined : new Date(q[name] as string);
    if (at && (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999))
      addFieldError(fields, name, 'INVALID_VALUE');
  }
  if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) <= Date.parse(q.from)) addFieldError(fields, 'to', 'BEFORE_FROM');
  if (q.status !== undefined && allowed.includes('status')) {
    const statuses: readonly string[] = kind === 'payouts' ? PAYOUT_STATUSES : DISPUTE_STATUSES;
    if (!statuses.includes(q.status)) addFieldError(fields, 'status', 'INVALID_VALUE');
  }
  if (Object.keys(fields).length > 0) return { ok: false, fields };
  const list = (v: string | undefined) => (v === undefined ? undefined : v.split(','));
  return {
    ok: true,
    request: {
      kind,
      format: q.format === 'jsonl' ? 'jsonl' : 'csv',
      from: q.from === undefined ? null : new Date(q.from).toISOString(),
      to: q.to === undefined ? null : new Date(q.to).toISOString(),
      accountId: q.account_id,
      invoiceId: q.invoice_id,
      states: list(q.states),
      invoiceTypes: list(q.invoice_types),
      status: q.status,
      flag: q.flag,
      type: q.type,
      action: q.action,
      targetId: q.target_id,
      actor: q.actor,
    },
  };
}

/** An amount in minor units as its digits in the currency's units: `1234` USD → `12.34`, `-5` → `-0.05`, 100 tokens → `100`. */
export function amountDisplay(amount: number, currency: string): string {
  const decimals = currencyDecimals(currency);
  const sign = amount < 0 ? '-' : '';
  const digits = String(Math.abs(amount));
  if (decimals === 0) return `${sign}${digits}`;
  const padded = digits.padStart(decimals + 1, '0');
  return `${sign}${padded.slice(0, -decimals)}.${padded.slice(-decimals)}`;
}

/** The columns of each kind's rows, in order: the CSV header and the keys of each JSON line. */
export const EXPORT_COLUMNS: Readonly<Record<ExportKind, readonly string[]>> = {
  statement: [
    'entry_id',
    'posted_at',
    'account_id',
    'wallet_id',
    'wallet_type',
    'currency',
    'amount',
    'amount_display',
    'balance_after',
    'balance_after_display',
    'reference',
    'description',
  ],
  invoices: [
    'invoice_id',
    'created_at',
    'updated_at',
    'account_id',
    'invoice_type',
    'state',
    'currency',
    'amount',
    'amount_display',
    'escrow_id',
    'refunded_invoice_id',
    'reference_type',
    'reference_id',
    'description',
    'failure_reason',
  ],
  refunds: [
    'refund_invoice_id',
    'created_at',
    'updated_at',
    'account_id',
    'refunded_invoice_id',
    'invoice_type',
    'state',
    'currency',
    'amount',
    'amount_display',
    'failure_reason',
  ],
  payouts: [
    'payout_id',
    'created_at',
    'updated_at',
    'account_id',
    'status',
    'currency',
    'amount',
    'amount_display',
    'destination_payment_method_id',
    'token_exchange_id',
    'attempt',
    'failure_code',
    'failure_reason',
  ],
  disputes: [
    'dispute_id',
    'created_at',
    'closed_at',
    'account_id',
    'invoice_id',
    'payment_method_id',
    'status',
    'reason',
    'funds',
    'currency',
    'amount',
    'amount_display',
    'reported_amount',
    'fee',
    'fee_display',
    'provider',
    'flags',
  ],
  events: ['event_id', 'created_at', 'type', 'account_id', 'payload'],
  audit: [
    'audit_id',
    'at',
    'actor_kind',
    'actor_id',
    'actor_name',
    'action',
    'target_type',
    'target_id',
    'reason',
    'request_id',
    'seq',
    'before',
    'after',
  ],
};

/** One exported row: each column's value (numbers for amounts, text for the rest, null for none). */
export type ExportRecord = Record<string, string | number | null>;

type Raw = Record<string, unknown>;

const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const time = (v: unknown): string | null => (v === null || v === undefined ? null : new Date(v as string).toISOString());
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A row of a kind's query (the owners' export fragments) as the export's record. */
export function exportRecord(kind: ExportKind, r: Raw, extra: { accountId?: string; walletType?: string } = {}): ExportRecord {
  const currency = String(r.currency ?? '');
  const amount = num(r.amount);
  const shown = (v: number | null) => (v === null ? null : amountDisplay(v, currency));
  switch (kind) {
    case 'statement': {
      const after = num(r.balance_after);
      return {
        entry_id: text(r.entry_id),
        posted_at: time(r.posted_at),
        account_id: extra.accountId ?? null,
        wallet_id: text(r.wallet_id),
        wallet_type: extra.walletType ?? null,
        currency,
        amount,
        amount_display: shown(amount),
        balance_after: after,
        balance_after_display: shown(after),
        reference: text(r.reference),
        description: text(r.description),
      };
    }
    case 'invoices':
      return {
        invoice_id: text(r.invoice_id),
        created_at: time(r.created_at),
        updated_at: time(r.updated_at),
        account_id: text(r.account_id),
        invoice_type: text(r.invoice_type),
        state: text(r.state),
        currency,
        amount,
        amount_display: shown(amount),
        escrow_id: text(r.escrow_id),
        refunded_invoice_id: text(r.refunded_invoice_id),
        reference_type: text(r.reference_type),
        reference_id: text(r.reference_id),
        description: text(r.description),
        failure_reason: text(r.failure_reason),
      };
    case 'refunds':
      return {
        refund_invoice_id: text(r.invoice_id),
        created_at: time(r.created_at),
        updated_at: time(r.updated_at),
        account_id: text(r.account_id),
        refunded_invoice_id: text(r.refunded_invoice_id),
        invoice_type: text(r.invoice_type),
        state: text(r.state),
        currency,
        amount,
        amount_display: shown(amount),
        failure_reason: text(r.failure_reason),
      };
    case 'payouts':
      return {
        payout_id: text(r.payout_id),
        created_at: time(r.created_at),
        updated_at: time(r.updated_at),
        account_id: text(r.account_id),
        status: text(r.status),
        currency,
        amount,
        amount_display: shown(amount),
        destination_payment_method_id: text(r.destination_payment_method_id),
        token_exchange_id: text(r.token_exchange_id),
        attempt: num(r.attempt),
        failure_code: text(r.failure_code),
        failure_reason: text(r.failure_reason),
      };
    case 'disputes': {
      const fee = num(r.fee);
      return {
        dispute_id: text(r.dispute_id),
        created_at: time(r.created_at),
        closed_at: time(r.closed_at),
        account_id: text(r.account_id),
        invoice_id: text(r.invoice_id),
        payment_method_id: text(r.payment_method_id),
        status: text(r.status),
        reason: text(r.reason),
        funds: text(r.funds),
        currency,
        amount,
        amount_display: shown(amount),
        reported_amount: num(r.reported_amount),
        fee,
        fee_display: shown(fee),
        provider: text(r.provider),
        // What an operator should look at (CAPPED, NOT_A_PAID_CHARGE, SECOND_PROVIDER_DISPUTE), space-separated.
        flags: Array.isArray(r.flags) ? (r.flags as string[]).join(' ') : '',
      };
    }
    case 'events':
      return {
        event_id: text(r.event_id),
        created_at: time(r.created_at),
        type: text(r.type),
        account_id: text(r.account_id),
        payload: JSON.stringify(r.message ?? null),
      };
    case 'audit':
      return {
        audit_id: text(r.audit_id),
        at: text(r.at),
        actor_kind: text(r.actor_kind),
        actor_id: text(r.actor_id),
        actor_name: text(r.actor_name),
        action: text(r.action),
        target_type: text(r.target_type),
        target_id: text(r.target_id),
        reason: text(r.reason),
        request_id: text(r.request_id),
        // Null until the sealing worker numbers the record (a few seconds after it commits).
        seq: num(r.seq),
        // The states the action moved between, as JSON text (empty when the action has none).
        before: r.before === null || r.before === undefined ? null : JSON.stringify(r.before),
        after: r.after === null || r.after === undefined ? null : JSON.stringify(r.after),
      };
  }
}

/** The columns that hold JSON text in CSV and the value it is in JSON lines. */
const JSON_COLUMNS: Readonly<Partial<Record<ExportKind, readonly string[]>>> = { events: ['payload'], audit: ['before', 'after'] };

/** A JSON line of an export: the record, with an event's payload and an audit record's before and after as the values they are rather than their text. */
export function jsonLine(kind: ExportKind, record: ExportRecord): string {
  const columns = JSON_COLUMNS[kind] ?? [];
  if (!columns.length) return `${JSON.stringify(record)}\n`;
  const line: Record<string, unknown> = { ...record };
  for (const c of columns) if (typeof record[c] === 'string') line[c] = JSON.parse(record[c] as string);
  return `${JSON.stringify(line)}\n`;
}

/** The file name an export suggests (`Content-Disposition`). */
export function exportFileName(kind: ExportKind, format: ExportFormat, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `holdfast-${kind}-${stamp}.${format === 'csv' ? 'csv' : 'jsonl'}`;
}

// ---------------------------------------------------------------------------------------------
// The daily settlement report.

/** The ledger account kinds that face the outside: cards and pay-on-behalf-of platforms. */
const CLEARING = ['card_clearing', 'pobo_clearing'] as const;

/** One part of a settlement line: the entries of postings `reference` (`<id>` any id) on accounts of `kinds`, counted with `sign`. */
export interface SettlementPart {
  reference: string;
  kinds: readonly string[];
  sign: 1 | -1;
  /** By the entries' size, not their sign (conversions: USD into a wallet, tokens out of one). */
  magnitude?: boolean;
}

export const SETTLEMENT_LINES = [
  'gross_charges',
  'refunds',
  'disputes_opened',
  'disputes_won',
  'disputes_lost',
  'dispute_fees',
  'payouts_sent',
  'payouts_returned',
  'conversions',
  'net',
] as const;
export type SettlementLine = (typeof SETTLEMENT_LINES)[number];

/**
 * What each line sums (entries are signed + credit, − debit). The net is not a sum of postings
 * of its own but of the lines: what came in from outside less what went back out that day.
 */
export const SETTLEMENT_PARTS: Readonly<Record<Exclude<SettlementLine, 'net'>, readonly SettlementPart[]>> = {
  // Cards and POBO platforms charged by purchases (their clearing accounts debited).
  gross_charges: [
    { reference: 'invoice:<id>:pay', kinds: CLEARING, sign: -1 },
    { reference: 'escrow:<id>:pay', kinds: CLEARING, sign: -1 },
  ],
  // Given back to cards and POBO platforms: refunds, escrow cancels, less card refunds reversed.
  refunds: [
    { reference: 'invoice:<id>:refund', kinds: CLEARING, sign: 1 },
    { reference: 'escrow:<id>:cancel', kinds: CLEARING, sign: 1 },
    { reference: 'refund:<id>:<id>:reversed', kinds: CLEARING, sign: 1 },
  ],
  disputes_opened: [{ reference: 'dispute:<id>:open', kinds: ['dispute_holding'], sign: 1 }],
  disputes_won: [{ reference: 'dispute:<id>:won', kinds: ['dispute_holding'], sign: -1 }],
  disputes_lost: [{ reference: 'dispute:<id>:lost', kinds: ['dispute_losses'], sign: 1 }],
  dispute_fees: [{ reference: 'dispute:<id>:open', kinds: ['dispute_fees'], sign: 1 }],
  payouts_sent: [{ reference: 'payout:<id>:execute', kinds: ['payout_clearing'], sign: 1 }],
  payouts_returned: [{ reference: 'payout:<id>:return', kinds: ['payout_holding'], sign: -1 }],
  conversions: [
    { reference: 'exchange:<id>:execute', kinds: ['user_wallet'], sign: 1, magnitude: true },
    { reference: 'exchange:<id>:reverse', kinds: ['user_wallet'], sign: -1, magnitude: true },
  ],
};

/** How each line counts in the net: money in from outside (+), money back out (−); the others move nothing across. */
export const NET_SIGNS: Readonly<Partial<Record<SettlementLine, 1 | -1>>> = {
  gross_charges: 1,
  refunds: -1,
  disputes_opened: -1,
  dispute_fees: -1,
  disputes_won: 1,
  payouts_sent: -1,
};

/** The parts as the ledger's posting sums take them: a `like` pattern and the number of the reference's parts. */
export function postingSumSpecs() {
  return Object.entries(SETTLEMENT_PARTS).flatMap(([line, parts]) =>
    parts.map((p) => ({
      line,
      referencePattern: p.reference.replace(/<id>/g, '%'),
      parts: p.reference.split(':').length,
      kinds: p.kinds,
      sign: p.sign,
      magnitude: p.magnitude === true,
    })),
  );
}

/** A line of the settlement report. */
export interface SettlementRow {
  currency: string;
  line: SettlementLine;
  amount: number;
  amount_display: string;
  /** How many postings the line sums; null for `net`, which adds up lines (an opening posting is in two of them). */
  postings: number | null;
}

/**
 * One integrator's report: per currency with any posting that day, every line (zero where
 * nothing moved) and the net, from the sums per (currency, line).
 */
export function settlementRows(sums: ReadonlyArray<{ currency: string; line: string; amount: number; postings: number }>): SettlementRow[] {
  const currencies = [...new Set(sums.map((s) => s.currency))].sort();
  return currencies.flatMap((currency) => {
    const of = (line: SettlementLine) => sums.find((s) => s.currency === currency && s.line === line);
    let net = 0;
    const rows: SettlementRow[] = [];
    for (const line of SETTLEMENT_LINES) {
      if (line === 'net') continue;
      const amount = of(line)?.amount ?? 0;
      const postings = of(line)?.postings ?? 0;
      const sign = NET_SIGNS[line];
      if (sign) net += sign * amount;
      rows.push({ currency, line, amount, amount_display: amountDisplay(amount, currency), postings });
    }
    rows.push({ currency, line: 'net', amount: net, amount_display: amountDisplay(net, currency), postings: null });
    return rows;
  });
}

/** The UTC day `YYYY-MM-DD` as the range [its midnight, the next midnight), or undefined for no such day. */
export function utcDay(date: string): { from: string; to: string } | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const start = new Date(`${date}T00:00:00.000Z`);
  if (Number.isNaN(start.getTime()) || start.toISOString().slice(0, 10) !== date || start.getUTCFullYear() < 1) return undefined;
  return { from: start.toISOString(), to: new Date(start.getTime() + 24 * 3_600_000).toISOString() };
}

/** The columns of the settlement report as CSV (the CLI's `--csv`). */
export const SETTLEMENT_COLUMNS = ['integrator', 'date', 'currency', 'line', 'amount', 'amount_display', 'postings'] as const;

/**
 * A CSV text cell a spreadsheet will not run as a formula: one that starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return (CWE-1236) gets a leading `'`, unless it is a plain number
 * (`-12.34` stays a number). Free text in an export (descriptions, failure reasons, notes) is
 * whatever a caller sent; finance opens these files in spreadsheets.
 */
export function spreadsheetSafe(value: string): string {
  if (!/^[=+\-@\t\r]/.test(value) || /^[+-]?\d+(\.\d+)?$/.test(value)) return value;
  return `'${value}`;
}
