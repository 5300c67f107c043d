/** `holdfast kyc …`: the operator's side of identity checks — decide one, reopen a final one, erase its personal data. */
import { DECISIONS, REOPEN_REASON_MAX, type Decision } from '../kyc/kyc.rules.js';
import { decideKyc, eraseKycData, reopenKyc } from '../kyc/kyc.service.js';
import {
  type Command,
  UsageError,
  auditOptions,
  auditUsage,
  cliAuditContext,
  onlyArgument,
  orNotFound,
  print,
  withOrm,
} from './cli-support.js';

export const kycCommands: Record<string, Command> = {
  'kyc decide': {
    summary: "decide an account's identity (KYC) check",
    usage: `holdfast kyc decide ACCOUNT_ID --state ACCEPT|DENY|CANCEL --reason TEXT [--actor NAME] [--json]

Decides the identity (KYC) check of account ACCOUNT_ID. In production only a check in
MANUAL_REVIEW can be decided; in staging a check in any state (one is made when the account
has none), so that payouts can be tried without the hosted form. Emits kyc-webhook; DENY and
CANCEL block the account's payouts (unless a payouts block is already active), ACCEPT lifts a
payouts block that a KYC outcome set. Deciding the state the check has changes nothing. A DENY
or a CANCEL decided here takes no new submission until holdfast kyc reopen. A decision that
changes the state is recorded in the audit trail (the states, never the identity).
${auditUsage(true)}
  --json          print {"account_id","kyc_id","state","pii_level","kyc_requirements"}`,
    options: { state: { type: 'string' }, ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = onlyArgument(positionals, 'ACCOUNT_ID');
      const state = typeof v.state === 'string' ? v.state : '';
      if (!(DECISIONS as readonly string[]).includes(state)) {
        throw new UsageError(
          state ? `--state must be one of ${DECISIONS.join(', ')}` : `--state is required: one of ${DECISIONS.join(', ')}`,
        );
      }
      const audit = cliAuditContext(v, true);
      const decided = await orNotFound(
        'account',
        accountId,
        withOrm({ read: 'kyc decide' }, (orm, _applied, environment) =>
          decideKyc(orm.em.fork(), accountId, state as Decision, environment === 'production', audit),
        ),
      );
      print(v.json === true, { ...decided }, `account ${decided.account_id}: KYC ${decided.state} (pii_level ${decided.pii_level})`);
    },
  },
  'kyc reopen': {
    summary: 'let an account submit its identity again after a DENY or CANCEL',
    usage: `holdfast kyc reopen ACCOUNT_ID --reason TEXT [--actor NAME] [--json]

Reopens the identity (KYC) check of account ACCOUNT_ID: a DENY, or a CANCEL an operator decided,
takes no new submission until it is reopened. The check goes to NODATA (emits kyc-webhook) and
keeps the reason and when; the person may then submit again. The account's payouts block stays
until a later ACCEPT lifts it. Any other check is refused (exit 1).
  --reason TEXT   why it is reopened (required, at most ${REOPEN_REASON_MAX} characters; kept on the check and in the audit trail)
  --actor NAME    who decides, as the audit trail names them (default: the operating-system user)
  --json          print {"account_id","kyc_id","state","pii_level","kyc_requirements","reopen_reason","reopened_at"}`,
    options: { ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = onlyArgument(positionals, 'ACCOUNT_ID');
      const reason = typeof v.reason === 'string' ? v.reason.trim() : '';
      if (!reason) throw new UsageError('--reason is required: say why the check is reopened');
      if (reason.length > REOPEN_REASON_MAX) throw new UsageError(`--reason is longer than ${REOPEN_REASON_MAX} characters`);
      const audit = cliAuditContext(v, true);
      const reopened = await orNotFound(
        'account',
        accountId,
        withOrm({ read: 'kyc reopen' }, (orm) => reopenKyc(orm.em.fork(), accountId, reason, audit)),
      );
      print(v.json === true, { ...reopened }, `account ${reopened.account_id}: KYC reopened, now ${reopened.state}`);
    },
  },
  'kyc erase': {
    summary: "erase the personal data behind an account's KYC check",
    usage: `holdfast kyc erase ACCOUNT_ID --reason TEXT [--actor NAME] [--json]

Erases the personal data behind the KYC check of account ACCOUNT_ID (a person's request to be
forgotten, with the gdpr block reason): the data is deleted for good; the check keeps its state.
The erasure is recorded in the audit trail (that it happened, never what was erased).
${auditUsage(true)}
  --json          print {"account_id","erased"}`,
    options: { ...auditOptions, json: { type: 'boolean' } },
    positionals: 1,
    async run(v, positionals) {
      const accountId = onlyArgument(positionals, 'ACCOUNT_ID');
      const audit = cliAuditContext(v, true);
      const erased = await withOrm({ read: 'kyc erase' }, (orm) => eraseKycData(orm.em.fork(), accountId, audit));
      print(
        v.json === true,
        { account_id: accountId, erased },
        erased ? `erased the KYC personal data of account ${accountId}` : `account ${accountId} has no KYC personal data`,
      );
    },
  },
};
