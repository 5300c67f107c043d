/**
 * The operator console's pure rules: who may do what (the role × action × operator matrix
 * published in docs/security.md), when a login is locked out, when a session has gone idle, and
 * what a password and an email must be.
 */

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
