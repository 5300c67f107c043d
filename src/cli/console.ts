/** `holdfast console user add`: a person of an integrator for the operator console, with a one-time set-password link. */
import { addConsoleUser } from '../console/console-auth.service.js';
import { CONSOLE_ROLES, type ConsoleRole, validEmail } from '../console/console.rules.js';
import { AppError } from '../errors.js';
import {
  type Command,
  UsageError,
  notFound,
  onlyArgument,
  print,
  withOrm,
  cliConfig,
  auditOptions,
  auditUsage,
  cliAuditContext,
} from './cli-support.js';

export const consoleCommands: Record<string, Command> = {
  'console user add': {
    summary: 'add a console user and print a one-time set-password link',
    usage: `holdfast console user add EMAIL --integrator NAME --role viewer|support|finance|admin [--operator]
                          [--reason TEXT] [--actor NAME] [--json]

Adds a person who signs in to the operator console (/console) for integrator NAME (a name or
id) with a role: viewer reads; support blocks, resends webhooks and reviews KYC; finance
refunds, decides payouts, answers disputes and funds (staging); admin does all of it and adds
users. Like a client, a console user acts as the integrator; with --operator it has the
operator's rights (KYC decisions, payout approval; blocks it applies are the operator's).
Prints a link that sets the password; it works once, for 24 hours (PUBLIC_URL is its base).
The addition is recorded in the audit trail (console.user.add).
${auditUsage(false)}
  --json   print {"console_user_id","email","integrator","role","operator","set_password_url","expires"}`,
    options: {
      integrator: { type: 'string' },
      role: { type: 'string' },
      operator: { type: 'boolean' },
      ...auditOptions,
      json: { type: 'boolean' },
    },
    positionals: 1,
    async run(v, positionals) {
      const email = onlyArgument(positionals, 'EMAIL').trim();
      if (!validEmail(email)) throw new UsageError(`"${email}" is not an email address`);
      const integrator = typeof v.integrator === 'string' ? v.integrator.trim() : '';
      if (!integrator) throw new UsageError('--integrator NAME is required');
      const role = typeof v.role === 'string' ? v.role : '';
      if (!(CONSOLE_ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${CONSOLE_ROLES.join(', ')}`);
      const audit = cliAuditContext(v, false);
      const made = await withOrm({ read: 'console user add' }, (orm) =>
        addConsoleUser(
          orm.em.fork(),
          { email, integrator, role: role as ConsoleRole, operator: v.operator === true, publicUrl: cliConfig().publicUrl },
          audit,
        ),
      ).catch((err: unknown) => {
        if (err instanceof AppError && err.kind === 'not_found') throw notFound('integrator', integrator);
        throw err;
      });
      print(
        v.json === true,
        {
          console_user_id: made.user.id,
          email: made.user.email,
          integrator: made.integrator,
          role: made.user.role,
          operator: made.user.operator,
          set_password_url: made.link,
          expires: made.expires.toISOString(),
        },
        `console user ${made.user.email} (${made.user.role}${made.user.operator ? ', operator' : ''}) of ${made.integrator}\nset a password within 24 hours at: ${made.link}`,
      );
    },
  },
};
