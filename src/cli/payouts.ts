/** `holdfast payouts approve|reject`: the operator's decision on a payout, run as its command in this process. */
import { operatorPayoutCommand } from '../payouts/payout.commands.js';
import { railAdapters } from '../rails/rail-adapters.js';
import {
  type Command,
  Refused,
  type Values,
  auditOptions,
  auditUsage,
  cliAuditContext,
  notFound,
  onlyArgument,
  orNotFound,
  print,
  withOrm,
  cliConfig,
} from './cli-support.js';

/** Runs the payout's command and prints the payout, or fails with the refusal. */
async function decide(action: 'approve' | 'reject', v: Values, positionals: string[]): Promise<void> {
  const payoutId = onlyArgument(positionals, 'PAYOUT_ID');
  const audit = cliAuditContext(v, true);
  const result = await orNotFound(
    'payout',
    payoutId,
    withOrm({ read: `payouts ${action}` }, (orm) =>
      operatorPayoutCommand(orm.em.fork(), railAdapters(cliConfig().rails, cliConfig()).payouts, payoutId, action, audit),
    ),
  );
  // A payout gone by the time its command ran answers 404 (with no body when the command row went too).
  if (result.status === 404) throw notFound('payout', payoutId);
  const body = result.body as { payload?: unknown; message?: string[] };
  if (result.status >= 300) {
    const why =
      body.message?.join(' ') || (typeof body.payload === 'string' ? body.payload : `payouts ${action} failed (${result.status})`);
    throw new Refused(why);
  }
  const p = body.payload as { payout_status_id: string; payout_status: string; failure_code: string };
  print(v.json === true, { ...p }, `payout ${p.payout_status_id}: ${p.payout_status}${p.failure_code ? ` (${p.failure_code})` : ''}`);
}

export const payoutsCommands: Record<string, Command> = {
  'payouts approve': {
    summary: 'approve (or retry) a payout: an attempt at the payout rail',
    usage: `holdfast payouts approve PAYOUT_ID --reason TEXT [--actor NAME] [--json]

Approves payout PAYOUT_ID (payout_status_id) in FUNDS-IN-ESCROW, or retries a FAILED one (a new
attempt): the payout rail (PAYOUT_RAIL) executes it. The sandbox rail answers at once — SUCCESS,
or FAILED for the documented failing destination (the money stays held); a real rail leaves it
PROCESSING until its outcome arrives. Runs the payout's payout.execute command in this process
and prints the payout: a FAILED or PROCESSING execution is an outcome, not an error (exit 0;
read payout_status), as is a rail that does not answer (PROCESSING: a worker retries it).
Another state, or a payouts or login block on the account, is refused (exit 1). The approval is
recorded in the audit trail with the attempt it starts; a refused one leaves no record.
${auditUsage(true)}
  --json          print the payout`,
    options: { ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    run: (v, positionals) => decide('approve', v, positionals),
  },
  'payouts reject': {
    summary: 'reject a payout: its money goes back to the wallet',
    usage: `holdfast payouts reject PAYOUT_ID --reason TEXT [--actor NAME] [--json]

Rejects payout PAYOUT_ID in FUNDS-IN-ESCROW or FAILED: the money goes back from payout holding
to the account's wallet and the payout is SUPPORT-REVERSED. Runs its payout.reverse command
in this process. Another state is refused (exit 1), PROCESSING too: the rail may pay it. The
rejection is recorded in the audit trail.
${auditUsage(true)}
  --json          print the payout`,
    options: { ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    run: (v, positionals) => decide('reject', v, positionals),
  },
};
