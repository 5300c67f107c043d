/** The console's People page: an admin lists the integrator's console users and adds one. */
import type { ConsoleUserRecord } from './console.repository.js';
import { CONSOLE_ROLES } from './console.rules.js';
import { csrfField, facts, html, notice, page, type PageUser, table } from './console.pages.js';

/** A console user just added: its one-time set-password link, shown once on the answer to the form. */
export interface AddedUser {
  email: string;
  link: string;
  expires: Date;
}

function state(u: ConsoleUserRecord, now: Date): string {
  if (u.disabled) return 'disabled';
  if (u.lockedUntil && u.lockedUntil > now) return `locked until ${u.lockedUntil.toISOString()}`;
  return u.passwordHash ? 'active' : 'password not set yet';
}

export function usersPage(who: PageUser, users: ConsoleUserRecord[], opts: { added?: AddedUser; error?: string } = {}): string {
  const now = new Date();
  const added = opts.added
    ? html`<section aria-labelledby="added"><h2 id="added">Added ${opts.added.email}</h2>
<p>Send this link to them: it sets their password once, until ${opts.added.expires.toISOString()}. It is shown only now.</p>
${facts([['Set-password link', html`<code>${opts.added.link}</code>`]])}</section>`
    : html``;
  return page(
    'People',
    html`${notice('error', opts.error)}${added}
${table(
  'Console users',
  ['Email', 'Role', 'Operator', 'Second factor', 'State', 'Added'],
  users.map((u) => [u.email, u.role, u.operator ? 'yes' : 'no', u.totpSecret ? 'on' : 'off', state(u, now), u.createdAt.toISOString()]),
  'No console user.',
)}
<h2>Add a console user</h2>
<form method="post" action="/console/users" class="stack">${csrfField(who)}
<label for="user-email">Email</label><input id="user-email" name="email" type="email" required maxlength="254" autocomplete="off">
<label for="user-role">Role</label><select id="user-role" name="role">${CONSOLE_ROLES.map((r) => html`<option>${r}</option>`)}</select>
${
  who.user.operator
    ? html`<label><input type="checkbox" name="operator" value="yes"> With the operator’s rights (KYC and payout decisions)</label>`
    : html``
}
<label for="reason-user-add">Reason</label><input id="reason-user-add" name="reason" required maxlength="500">
<button type="submit">Add</button></form>`,
    who,
    '/console/users',
  );
}
