/**
 * The console's pages, rendered on the server as plain HTML: no script, no build step, no
 * third-party request. Every value is escaped by the `html` tag (a `Safe` value passes as it is:
 * markup this file made). Forms post back with the session's CSRF token; every control has a
 * label, tables have header cells, and one stylesheet makes the pages readable on a phone.
 */
import type { ConsoleUserRecord } from './console.repository.js';
import { type ConsoleAction, permits } from './console.rules.js';

/** Markup made here, not to be escaped again. */
export class Safe {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML (element content and quoted attributes). */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

type Part = Safe | string | number | boolean | null | undefined | Part[];

function render(part: Part): string {
  if (part instanceof Safe) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  if (part === null || part === undefined || part === false) return '';
  return escapeHtml(part);
}

/** The tag every page is written with: interpolated values are escaped, arrays joined. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Safe {
  let out = strings[0]!;
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1]!;
  });
  return new Safe(out);
}

/** What a signed-in page knows of its reader. */
export interface PageUser {
  user: ConsoleUserRecord;
  integratorName: string;
  csrfToken: string;
}

/** The navigation; a link with an `action` shows only to those the role matrix lets take it. */
const NAV: Array<{ href: string; label: string; action?: ConsoleAction }> = [
  { href: '/console', label: 'Accounts' },
  { href: '/console/payouts', label: 'Payouts queue' },
  { href: '/console/kyc', label: 'KYC reviews' },
  { href: '/console/disputes', label: 'Disputes' },
  { href: '/console/webhooks', label: 'Webhooks' },
  { href: '/console/audit', label: 'Audit trail' },
  { href: '/console/exports', label: 'Exports' },
  { href: '/console/users', label: 'People', action: 'console.user.add' },
  { href: '/console/security', label: 'Security' },
];

/** A whole page: the document, the header with the navigation and the sign-out form, and `main`. */
export function page(title: string, body: Safe, who?: PageUser, current?: string): string {
  const nav = who
    ? html`<nav aria-label="Console"><ul>${NAV.filter((n) => !n.action || permits(who.user, n.action)).map(
        (n) => html`<li><a href="${n.href}"${n.href === current ? new Safe(' aria-current="page"') : ''}>${n.label}</a></li>`,
      )}</ul>
      <form method="post" action="/console/logout" class="inline">${csrfField(who)}<button type="submit">Sign out</button></form>
      <p class="who">${who.user.email} · ${who.integratorName} · ${who.user.role}${who.user.operator ? ' · operator' : ''}</p></nav>`
    : '';
  return `<!doctype html>${
    html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Holdfast console</title>
<link rel="stylesheet" href="/console/console.css">
</head><body><a class="skip" href="#main">Skip to content</a>
<header><p class="brand">Holdfast console</p>${nav}</header>
<main id="main"><h1>${title}</h1>${body}</main></body></html>`.text
  }`;
}

export function csrfField(who: PageUser): Safe {
  return html`<input type="hidden" name="csrf" value="${who.csrfToken}">`;
}

/** A notice at the top of a page: what an action did, or why it was refused. */
export function notice(kind: 'ok' | 'error', text: string | undefined): Safe {
  if (!text) return html``;
  return kind === 'ok' ? html`<p class="notice ok" role="status">${text}</p>` : html`<p class="notice error" role="alert">${text}</p>`;
}

export function loginPage(opts: { error?: string; email?: string; totp?: boolean }): string {
  return page(
    'Sign in',
    html`${notice('error', opts.error)}
<form method="post" action="/console/login" class="stack">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
${opts.totp ? html`<label for="code">Authenticator code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}">` : ''}
<button type="submit">Sign in</button></form>`,
  );
}

export function setPasswordPage(opts: { email: string; error?: string }): string {
  return page(
    'Set your password',
    html`<p>For ${opts.email}. At least 12 characters.</p>${notice('error', opts.error)}
<form method="post" class="stack">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="12">
<label for="confirm">Repeat it</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required minlength="12">
<button type="submit">Set password</button></form>`,
  );
}

export function messagePage(title: string, text: string, who?: PageUser): string {
  return page(title, html`<p>${text}</p><p><a href="/console">Back to the console</a></p>`, who);
}

/** A two-column table of facts. */
export function facts(rows: Array<[string, Part]>): Safe {
  return html`<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

/** A table: a caption, column headings, and rows of cells (each escaped unless Safe). */
export function table(caption: string, headings: string[], rows: Part[][], empty = 'None.'): Safe {
  if (rows.length === 0) return html`<h2>${caption}</h2><p>${empty}</p>`;
  return html`<div class="scroll" role="region" aria-label="${caption}" tabindex="0"><table><caption>${caption}</caption>
<thead><tr>${headings.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)}</tbody></table></div>`;
}

/** A decision form with a required reason (the audit trail keeps it), shown only to who may take the action. */
export function decisionForm(who: PageUser, action: ConsoleAction, opts: { url: string; label: string; id: string; extra?: Safe }): Safe {
  if (!permits(who.user, action)) return html``;
  return html`<form method="post" action="${opts.url}" class="decision">${csrfField(who)}${opts.extra ?? ''}
<label for="reason-${opts.id}">Reason</label><input id="reason-${opts.id}" name="reason" required maxlength="500">
<button type="submit">${opts.label}</button></form>`;
}

/** Minor units as the API's `display_amount` reads (`USD 12.34`; token currencies have two decimals too). */
export function money(amount: number, currency: string): string {
  const sign = amount < 0 ? '-' : '';
  const abs = Math.abs(amount);
  return `${currency} ${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --line: #c9d1db; --accent: #0b5cad; --bad: #a11a1a; --good: #1d6b34; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: #fff; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; }
header { border-bottom: 1px solid var(--line); padding: .5rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; }
.brand { font-weight: 700; margin: 0; }
nav { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0; padding: 0; }
nav a[aria-current] { font-weight: 700; }
.who { margin: 0; color: var(--muted); font-size: .9rem; }
main { padding: 1rem; max-width: 72rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.stack { display: grid; gap: .5rem; max-width: 24rem; }
input, select, textarea, button { font: inherit; padding: .4rem .5rem; border: 1px solid var(--muted); border-radius: 4px; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; }
form.inline { display: inline; } form.inline button { background: #fff; color: var(--accent); }
.hint { margin: -.25rem 0 .25rem; color: var(--muted); font-size: .9rem; } .hint.error { color: var(--bad); }
.decision { display: flex; flex-wrap: wrap; gap: .25rem .5rem; align-items: center; margin: .25rem 0; }
.notice { padding: .5rem .75rem; border-radius: 4px; }
.notice.ok { background: #e5f4ea; color: var(--good); } .notice.error { background: #fbe9e9; color: var(--bad); }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
caption { text-align: left; font-weight: 700; font-size: 1.1rem; padding: .25rem 0; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; }
code { font-size: .9em; word-break: break-all; }
`;
