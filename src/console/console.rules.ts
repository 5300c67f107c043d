/**
 * The operator console's pure rules: who may do what (the role × action × operator matrix
 * published in docs/security.md), who may download which export and what the exports form
 * asks for, when a login is locked out, when a session has gone idle, and what a password and
 * an email must be.
 */
import { checkExport, EXPORT_KINDS, type ExportKind, type ExportQuery, utcDay } from '../reports/report.rules.js';

export const CONSOLE_ROLES = ['viewer', 'support', 'finance', 'admin'] as const;
export type ConsoleRole = (typeof CONSOLE_ROLES)[number];

/**
 * What a console user can do beyond reading. Each is also the audit action its decision is
 * recorded under.
 */
export const CONSOLE_ACTIONS = [
  'block.apply',
  'block.lift',
  'webhook.resend',
  'kyc.decide',
  'kyc.reopen',
  'refund.request',
  'payout.approve',
  'payout.reject',
  'dispute.evidence',
  'integrator.fund',
  'console.user.add',
] as const;
export type ConsoleAction = (typeof CONSOLE_ACTIONS)[number];

/** The roles each action is open to (admin: every action). */
const ROLES_OF: Record<ConsoleAction, readonly ConsoleRole[]> = {
  'block.apply': ['support', 'admin'],
  'block.lift': ['support', 'admin'],
  'webhook.resend': ['support', 'admin'],
  'kyc.decide': ['support', 'admin'],
  'kyc.reopen': ['support', 'admin'],
  'refund.request': ['finance', 'admin'],
  'payout.approve': ['finance', 'admin'],
  'payout.reject': ['finance', 'admin'],
  'dispute.evidence': ['finance', 'admin'],
  'integrator.fund': ['finance', 'admin'],
  'console.user.add': ['admin'],
};

/** The actions that are the operator's decisions: only a console user created with `--operator` makes them. */
const OPERATOR_ONLY: ReadonlySet<ConsoleAction> = new Set(['kyc.decide', 'kyc.reopen', 'payout.approve', 'payout.reject']);

/** Why a console user may not take an action, or null when it may. */
export function refusal(user: { role: ConsoleRole; operator: boolean }, action: ConsoleAction): 'role' | 'operator' | null {
  if (!ROLES_OF[action].includes(user.role)) return 'role';
  if (OPERATOR_ONLY.has(action) && !user.operator) return 'operator';
  return null;
}

/** Whether the console user may take `action`. */
export function permits(user: { role: ConsoleRole; operator: boolean }, action: ConsoleAction): boolean {
  return refusal(user, action) === null;
}

/** The whole matrix, for docs/security.md and its test: action → role → [non-operator, operator]. */
export function permissionMatrix(): Record<ConsoleAction, Record<ConsoleRole, [boolean, boolean]>> {
  const out = {} as Record<ConsoleAction, Record<ConsoleRole, [boolean, boolean]>>;
  for (const action of CONSOLE_ACTIONS) {
    out[action] = {} as Record<ConsoleRole, [boolean, boolean]>;
    for (const role of CONSOLE_ROLES)
      out[action][role] = [permits({ role, operator: false }, action), permits({ role, operator: true }, action)];
  }
  return out;
}

/**
 * Who may download each export kind from the exports page. Every role reads every page, the
 * audit trail's included, so every role downloads every kind, `audit` too: a download is the
 * same reading as a file. (The API asks `read_audit` of the audit export because a client's
 * token for finance's files need not read who decided what; a console user with any role
 * already does, on the audit page.)
 */
const EXPORT_ROLES: Readonly<Record<ExportKind, readonly ConsoleRole[]>> = {
  statement: CONSOLE_ROLES,
  invoices: CONSOLE_ROLES,
  refunds: CONSOLE_ROLES,
  payouts: CONSOLE_ROLES,
  disputes: CONSOLE_ROLES,
  events: CONSOLE_ROLES,
  audit: CONSOLE_ROLES,
};

/** Whether a console user of `role` may download the export `kind`. */
export function mayExport(role: ConsoleRole, kind: ExportKind): boolean {
  return EXPORT_ROLES[kind].includes(role);
}

/** The exports form as a browser sends it (`GET /console/exports?…`): text fields, an empty one meaning none. */
export interface ExportForm {
  kind?: string;
  format?: string;
  from?: string;
  to?: string;
  account_id?: string;
}

/** The longest account id the form takes (ids are far shorter). */
const ACCOUNT_ID_MAX = 64;

/** What a refused field needs, for people, by the export check's code. */
const FIELD_PROBLEMS: Record<string, string> = {
  REQUIRED: 'required for this kind of records',
  NOT_A_FILTER_OF_KIND: 'this kind of records takes none: leave it empty',
  BEFORE_FROM: 'a day on or after From',
  INVALID_VALUE: 'not a valid value',
};

/**
 * The exports form as an export's query, or what is wrong with each field. `from` and `to` are
 * UTC days (`YYYY-MM-DD`, what a date field sends), both included: the records from the start of
 * `from` to the end of `to`; either may be left empty (no bound). The account id is a filter of
 * the kinds that take one (required for a statement).
 */
export function exportFormQuery(
  form: ExportForm,
): { ok: true; kind: ExportKind; query: ExportQuery } | { ok: false; fields: Record<string, string> } {
  const given = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());
  const fields: Record<string, string> = {};
  const kind = given(form.kind);
  if (!kind || !(EXPORT_KINDS as readonly string[]).includes(kind)) fields.kind = `one of ${EXPORT_KINDS.join(', ')}`;
  const format = given(form.format) ?? 'csv';
  if (format !== 'csv' && format !== 'jsonl') fields.format = 'CSV or JSON lines';
  const day = (name: 'from' | 'to') => {
    const v = given(form[name]);
    if (v === undefined) return undefined;
    const range = utcDay(v);
    if (!range) fields[name] = 'a day as YYYY-MM-DD';
    return range;
  };
  const from = day('from');
  const to = day('to');
  const accountId = given(form.account_id);
  if (accountId !== undefined && accountId.length > ACCOUNT_ID_MAX) fields.account_id = 'not an account id';
  if (Object.keys(fields).length) return { ok: false, fields };
  const query: ExportQuery = { format, from: from?.from, to: to?.to, account_id: accountId };
  const checked = checkExport(kind as ExportKind, query);
  if (!checked.ok) {
    for (const [field, codes] of Object.entries(checked.fields)) fields[field] = FIELD_PROBLEMS[codes[0] ?? ''] ?? 'not a valid value';
    return { ok: false, fields };
  }
  return { ok: true, kind: kind as ExportKind, query };
}

/** Failed logins in a row that lock a console user out. */
export const LOCKOUT_AFTER = 5;
/** How long a lockout lasts. */
export const LOCKOUT_MS = 15 * 60_000;
/** A console session unused this long is over. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** However active, a console session ends after this long. */
export const SESSION_MAX_MS = 12 * 60 * 60_000;
/** How long a set-password link works. */
export const SETUP_LINK_MS = 24 * 60 * 60_000;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** What is wrong with a new password, or null. */
export function passwordProblem(password: string, email: string): string | null {
  if (password.length < PASSWORD_MIN) return `at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `at most ${PASSWORD_MAX} characters`;
  if (password.toLowerCase() === email.toLowerCase()) return 'not your email address';
  return null;
}

/** After a failed login: the new count, and until when the user is locked out (null: not locked). */
export function afterFailedLogin(failures: number, now: Date): { failures: number; lockedUntil: Date | null } {
  const next = failures + 1;
  return next >= LOCKOUT_AFTER ? { failures: 0, lockedUntil: new Date(now.getTime() + LOCKOUT_MS) } : { failures: next, lockedUntil: null };
}

/** Whether a session seen last at `lastSeen` and made at `created` is still alive at `now`. */
export function sessionAlive(created: Date, lastSeen: Date, now: Date): boolean {
  return now.getTime() - lastSeen.getTime() < SESSION_IDLE_MS && now.getTime() - created.getTime() < SESSION_MAX_MS;
}

/** A plausible email address (the console's user name): one @, something on each side, no spaces. */
export function validEmail(email: string): boolean {
  return email.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email);
}

/** A decision's reason as a form sends it: trimmed; required and at most 500 characters. */
export const REASON_MAX = 500;
export function reasonProblem(reason: string): string | null {
  if (!reason.trim()) return 'say why (required)';
  if (reason.length > REASON_MAX) return `at most ${REASON_MAX} characters`;
  return null;
}
